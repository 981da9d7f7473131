"""The site-visit model: plain Python, no Qt, no storage (see :mod:`fieldapp.survey.visit`).

The names other packages use: :class:`Visit` (commands, events, undo; its rule inputs are built
in :mod:`fieldapp.checks.requests`), the record kinds and enums of
:mod:`~fieldapp.survey.features`, :class:`~fieldapp.survey.gnss.North`, and the errors of
:mod:`~fieldapp.survey.errors`. Everything else is imported from its module
(``fieldapp.survey.canopy``, ``fieldapp.survey.boundary`` ...).
"""

import importlib
from typing import TYPE_CHECKING

#: Where each name lives. The names are loaded on first use (PEP 562), so a window that needs
#: only the record kinds (``fieldapp.survey.features.Layer``) does not load the whole model
#: (visit, boundary walks, canopy, stake-out; ~30 ms of start-up): the model is loaded with the
#: visit, after the window shows.
_HOME = {
    **dict.fromkeys(("InvalidValue", "NotEnoughEpochs", "SelfCrossing", "StateError"), "errors"),
    **dict.fromkeys(("Action", "AreaKind", "Layer", "LeafHabit", "LineKind", "TreeStatus", "WalkState",
                     "WaterFeature", "WaterFeatureType"), "features"),
    "North": "gnss",
    "Visit": "visit",
}

if TYPE_CHECKING:   # the checker sees the names themselves; at run time __getattr__ loads them
    from .errors import InvalidValue, NotEnoughEpochs, SelfCrossing, StateError
    from .features import (
        Action,
        AreaKind,
        Layer,
        LeafHabit,
        LineKind,
        TreeStatus,
        WalkState,
        WaterFeature,
        WaterFeatureType,
    )
    from .gnss import North
    from .visit import Visit
else:
    def __getattr__(name: str) -> object:
        home = _HOME.get(name)
        if home is None:
            raise AttributeError(f"module 'fieldapp.survey' has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_HOME))


__all__ = [
    "Action", "AreaKind", "InvalidValue", "Layer", "LeafHabit", "LineKind", "North", "NotEnoughEpochs",
    "SelfCrossing", "StateError", "TreeStatus", "Visit", "WalkState", "WaterFeature", "WaterFeatureType",
]
