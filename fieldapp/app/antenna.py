"""One antenna height per visit, everywhere: the receiver's fixes, the status strip, the Devices
dialog and the report all take the open visit's height
(:meth:`fieldapp.survey.visit.Visit.set_antenna_height`), never a setting of their own.

The app's settings keep an antenna height only as the default a New visit offers.
"""

from __future__ import annotations

import logging
from typing import Any

from fieldapp.survey import antenna as survey_antenna

log = logging.getLogger(__name__)


def visit_height(visit: Any) -> tuple[float, str] | None:
    """(height m, unit entered) of ``visit`` (a :class:`fieldapp.app.visit.VisitController`), or
    None without a visit."""
    if visit is None:
        return None
    site = visit.model.site
    return float(site.antenna_height_m), survey_antenna.checked_unit(site.antenna_height_unit)


def height_text(visit: Any) -> str | None:
    """The visit's antenna height as entered ("6.50 ft"), None without a visit."""
    h = visit_height(visit)
    return None if h is None else survey_antenna.height_words(*h)


def apply_to_receiver(visit: Any, session: Any) -> bool:
    """Give the running GNSS reader the visit's antenna height, so each fix's ground elevation
    (``Fix.ground_alt_msl_m``) is worked out with it; False when there is no visit or no reader."""
    h = visit_height(visit)
    gnss = getattr(session, "gnss", None)
    if h is None or gnss is None or not hasattr(gnss, "set_antenna_height"):
        return False
    gnss.set_antenna_height(h[0], "m")
    return True


def change_height(visit: Any, session: Any, value: float, unit: str) -> bool:
    """Set the visit's antenna height to ``value`` ``unit`` from now on (recorded with its time)
    and tell the receiver; True when the height changed. Raises InvalidValue for a bad height."""
    before = visit_height(visit)
    visit.model.set_antenna_height(value, unit)
    after = visit_height(visit)
    apply_to_receiver(visit, session)
    if before != after:
        log.info("antenna height %s from now on (was %s)", height_text(visit),
                 None if before is None else survey_antenna.height_words(*before))
    return before != after


__all__ = ["apply_to_receiver", "change_height", "height_text", "visit_height"]
