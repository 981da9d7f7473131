"""The four field workflows as panels of the main window: OHWM, Transect, Tally, Boundary."""

from __future__ import annotations

from typing import Any


def install_workflows(window: Any) -> None:
    """Add the workflow panels (and the checks panel) to ``window``."""
