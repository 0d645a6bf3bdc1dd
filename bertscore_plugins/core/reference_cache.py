"""Reference-embedding cache: re-score new candidates against fixed references without re-encoding them.

In memory, and optionally on disk as safetensors files (no pickle), keyed by the embedding settings
(model identity, layer, dtype, length policy) and the text's sha256.

A disk entry is written atomically and carries what it belongs to: the cache key, its text's sha256,
the embedding's shape and a digest of its tensors. On read all four are checked, so an entry is never
used for another text: a swapped, truncated, foreign or altered entry is re-encoded (one
CacheEntryWarning per cache). A folder that cannot be written (read-only, full) leaves the cache in
memory only, with one CacheFolderWarning.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import torch

from bertscore_plugins.core.tokenize import TokenizedText
from bertscore_plugins.errors import ArgumentError, BertScorePluginsWarning
from bertscore_plugins.files import write_atomically

#: bumped when the entry layout changes: older entries are then re-encoded, never misread
ENTRY_FORMAT = "2"


class CacheEntryWarning(BertScorePluginsWarning):
    """A disk cache entry did not match its text or could not be read; it was re-encoded."""


class CacheFolderWarning(BertScorePluginsWarning):
    """The cache folder cannot be written; the cache keeps entries in memory only."""


class ReferenceCache:
    """Token ids and unit-norm embeddings of reference texts."""

    def __init__(self, key: str, disk_dir: str | None = None, max_bytes: int | None = None) -> None:
        self.key = key
        # least recently used first; with `max_bytes`, the oldest entries leave memory past the bound
        self._memory: OrderedDict[str, tuple[TokenizedText, torch.Tensor]] = OrderedDict()
        self.max_bytes = max_bytes
        self._bytes = 0
        self.folder = Path(disk_dir) / key if disk_dir else None
        self.writable = self.folder is not None
        if self.folder is not None:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                self._read_only(error)
        self.hits = 0
        self.misses = 0
        self.damaged = 0  # disk entries found not to match (re-encoded)

    def __len__(self) -> int:
        return len(self._memory)

    def _path(self, text: str) -> Path:
        digest = _text_digest(text)
        return self.folder / digest[:2] / f"{digest}.safetensors"  # type: ignore[operator]

    def get(self, text: str, device: torch.device) -> tuple[TokenizedText, torch.Tensor] | None:
        found = self._memory.get(text)
        if found is not None:
            self._memory.move_to_end(text)
        elif self.folder is not None:
            path = self._path(text)
            if path.is_file():
                found = self._read_checked(path, text)
                if found is not None:
                    self._remember(text, found)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        tokens, embedding = found
        return tokens, embedding.to(device)

    def put(self, text: str, tokens: TokenizedText, embedding: torch.Tensor) -> None:
        # a copy: the embedding is a view into its chunk's buffer, which it would otherwise pin
        embedding = embedding.detach().to("cpu", copy=True)
        self._remember(text, (tokens, embedding))
        if self.folder is not None and self.writable:
            try:
                _write(self._path(text), self.key, text, tokens, embedding)
            except OSError as error:
                self._read_only(error)

    @property
    def nbytes(self) -> int:
        """Bytes of embeddings held in memory."""
        return self._bytes

    def _read_checked(self, path: Path, text: str) -> tuple[TokenizedText, torch.Tensor] | None:
        try:
            return _read(path, self.key, text)
        except Exception as error:
            self.damaged += 1
            if self.damaged == 1:
                warnings.warn(
                    f"reference cache entry {path} was not used ({error}); the text is encoded again and the "
                    "entry rewritten (further damaged entries of this cache are counted in .damaged)",
                    CacheEntryWarning,
                    stacklevel=4,
                )
            return None

    def _read_only(self, error: OSError) -> None:
        if self.writable or self.folder is not None:
            warnings.warn(
                f"reference cache folder {self.folder} cannot be written ({error.strerror or error}); "
                "reference embeddings are kept in memory only",
                CacheFolderWarning,
                stacklevel=4,
            )
        self.writable = False
        if self.folder is not None and not self.folder.is_dir():
            self.folder = None

    def _remember(self, text: str, entry: tuple[TokenizedText, torch.Tensor]) -> None:
        if text in self._memory:
            self._bytes -= _size(self._memory.pop(text)[1])
        self._memory[text] = entry
        self._bytes += _size(entry[1])
        while self.max_bytes is not None and self._bytes > self.max_bytes and len(self._memory) > 1:
            _, (_, oldest) = self._memory.popitem(last=False)
            self._bytes -= _size(oldest)


def embed_through_cache(
    cache: ReferenceCache | None,
    texts: list[str],
    tokens: list[TokenizedText],
    references: set[str],
    embed: Callable[[list[TokenizedText]], list[torch.Tensor]],
    device: torch.device,
) -> list[torch.Tensor | None]:
    """Per text: its embedding from `cache` when it is a reference the cache holds, else from `embed`
    (and then stored when it is a reference); None for an empty text. `cache` None: `embed` for all."""
    references = references if cache is not None else set()
    embeddings: list[torch.Tensor | None] = [None] * len(texts)
    for i, text in enumerate(texts):
        hit = cache.get(text, device) if text in references else None  # type: ignore[union-attr]
        if hit is not None:
            embeddings[i] = hit[1][None]
    to_embed = [i for i, embedding in enumerate(embeddings) if embedding is None and not tokens[i].is_empty]
    fresh = embed([tokens[i] for i in to_embed]) if to_embed else []
    for i, embedding in zip(to_embed, fresh, strict=True):
        embeddings[i] = embedding
        if texts[i] in references:
            cache.put(texts[i], tokens[i], embedding[0])  # type: ignore[union-attr]
    return embeddings


def _size(embedding: torch.Tensor) -> int:
    return int(embedding.numel() * embedding.element_size())


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _tensor_digest(tensors: dict[str, torch.Tensor]) -> str:
    digest = hashlib.sha256()
    for name in sorted(tensors):
        tensor = tensors[name].contiguous()
        digest.update(f"{name}:{tensor.dtype}:{tuple(tensor.shape)}".encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def _write(path: Path, key: str, text: str, tokens: TokenizedText, embedding: torch.Tensor) -> None:
    from safetensors.torch import save

    tensors = {
        "embedding": embedding.contiguous(),
        "ids": torch.tensor(tokens.ids, dtype=torch.long),
        "offsets": torch.tensor(tokens.offsets, dtype=torch.long).reshape(-1, 2),
    }
    metadata = {
        "format": ENTRY_FORMAT,
        "cache_key": key,
        "text_sha256": _text_digest(text),
        "shape": ",".join(str(n) for n in embedding.shape),
        "tensors_sha256": _tensor_digest(tensors),
        "content_length": str(tokens.content_length),
        "truncated": str(int(tokens.truncated)),
    }
    # serialised here and written by Python: a full disk is then an OSError (ENOSPC) the caller degrades
    # to memory on, where safetensors' own writer raised its SafetensorError
    write_atomically(path, save(tensors, metadata=metadata))


def _read(path: Path, key: str, text: str) -> tuple[TokenizedText, torch.Tensor]:
    """The entry at `path` if it is this cache's entry for `text`; ValueError saying why not."""
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        metadata = handle.metadata() or {}
        tensors = {name: handle.get_tensor(name) for name in ("embedding", "ids", "offsets")}
    if metadata.get("format") != ENTRY_FORMAT:
        raise ArgumentError(f"entry format {metadata.get('format')!r}, expected {ENTRY_FORMAT}")
    if metadata.get("cache_key") != key:
        raise ArgumentError("it belongs to another model or setting")
    if metadata.get("text_sha256") != _text_digest(text):
        raise ArgumentError("it holds another text's embedding")
    embedding, ids = tensors["embedding"], tensors["ids"]
    shape = ",".join(str(n) for n in embedding.shape)
    if metadata.get("shape") != shape or embedding.shape[0] != ids.shape[0]:
        raise ArgumentError(f"its embedding has shape ({shape}), recorded ({metadata.get('shape')})")
    if metadata.get("tensors_sha256") != _tensor_digest(tensors):
        raise ArgumentError("its tensors do not match their digest")
    tokens = TokenizedText(
        ids=ids.tolist(),
        offsets=[tuple(pair) for pair in tensors["offsets"].tolist()],
        text=text.strip(),
        content_length=int(metadata["content_length"]),
        truncated=bool(int(metadata["truncated"])),
    )
    return tokens, embedding
