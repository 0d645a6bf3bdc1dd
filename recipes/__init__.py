"""Runnable end-to-end jobs built from bertscore_plugins (run them with ``python -m recipes.<name>``)."""
