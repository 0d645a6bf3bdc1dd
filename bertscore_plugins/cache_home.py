"""The one folder this package keeps things in between runs: assembled preset models, the judge's weights,
Phoenix's virtual environment, result stores and the servers' pid files and logs.

Where: ``$BERTSCORE_PLUGINS_CACHE`` (one setting moves everything), else ``$XDG_CACHE_HOME/bertscore-plugins``
(an absolute ``XDG_CACHE_HOME`` only, as the XDG specification says), else ``~/.cache/bertscore-plugins``.

Earlier versions kept the models, the judge's weights and the result store in ``bertscore_plugins`` (with an
underscore) beside it. :func:`cached` finds what is left there and moves it into the cache home (a rename on
the same disk: nothing is assembled or downloaded again); where it cannot be moved it is used where it is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from pathlib import Path

logger = logging.getLogger(__name__)

#: the setting that moves the whole cache home
CACHE_ENV = "BERTSCORE_PLUGINS_CACHE"
#: this package's folder in the user's cache
CACHE_NAME = "bertscore-plugins"
#: the folder name earlier versions used for the models, the judge's weights and the result store
OLD_CACHE_NAME = "bertscore_plugins"


def _user_cache() -> Path:
    """``$XDG_CACHE_HOME`` when it is an absolute path, else ``~/.cache``."""
    configured = os.environ.get("XDG_CACHE_HOME", "").strip()
    return Path(configured) if configured and Path(configured).is_absolute() else Path.home() / ".cache"


def cache_home() -> Path:
    """This package's cache folder (see the module's docstring); an absolute path, not created here."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured:
        return Path(os.path.abspath(Path(configured).expanduser()))
    return _user_cache() / CACHE_NAME


def old_cache_homes() -> list[Path]:
    """Where earlier versions kept things: ``bertscore_plugins`` in ``~/.cache`` and in ``$XDG_CACHE_HOME``."""
    homes = [_user_cache() / OLD_CACHE_NAME, Path.home() / ".cache" / OLD_CACHE_NAME]
    return list(dict.fromkeys(homes))


def cached(name: str) -> Path:
    """``cache_home() / name``: a file or folder in the cache home. When it is not there yet but an
    earlier version left it in an old cache folder, it is moved here first (or, if it cannot be moved,
    that old path is returned and used): what was assembled or downloaded once is never fetched again."""
    target = cache_home() / name
    if target.exists() or os.environ.get(CACHE_ENV, "").strip():
        return target
    for home in old_cache_homes():
        old = home / name
        if not old.exists():
            continue
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(old), str(target))  # a rename on the same disk
        except OSError as error:
            logger.info("using %s where it is (could not move it to %s: %s)", old, target, error)
            return old
        logger.info("moved %s to %s (this package's one cache folder)", old, target)
        _remove_if_empty(home)
        return target
    return target


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):  # something else is still there, or it is gone already
        folder.rmdir()
