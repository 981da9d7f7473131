"""The settings of this run, as the window's panels see them.

:class:`Settings` holds this run's :class:`fieldapp.app.config.AppConfig` and remembers a
change both for the run and in the settings file (``fieldapp.toml`` in the settings folder,
:func:`fieldapp.app.config.remember`).
"""

from __future__ import annotations

import logging
from typing import Any

from fieldapp.app import config as config_mod
from fieldapp.app.config import AppConfig

log = logging.getLogger(__name__)


class Settings:
    """This run's settings; :meth:`remember` keeps a change for the next run too."""

    def __init__(self, config: AppConfig) -> None:
        self.config = config

    def remember(self, **changes: Any) -> bool:
        """Keep ``changes`` (setting name → value, e.g. ``high_contrast=True``) in this run's
        config and in the settings file. The run keeps them even when the file cannot be
        written (a full or read-only disk: logged as a warning); returns whether the file was
        written.

        Raises
        ------
        TypeError
            A name that is no setting (from :func:`fieldapp.app.config.with_changes`).
        """
        self.config = config_mod.with_changes(self.config, **changes)
        try:
            config_mod.remember(**changes)
        except (OSError, ValueError) as exc:
            log.warning("cannot save settings: %s", exc)
            return False
        return True
