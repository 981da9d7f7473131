"""The background layers a visit carries: basemaps (orthophotos, MBTiles) with their opacity.

Kept beside the visit in ``NAME.gpkg.layers.json`` (never inside the GeoPackage: they are
the crew's context, not visit data, so they are never synced or exported), written whole to a
temporary file and moved into place. Paths are stored as given (absolute).

>>> sidecar("/data/lot7.gpkg").name
'lot7.gpkg.layers.json'
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: A file path as the callers hold it.
StrPath = str | os.PathLike[str]

__all__ = ["sidecar", "load", "save", "basemaps", "set_basemap", "references", "set_references"]


def sidecar(visit_path: StrPath) -> Path:
    """Where the layers of the visit at ``visit_path`` are kept."""
    p = Path(visit_path)
    return p.with_name(p.name + ".layers.json")


def load(visit_path: StrPath) -> dict[str, Any]:
    """``{"basemaps": [{"path": str, "opacity": float}, ...], "reference": [str, ...]}``;
    empty when none or unreadable
    (a damaged sidecar loses only the background, never a record)."""
    try:
        data = json.loads(sidecar(visit_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"basemaps": []}
    if not isinstance(data, dict) or not isinstance(data.get("basemaps"), list):
        return {"basemaps": []}
    return data


def save(visit_path: StrPath, data: dict[str, Any]) -> None:
    """Write the layers (atomic: a crash leaves the old file or the new one)."""
    target = sidecar(visit_path)
    fd, tmp = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def basemaps(visit_path: StrPath) -> list[tuple[Path, float]]:
    """(path, opacity 0..1) of each basemap of the visit, bottom first."""
    out: list[tuple[Path, float]] = []
    for b in load(visit_path).get("basemaps", []):
        try:
            out.append((Path(b["path"]), max(0.0, min(1.0, float(b.get("opacity", 1.0))))))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def set_basemap(visit_path: StrPath, path: StrPath | None, opacity: float = 1.0) -> None:
    """The visit's one basemap is ``path`` (None: no basemap) at ``opacity``."""
    data = load(visit_path)
    data["basemaps"] = [] if path is None else [{"path": str(Path(path).resolve()), "opacity": float(opacity)}]
    save(visit_path, data)


def references(visit_path: StrPath) -> list[Path]:
    """The visit's read-only vector reference layers (paths), in the order added."""
    refs = load(visit_path).get("reference", [])
    return [Path(p) for p in refs if isinstance(p, str)] if isinstance(refs, list) else []


def set_references(visit_path: StrPath, paths: Iterable[StrPath]) -> None:
    """The visit's reference layers are ``paths`` (an empty list: none)."""
    data = load(visit_path)
    data["reference"] = [str(Path(p).resolve()) for p in paths]
    save(visit_path, data)
