"""The project's exception root.

Every error the package raises on purpose is a `BertScorePluginsError`, so one ``except`` catches them
all, and each also keeps the built-in base users may already catch (`ValueError`, `TypeError`,
`OSError`, ...). The CLI prints these as one line with exit 2; anything else is a bug of ours and prints
as "unexpected error" with exit 1.
"""

from __future__ import annotations


class BertScorePluginsError(Exception):
    """Root of every error this project raises on purpose (a user's input, setting, file or server)."""
