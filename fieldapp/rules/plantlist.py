"""Reading the plant list the crew loads: the National Wetland Plant List's export, or any CSV.

The National Wetland Plant List (NWPL) export for a state (the Corps' NWPL site) is a CSV with
the scientific name, the common name and one indicator-status column per region (e.g. ``NCNE``
for Northcentral and Northeast, ``MW`` for Midwest). Any other CSV with those three kinds of
column works too. The import dialog asks which column is which:

1. :func:`read_header` lists the columns (and guesses which is which, :func:`guess_mapping`);
2. :func:`load_plant_list` loads with the chosen :class:`ColumnMapping` and returns a
   :class:`PlantList` (species → status, the common names, whether it is a SAMPLE).

Rows and errors, in field words (:class:`PlantListError`, with the row number as a
spreadsheet shows it, the header being row 1):

- A status must be OBL, FACW, FAC, FACU or UPL (case and spaces ignored). An empty status
  means the species is not rated in that region: the row is skipped (counted in
  :attr:`PlantList.skipped`) and the species counts UPL like any species not listed. Anything
  else ("FAC+", "NI", "FACW-" of the 1988 list) is an error naming the row and the species.
- A species listed twice with the same status is kept once; with different statuses it is an
  error naming both rows.
- A row without a scientific name is skipped (a blank line at the end of an Excel file).

Encodings: UTF-8 with or without the byte-order mark (Excel's "CSV UTF-8"), and cp1252, what
Windows Excel writes for plain "CSV (Comma delimited)" (``×`` of hybrids, ``ë`` of names).
A comma, semicolon or tab delimiter is recognised from the header line.

Leading lines starting with ``#`` are the file's notes; if one of them says ``SAMPLE`` the list
is a sample (:attr:`PlantList.sample`), and the app says so wherever it is used. The demo's
:data:`SAMPLE_PATH` is one.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fieldapp.rules.wetland_regions import STATUSES

__all__ = ["SAMPLE_PATH", "ColumnMapping", "PlantList", "PlantListError", "guess_mapping", "load_plant_list",
           "read_header"]

#: The demo's sample list (statuses as printed on filed data forms; not the NWPL itself).
SAMPLE_PATH = Path(__file__).resolve().parents[1] / "data" / "wetland-plants-SAMPLE.csv"

#: The NWPL export's region column per contract region.
REGION_COLUMNS = {"northcentral-northeast": ("NCNE", "NORTHCENTRAL", "NORTHEAST"), "midwest": ("MW", "MIDWEST")}


class PlantListError(ValueError):
    """A plant list that cannot be loaded; the message names the file, row and species."""


@dataclass(frozen=True)
class ColumnMapping:
    """Which column holds what (header names as the file has them); ``common`` may be None."""

    scientific: str
    status: str
    common: str | None = None


@dataclass(frozen=True)
class PlantList:
    """A loaded plant list: ``statuses`` is the contract's ``indicators`` (species → status)."""

    statuses: Mapping[str, str]
    common_names: Mapping[str, str]
    source: str
    status_column: str
    encoding: str
    sample: bool = False
    notes: tuple[str, ...] = ()
    #: rows skipped for an empty status (species not rated in the region)
    skipped: int = 0
    warnings: tuple[str, ...] = field(default=())

    def search(self, text: str, limit: int = 20) -> list[str]:
        """Scientific names whose scientific or common name contains ``text`` (case ignored),
        names starting with it first; for the species picker."""
        t = text.strip().casefold()
        if not t:
            return []
        hits = [s for s in self.statuses
                if t in s.casefold() or t in self.common_names.get(s, "").casefold()]
        hits.sort(key=lambda s: (not (s.casefold().startswith(t)
                                      or self.common_names.get(s, "").casefold().startswith(t)), s))
        return hits[:limit]


def _decode(raw: bytes, source: str) -> tuple[str, str]:
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("cp1252"), "cp1252"
    except UnicodeDecodeError as err:
        raise PlantListError(f"{source}: neither UTF-8 nor Windows (cp1252) text (byte 0x{raw[err.start]:02x}"
                             f" at position {err.start}): save it from Excel as 'CSV UTF-8'") from None


def _split(text: str) -> tuple[list[str], list[str], int]:
    """(notes, data lines, number of the first data line, 1-based)."""
    lines = text.splitlines()
    notes = []
    i = 0
    while i < len(lines) and (lines[i].lstrip().startswith("#") or not lines[i].strip()):
        if lines[i].strip():
            notes.append(lines[i].strip().lstrip("#").strip())
        i += 1
    return notes, lines[i:], i + 1


