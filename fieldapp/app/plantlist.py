"""The plant list the crew loaded, and the species picker's search over it (no Qt).

The list is the user's: the National Wetland Plant List's export for the state and region (a
CSV of scientific name, common name and the region's indicator status), or any CSV with those
columns (the import asks which column is which). fieldapp ships no statuses. The loaded list is
kept in the settings folder (``plantlist.json``: :func:`saved_path`) with the species the crew
picked last (recent first), so it is there on the next run and for every visit; each data point
also keeps the statuses of the species it uses (its form's ``indicators``), so a visit stands
alone without the list.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from fieldapp.app import paths
from fieldapp.rules.wetland_form import species_key
from fieldapp.rules.wetland_regions import STATUSES

log = logging.getLogger(__name__)

__all__ = ["Plant", "PlantList", "saved_path", "from_loaded", "from_rows", "RECENT_MAX"]

#: How many species the picker remembers as recent.
RECENT_MAX = 30


class Plant(NamedTuple):
    """One species of the list: scientific name, common name, the region's indicator status
    (OBL, FACW, FAC, FACU, UPL)."""

    scientific: str
    common: str
    status: str


def saved_path() -> Path:
    """Where the loaded list is kept: ``plantlist.json`` in the settings folder
    (:func:`fieldapp.app.paths.config_dir`, beside ``fieldapp.toml``)."""
    return paths.config_dir() / "plantlist.json"


@dataclass
class PlantList:
    """A loaded plant list: its species, where it came from (``source``, e.g. the CSV's file
    name and the columns used) and the species picked most recently (``recent``, newest first)."""

    plants: list[Plant] = field(default_factory=list)
    source: str = ""
    recent: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_name = {species_key(p.scientific): p for p in self.plants}

    def __len__(self) -> int:
        return len(self.plants)

    def get(self, scientific: str) -> Plant | None:
        """The species of that scientific name, matched as the rules match it (any case, repeated
        spaces as one, "x" as the hybrid sign "×": :func:`fieldapp.rules.wetland_form.species_key`),
        or None; its ``scientific`` is the list's own spelling."""
        return self._by_name.get(species_key(scientific))

    def status(self, scientific: str) -> str | None:
        """The species' indicator status, or None when it is not on the list."""
        p = self.get(scientific)
        return None if p is None else p.status

    def search(self, text: str, *, limit: int = 40, extra: Iterable[Plant] = ()) -> list[Plant]:
        """The species whose scientific or common name contains every word of ``text`` (any
        case; "typ lat" finds *Typha latifolia*, "cattail" its common name): recent species
        first (newest first), then those whose name starts with the text, then the rest in
        alphabetical order; at most ``limit``. Empty text: the recent species. ``extra`` are
        species known otherwise (those on the visit's data points), searched too."""
        words = text.casefold().split()
        pool = {species_key(p.scientific): p for p in extra}
        pool.update(self._by_name)
        recent = [pool[species_key(r)] for r in self.recent if species_key(r) in pool]
        if not words:
            return recent[:limit]

        def hit(p: Plant) -> bool:
            hay = f"{p.scientific} {p.common}".casefold()
            return all(w in hay for w in words)

        first = [p for p in recent if hit(p)]
        seen = {p.scientific for p in first}
        head = text.strip().casefold()
        rest = sorted((p for p in pool.values() if p.scientific not in seen and hit(p)),
                      key=lambda p: (not (p.scientific.casefold().startswith(head)
                                          or p.common.casefold().startswith(head)), p.scientific))
        return (first + rest)[:limit]

    def picked(self, scientific: str) -> None:
        """``scientific`` was picked: it goes first among the recent species."""
        name = scientific.strip()
        self.recent = [name] + [r for r in self.recent if r.casefold() != name.casefold()][:RECENT_MAX - 1]

    # ------------------------------------------------------------------ keeping it
    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "recent": self.recent,
                "plants": [[p.scientific, p.common, p.status] for p in self.plants]}

    @classmethod
    def from_json(cls, data: Any) -> PlantList:
        """The list :meth:`to_json` wrote; ValueError naming what is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("plants"), list):
            raise ValueError("not a saved plant list (no \"plants\")")
        plants = []
        for row in data["plants"]:
            if (not isinstance(row, list) or len(row) != 3 or not all(isinstance(v, str) for v in row)
                    or row[2] not in STATUSES):
                raise ValueError(f"plant {row!r} is not [scientific name, common name, status]")
            plants.append(Plant(*row))
        recent = [r for r in data.get("recent") or [] if isinstance(r, str)]
        return cls(plants, str(data.get("source") or ""), recent)

    def save(self, path: Path | None = None) -> None:
        """Write the list (and the recent species) to ``path`` (default :func:`saved_path`),
        UTF-8, through a temporary file so a crash never leaves half a list.

        Raises OSError when it cannot be written."""
        path = path or saved_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load_saved(cls, path: Path | None = None) -> PlantList:
        """The list kept by :meth:`save`; an empty list when there is none or it cannot be read
        (logged: the crew loads the CSV again)."""
        path = path or saved_path()
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as exc:
            log.warning("plant list %s not read: %s", path, exc)
            return cls()


def from_loaded(loaded: Any, recent: Sequence[str] = ()) -> PlantList:
    """Our :class:`PlantList` of a list :func:`fieldapp.rules.plantlist.load_plant_list` read
    (its file name and status column as the source; a SAMPLE list says so)."""
    rows = [(name, loaded.common_names.get(name, ""), status) for name, status in loaded.statuses.items()]
    source = f"{Path(loaded.source).name}, status column {loaded.status_column}"
    if loaded.sample:
        source = "SAMPLE list, not the National Wetland Plant List: " + source
    return from_rows(rows, source, recent)


def from_rows(rows: Sequence[tuple[str, str, str]], source: str, recent: Sequence[str] = ()) -> PlantList:
    """A :class:`PlantList` of (scientific, common, status) rows."""
    return PlantList([Plant(*r) for r in rows], source, list(recent))
