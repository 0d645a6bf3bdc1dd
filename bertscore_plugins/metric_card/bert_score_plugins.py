# Loading script for a Hub Space named `<org>/bert_score_plugins`: evaluate downloads <space name>.py.
# The name is the module's own name (snake case of BERTScorePlugins) and deliberately differs from the
# package `bertscore_plugins`, which a script of that name would shadow inside the Space.
# metric_card.py is the same shim for loading this folder by path.
from bertscore_plugins.integrations.hf_evaluate import BERTScorePlugins

__all__ = ["BERTScorePlugins"]