def _rows(data_lines: list[str]) -> list[list[str]]:
    if not data_lines:
        return []
    head = data_lines[0]
    delimiter = max((",", ";", "\t"), key=head.count)
    return list(csv.reader(io.StringIO("\n".join(data_lines)), delimiter=delimiter))


def _read(path: str | Path) -> tuple[str, str]:
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise PlantListError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise PlantListError(f"{source}: it is a folder, not a file") from None
    except OSError as err:
        raise PlantListError(f"{source}: cannot read it: {err.strerror or err}") from None
    return _decode(raw, source)


def read_header(path: str | Path) -> list[str]:
    """The column names of the plant list at ``path`` (for the dialog that asks which is which).

    Raises
    ------
    PlantListError
        The file cannot be read, is not text, or has no header line.
    """
    text, _ = _read(path)
    _, lines, _ = _split(text)
    rows = _rows(lines)
    if not rows or not any(c.strip() for c in rows[0]):
        raise PlantListError(f"{path}: no header line (the first line must name the columns)")
    return [c.strip() for c in rows[0]]


def guess_mapping(header: Sequence[str], region: str | None = None) -> ColumnMapping | None:
    """A first guess of the columns: "scientific" for the name, "common" for the common name,
    the region's NWPL column (``NCNE``/``MW``) or a column saying "status"/"indicator" for the
    status. None when no name or status column is recognisable (the dialog asks).

    >>> guess_mapping(["Scientific Name", "Authorship", "Common Name", "MW", "NCNE"], "midwest")
    ColumnMapping(scientific='Scientific Name', status='MW', common='Common Name')
    """
    def find(pred: Callable[[str], bool]) -> str | None:
        for h in header:
            if pred(h.strip().casefold()):
                return h
        return None

    scientific = find(lambda h: "scientific" in h) or find(lambda h: h in ("species", "name", "taxon"))
    common = find(lambda h: "common" in h)
    status = None
    if region in REGION_COLUMNS:
        wanted = [w.casefold() for w in REGION_COLUMNS[region]]
        status = find(lambda h: h in wanted)
    status = status or find(lambda h: "status" in h or "indicator" in h)
    if scientific is None or status is None:
        return None
    return ColumnMapping(scientific=scientific, status=status, common=common)


def load_plant_list(path: str | Path, mapping: ColumnMapping) -> PlantList:
    """Load the plant list at ``path`` with the columns of ``mapping`` (see the module docstring).

    Raises
    ------
    PlantListError
        The file cannot be read; a mapped column is not in the header; a status other than
        OBL/FACW/FAC/FACU/UPL; one species with two different statuses; no species at all.
    """
    source = str(path)
    name = Path(path).name
    text, encoding = _read(path)
    notes, lines, first = _split(text)
    rows = _rows(lines)
    if not rows:
        raise PlantListError(f"{name}: no header line (the first line must name the columns)")
    header = [c.strip() for c in rows[0]]
    index = {}
    for what, col in (("scientific name", mapping.scientific), ("indicator status", mapping.status),
                      ("common name", mapping.common)):
        if col is None:
            continue
        if col not in header:
            raise PlantListError(f"{name}: no column {col!r} for the {what}; the columns are {', '.join(header)}")
        index[what] = header.index(col)
    statuses: dict[str, str] = {}
    commons: dict[str, str] = {}
    where: dict[str, int] = {}
    skipped = 0

    def cell(row: list[str], what: str) -> str:
        i = index.get(what)
        return row[i].strip() if i is not None and i < len(row) else ""

    for n, row in enumerate(rows[1:], start=first + 1):
        species = " ".join(cell(row, "scientific name").split())
        if not species:
            continue
        raw_status = cell(row, "indicator status")
        if not raw_status:
            skipped += 1
            continue
        status = raw_status.replace(" ", "").upper()
        if status not in STATUSES:
            raise PlantListError(f"{name} row {n}: status {raw_status!r} of {species} is not one of"
                                 f" {', '.join(STATUSES)} (in column {mapping.status!r})")
        if species in statuses and statuses[species] != status:
            raise PlantListError(f"{name}: {species} is listed twice with different statuses:"
                                 f" {statuses[species]} in row {where[species]}, {status} in row {n}")
        statuses.setdefault(species, status)
        where.setdefault(species, n)
        common = cell(row, "common name")
        if common and species not in commons:
            commons[species] = common
    if not statuses:
        raise PlantListError(f"{name}: no species with a status in column {mapping.status!r}")
    sample = any("SAMPLE" in note.upper() for note in notes)
    return PlantList(statuses=statuses, common_names=commons, source=source, status_column=mapping.status,
                     encoding=encoding, sample=sample, notes=tuple(notes), skipped=skipped)
