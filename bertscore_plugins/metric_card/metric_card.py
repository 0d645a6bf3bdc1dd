# Loading script for `evaluate.load(metric_card_path())`: evaluate runs <folder>/<folder name>.py, so this
# file is named after the folder. The metric itself lives in the package (one copy of the code);
# bert_score_plugins.py is the same import under the name a Hub Space `<org>/bert_score_plugins` needs, and
# the repository's top-level metric_card/ holds one more such script for `evaluate.load("./metric_card")`.
from bertscore_plugins.integrations.hf_evaluate import BERTScorePlugins

__all__ = ["BERTScorePlugins"]
