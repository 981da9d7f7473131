"""No offer of an undo that is gone (issue 35 item 16): a visit opened again (after a sync, or
another visit) starts with an empty undo history, so "Ctrl+Z brings it back" on the status line
or a panel's state line would promise what Ctrl+Z no longer does (Undo is greyed).

>>> without_undo_offer("Tree 5 deleted (Ctrl+Z brings it back).")
'Tree 5 deleted.'
>>> without_undo_offer("Deleted OHWM point 6 — Ctrl+Z brings it back")
'Deleted OHWM point 6'
>>> without_undo_offer("Tree 5 recorded.")
'Tree 5 recorded.'
"""

from __future__ import annotations

import re
from typing import Any

_OFFER = re.compile(r"\s*(\(Ctrl\+Z brings it back\)|—\s*Ctrl\+Z brings it back)")


def without_undo_offer(text: str) -> str:
    """``text`` without its "Ctrl+Z brings it back"."""
    return _OFFER.sub("", text)


def forget_undo_offers(window: Any) -> None:
    """Take the undo offers off ``window``'s status line and its panels' state lines (a
    :class:`fieldapp.ui.mainwindow.MainWindow` whose visit was just opened again)."""
    status = window.statusBar()
    message = status.currentMessage()
    if "Ctrl+Z" in message:
        status.showMessage(without_undo_offer(message)
                           + " (no longer undoable: the visit was opened again)")
    for panel in dict(window.panels).values():
        state = getattr(panel, "state", None)
        if state is not None and "Ctrl+Z" in state.text():
            state.setText(without_undo_offer(state.text()))
