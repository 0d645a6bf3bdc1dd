"""`python -m bertscore_plugins.cli`: the same as the `bertscore-plugins` command."""

import sys

from bertscore_plugins.cli.main import main

sys.exit(main())
