# Gradio widget for the Hub Space (evaluate's own helper, as the upstream metric Spaces use).
# The class is instantiated directly: evaluate.load(<this folder>) would look for a script named after
# the Space's working folder.
from evaluate.utils import launch_gradio_widget

from bertscore_plugins.integrations.hf_evaluate import BERTScorePlugins

module = BERTScorePlugins()
module.download_and_prepare()
launch_gradio_widget(module)
