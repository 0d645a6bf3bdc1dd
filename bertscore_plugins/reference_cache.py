"""Reference-embedding cache: re-score new candidates against fixed references without re-encoding them.

In memory, and optionally on disk as safetensors files (no pickle), keyed by the embedding settings
(model identity, layer, dtype, length policy) and the text's sha256.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import OrderedDict
from pathlib import Path

import torch

from bertscore_plugins.tokenize import TokenizedText


class ReferenceCache:
    """Token ids and unit-norm embeddings of reference texts."""

    def __init__(self, key: str, disk_dir: str | None = None, max_bytes: int | None = None) -> None:
        self.key = key
        # least recently used first; with `max_bytes`, the oldest entries leave memory past the bound
        self._memory: OrderedDict[str, tuple[TokenizedText, torch.Tensor]] = OrderedDict()
        self.max_bytes = max_bytes
        self._bytes = 0
        self.folder = Path(disk_dir) / key if disk_dir else None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._memory)

    def _path(self, text: str) -> Path:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return self.folder / digest[:2] / f"{digest}.safetensors"  # type: ignore[operator]

    def get(self, text: str, device: torch.device) -> tuple[TokenizedText, torch.Tensor] | None:
        found = self._memory.get(text)
        if found is not None:
            self._memory.move_to_end(text)
        elif self.folder is not None:
            path = self._path(text)
            if path.is_file():
                found = _read(path, text)
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
        if self.folder is not None:
            _write(self._path(text), tokens, embedding)

    @property
    def nbytes(self) -> int:
        """Bytes of embeddings held in memory."""
        return self._bytes

    def _remember(self, text: str, entry: tuple[TokenizedText, torch.Tensor]) -> None:
        if text in self._memory:
            self._bytes -= _size(self._memory.pop(text)[1])
        self._memory[text] = entry
        self._bytes += _size(entry[1])
        while self.max_bytes is not None and self._bytes > self.max_bytes and len(self._memory) > 1:
            _, (_, oldest) = self._memory.popitem(last=False)
            self._bytes -= _size(oldest)


def _size(embedding: torch.Tensor) -> int:
    return embedding.numel() * embedding.element_size()


def _write(path: Path, tokens: TokenizedText, embedding: torch.Tensor) -> None:
    from safetensors.torch import save_file

    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {
        "embedding": embedding.contiguous(),
        "ids": torch.tensor(tokens.ids, dtype=torch.long),
        "offsets": torch.tensor(tokens.offsets, dtype=torch.long).reshape(-1, 2),
    }
    metadata = {"content_length": str(tokens.content_length), "truncated": str(int(tokens.truncated))}
    # write then rename, so a crash never leaves a half-written entry
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(handle)
    save_file(tensors, temporary, metadata=metadata)
    os.replace(temporary, path)


def _read(path: Path, text: str) -> tuple[TokenizedText, torch.Tensor]:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        metadata = handle.metadata()
        embedding = handle.get_tensor("embedding")
        ids = handle.get_tensor("ids").tolist()
        offsets = [tuple(pair) for pair in handle.get_tensor("offsets").tolist()]
    tokens = TokenizedText(
        ids=ids, offsets=offsets, text=text.strip(), content_length=int(metadata["content_length"]),
        truncated=bool(int(metadata["truncated"])),
    )
    return tokens, embedding
