# `evaluate.load("./metric_card")` from a clone: evaluate runs <folder>/<folder name>.py, so this folder
# holds that one file and nothing else. The card (README.md), the Hub Space files and the metric's code
# exist once, in the package (bertscore_plugins/metric_card/ and bertscore_plugins/integrations/
# hf_evaluate.py), so a clone, a pip install and a Space all load the same module.
from bertscore_plugins.integrations.hf_evaluate import BERTScorePlugins

__all__ = ["BERTScorePlugins"]
