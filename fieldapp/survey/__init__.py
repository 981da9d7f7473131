"""The site-visit model: plain Python, no Qt, no storage (see :mod:`fieldapp.survey.visit`).

Public names: :class:`Visit` (commands, events, undo; its rule inputs are built in
:mod:`fieldapp.checks.requests`), the feature records and
enums of :mod:`~fieldapp.survey.features`, GNSS helpers of :mod:`~fieldapp.survey.gnss`,
:class:`~fieldapp.survey.boundary.BoundaryWalk`, canopy measures of
:mod:`~fieldapp.survey.canopy`, the reading protocols of :mod:`~fieldapp.survey.readings`,
:func:`~fieldapp.survey.validation.validate`, and the errors of :mod:`~fieldapp.survey.errors`.
"""

import importlib
from typing import Any

#: Where each public name lives. The names are loaded on first use (PEP 562), so a window that
#: needs only the record kinds (``fieldapp.survey.features.Layer``) does not load the whole
#: model (visit, boundary walks, canopy, stake-out; ~30 ms of start-up): the model is loaded
#: with the visit, after the window shows.
_HOME = {
    "BoundaryWalk": "boundary",
    **dict.fromkeys(("StandClass", "StandMeasures", "stand_measures"), "canopy"),
    **dict.fromkeys(("InvalidValue", "NotEnoughEpochs", "NotFound", "SelfCrossing", "StateError",
                     "SurveyError"), "errors"),
    **dict.fromkeys(("Action", "AreaFeature", "AreaKind", "Change", "Feature", "Layer",
                     "LeafHabit", "LineFeature", "LineKind", "Note", "OhwmLine", "OhwmPoint",
                     "PointMethod", "Site", "Station", "Susceptibility", "TrackPoint", "Transect",
                     "Tree", "TreeStatus", "Walk", "WalkState", "WalkVertex", "WaterFeature",
                     "WaterFeatureType"), "features"),
    **dict.fromkeys(("AveragedPosition", "FixLike", "North", "QualityGate", "average_fixes"),
                    "gnss"),
    **dict.fromkeys(("CaliperLike", "ShotLike"), "readings"),
    "validate": "validation",
    **dict.fromkeys(("Journal", "Visit", "default_who"), "visit"),
}
_MODULES = ("attach", "boundary", "canopy", "editing", "errors", "features", "gnss", "photos",
            "readings", "shoreline", "stake", "standcanopy", "tracklog", "validation", "values",
            "visit")


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        if name in _MODULES:      # ``fieldapp.survey.canopy`` after ``import fieldapp.survey``
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module 'fieldapp.survey' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = sorted(_HOME)
