# Loading script for `evaluate.load("<path>/metric_card")`: evaluate runs <folder>/<folder name>.py, so this
# file is named after the folder. The metric itself lives in the installed package (one copy of the code);
# bert_score_plugins.py is the same shim under the name a Hub Space `<org>/bert_score_plugins` needs.
from bertscore_plugins.integrations.hf_evaluate import BERTScorePlugins

__all__ = ["BERTScorePlugins"]
