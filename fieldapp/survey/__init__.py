"""The site-visit model: plain Python, no Qt, no storage (see :mod:`fieldapp.survey.visit`).

Public names: :class:`Visit` (commands, events, undo; its rule inputs are built in
:mod:`fieldapp.checks.requests`), the feature records and
enums of :mod:`~fieldapp.survey.features`, GNSS helpers of :mod:`~fieldapp.survey.gnss`,
:class:`~fieldapp.survey.boundary.BoundaryWalk`, canopy measures of
:mod:`~fieldapp.survey.canopy`, the reading protocols of :mod:`~fieldapp.survey.readings`,
:func:`~fieldapp.survey.validation.validate`, and the errors of :mod:`~fieldapp.survey.errors`.
"""

from .boundary import BoundaryWalk
from .canopy import StandClass, StandMeasures, stand_measures
from .errors import InvalidValue, NotEnoughEpochs, NotFound, SelfCrossing, StateError, SurveyError
from .features import (
    Action,
    AreaFeature,
    AreaKind,
    Change,
    Feature,
    Layer,
    LeafHabit,
    LineFeature,
    LineKind,
    Note,
    OhwmLine,
    OhwmPoint,
    PointMethod,
    Site,
    Station,
    Susceptibility,
    TrackPoint,
    Transect,
    Tree,
    TreeStatus,
    Walk,
    WalkState,
    WalkVertex,
    WaterFeature,
    WaterFeatureType,
)
from .gnss import AveragedPosition, FixLike, North, QualityGate, average_fixes
from .readings import CaliperLike, ShotLike
from .validation import validate
from .visit import Journal, Visit, default_who

__all__ = [name for name in dir() if not name.startswith("_")]
