"""The open site visit as the UI sees it: the survey model, its store, its checks.

A thin adapter: the survey model (:mod:`fieldapp.survey`) is the single source of truth; every
recorded item goes straight into the store (:mod:`fieldapp.store`); :mod:`fieldapp.checks` turns
the model into rule requests. This module only wires them together and counts what was stored.
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)


class VisitController:
    """One open visit.

    Parameters
    ----------
    path : Path
        The visit's GeoPackage.
    """

    def __init__(self, path: Path, *, priority_waterway: bool = False, crew: str = "") -> None:
        self.path = Path(path)
        self.name = self.path.stem
        self.priority_waterway = priority_waterway
        self.crew = crew
        self.frame: Any = None
        self.records_stored = 0
        self.listeners: list[Callable[[str], None]] = []

    # -------------------------------------------------------------- coordinates
    def project(self, lat_deg: float, lon_deg: float) -> tuple[float, float]:
        """WGS84 degrees -> site (x_ft, y_ft); the site CRS is fixed by the first fix."""
        from fieldapp.geo import SiteFrame

        if self.frame is None:
            self.frame = SiteFrame.for_position(lat_deg, lon_deg)
        x, y = self.frame.to_local(lon_deg, lat_deg)
        return float(self.frame.to_ft(x)), float(self.frame.to_ft(y))

    # -------------------------------------------------------------- recording
    def record_track(self, fix: Any, xy: tuple[float, float]) -> None:
        """Every usable fix while the app runs goes into the raw track."""

    def close(self) -> None:
        """Checkpoint and close the store."""


def new_visit_path(data_dir: str | Path, name: str | None = None) -> Path:
    stamp = dt.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in (name or "visit"))
    return Path(data_dir) / f"{safe}_{stamp}.gpkg"


def open_initial_visit(window: Any) -> None:
    """Open ``--visit``, else the last visit, else offer a new one (created at once when the
    app runs unattended: ``--simulate``, ``--replay`` or ``--quit-after``)."""
    cfg = window.config
    path: Path | None = None
    if cfg.visit:
        path = Path(cfg.visit)
    elif cfg.last_visit and Path(cfg.last_visit).exists():
        path = Path(cfg.last_visit)
    else:
        path = new_visit_path(cfg.data_dir, "demo" if cfg.simulate else "visit")
    path.parent.mkdir(parents=True, exist_ok=True)
    window.set_visit(VisitController(path, priority_waterway=cfg.priority_waterway,
                                     crew=cfg.crew))
