"""The export's errors, its result and the layer data every format writes (a module of its own
so that the worker processes of :mod:`fieldapp.export.workers` can unpickle it cheaply)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import shapely

__all__ = ["ExportError", "ExportExists", "ExportRefused", "ExportWriteFailed", "ExportResult"]


class ExportError(Exception):
    """Base of the export's errors."""


class ExportExists(ExportError, FileExistsError):
    """The output exists and overwriting was not asked for."""


class ExportRefused(ExportError):
    """A file the export would write is a visit GeoPackage or a sidecar of one (refused even with
    ``force``), or a one-file format (kml, dxf) was given a folder, or (Windows) a file it would
    replace is open in another program or read-only."""


class ExportWriteFailed(ExportError):
    """The export could not be written (the cause is chained); nothing was left behind."""


@dataclass
class ExportResult:
    """What :func:`export_visit` wrote: ``path``, ``format``, ``crs``, feature counts per layer,
    and ``notes`` the user must be told (values written whole beside a Shapefile)."""

    path: Path
    format: str
    crs: str
    layers: dict[str, int] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class _LayerData:
    name: str
    geometry_type: str
    geometries: Any  # list of shapely (None allowed), or a numpy array of them; site CRS units
    columns: list[tuple[str, str]]  # (name, "int" | "float" | "str")
    rows: Any  # list of rows, or _ColumnRows over ``arrays``
    arrays: list[np.ndarray[Any, Any]] | None = None  # one per column (a layer read in bulk: the track)

    def __getstate__(self) -> dict[str, Any]:
        """A bulk layer's points go as one coordinate array (a worker process gets the day's
        288,000 fixes in a fraction of the time pickling each shapely point takes)."""
        state = dict(self.__dict__)
        if self.arrays is not None and self.geometry_type == "Point":
            geoms = np.asarray(self.geometries, dtype=object)
            if len(geoms) and not shapely.is_empty(geoms).any() and not shapely.is_missing(geoms).any():
                state["geometries"] = ("xy", shapely.get_coordinates(geoms))
            state["rows"] = None     # the same columns as ``arrays``
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        g = state["geometries"]
        if isinstance(g, tuple) and len(g) == 2 and isinstance(g[0], str) and g[0] == "xy":
            state["geometries"] = shapely.points(g[1])
        if state["rows"] is None:
            state["rows"] = _ColumnRows(state["arrays"])
        self.__dict__.update(state)


class _ColumnRows:
    """Rows of a layer held as columns (read in bulk), as a read-only sequence of lists."""

    def __init__(self, arrays: list[np.ndarray[Any, Any]]) -> None:
        self.arrays = arrays

    def __len__(self) -> int:
        return len(self.arrays[0])

    def __getitem__(self, i: int) -> list[Any]:
        return [None if v is None or (isinstance(v, float) and v != v) else v
                for v in (a[i].item() if hasattr(a[i], "item") else a[i] for a in self.arrays)]

    def __iter__(self) -> Iterator[list[Any]]:
        return (self[i] for i in range(len(self)))

