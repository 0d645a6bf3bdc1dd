"""A model folder's identity: digests of every file that can change its numbers.

A model is more than its weights: the tokenizer files decide which token ids a text becomes, and
config.json decides how the weights are used (activation, norms' epsilon, layer count). The identity the
signature, the model and scorer caches, the reference-embedding cache and the datasets fingerprint all
use is therefore ``<name>;sha256:<weights>;files:<the other files>``.

The files digest covers the folder's top-level files except weights and hidden files (a rule, not a list
of names, so a tokenizer file we did not know of is covered too; a README edit costs a needless miss,
never a wrong hit), and, for the old sentence-transformers layout, the files of the module folder that
holds the encoder (named relative to the folder). Digests are memoised per (path, size, mtime, inode):
a model folder is hashed once per process, and a file replaced by a new one is hashed again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: weight files in any framework's format: hashed by `weights_digest` (the loaded ones) or never used
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack", ".onnx", ".gguf", ".ot")

_DIGESTS: dict[tuple[str, int, int, int], str] = {}


def file_sha256(path: str | os.PathLike[str], stat: os.stat_result | None = None) -> str:
    """sha256 of a file, memoised per (path, size, mtime, inode) so repeated loads cost nothing."""
    stat = stat or os.stat(path)
    key = (os.fspath(path), stat.st_size, stat.st_mtime_ns, stat.st_ino)
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


def weights_digest(folder: Path) -> str:
    """A content hash of a local model folder's weight files (combined when sharded); "none" without any."""
    files = sorted(folder.glob("*.safetensors")) or sorted(folder.glob("*.bin"))
    if not files:
        return "none"
    if len(files) == 1:
        return file_sha256(files[0])
    combined = hashlib.sha256("".join(f"{f.name}:{file_sha256(f)}" for f in files).encode())
    return combined.hexdigest()


def identity_files(folder: Path, encoder_folder: Path | None = None) -> dict[str, tuple[str, os.stat_result]]:
    """The files besides the weights that the files digest covers, by their name relative to `folder`."""
    folders = {"": folder}
    if encoder_folder is not None and encoder_folder != folder:
        folders[os.path.relpath(encoder_folder, folder).replace(os.sep, "/") + "/"] = encoder_folder
    found: dict[str, tuple[str, os.stat_result]] = {}
    for prefix, where in folders.items():
        with os.scandir(where) as entries:  # one stat per file: resolve_model runs on every get_scorer call
            for entry in entries:
                if entry.name.startswith(".") or entry.name.endswith(WEIGHT_SUFFIXES) or not entry.is_file():
                    continue
                found[prefix + entry.name] = (entry.path, entry.stat())
    return dict(sorted(found.items()))


def files_digest(folder: Path, encoder_folder: Path | None = None) -> str:
    """sha256 over the names (relative to `folder`) and contents of `identity_files`."""
    lines = (
        f"{name}\0{file_sha256(path, stat)}\n"
        for name, (path, stat) in identity_files(folder, encoder_folder).items()
    )
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def with_files(identity: str, folder: Path, encoder_folder: Path | None = None) -> str:
    """`identity` (name and weights digest) followed by the files digest: ``...;files:1a2b3c4d``."""
    return f"{identity};files:{files_digest(Path(folder), encoder_folder)[:8]}"
