"""Electronic tree calipers: Haglöf Digitech over Bluetooth SPP, Masser export files, and the
species table that maps caliper species to ours.

Digitech sends, per tree (``../shared/data/devices/device-samples.txt``):

- ``$PHGF,SPC,<n>,<label>,*hh`` species number and free-text label as set up on the caliper,
- ``$PHGF,DIA,M,<mm>,*hh`` diameter in whole millimetres,
- optionally ``$PHGF,LEN,M,<dm>,*hh`` a length in decimetres.

:func:`parse_spc` / :func:`parse_dia` / :func:`parse_len` are pure (one sentence -> one fragment);
:class:`CaliperAssembler` turns fragments into one :class:`~devices.readings.CaliperReading` per
tree. A Masser export (``P`` plot header, ``B`` diameter lines, ``E`` end) is read by
:func:`read_masser`.

Errors: ``ValueError`` for a malformed field or an impossible diameter (named in the message);
:class:`SpeciesTableError` (a ``ValueError``) for a bad species table file.
"""

from __future__ import annotations

import enum
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from devices.instruments.sentence import Sentence
from devices.readings import MM_PER_IN, CaliperReading

MAX_DIAMETER_MM = 5000
"""Largest diameter accepted (5 m); anything above is refused as impossible."""


class LeafHabit(enum.Enum):
    """Leaf habit of a species (for canopy rules that count deciduous vs evergreen cover)."""

    DECIDUOUS = "deciduous"
    EVERGREEN = "evergreen"


@dataclass(frozen=True, slots=True)
class Species:
    """One row of a :class:`SpeciesTable`."""

    code: str
    common_name: str
    leaf_habit: LeafHabit
    caliper_number: int | None = None
    caliper_label: str | None = None


class SpeciesTableError(ValueError):
    """A species table file that cannot be used (message names the file and the entry)."""


class SpeciesTable:
    """Maps a caliper's species number (or label) to our species code, name and leaf habit.

    Lookup is by number first, then by label (case-insensitive, surrounding blanks ignored).

    JSON form::

        {"species": [{"caliper": 1, "label": "1 Fi SB", "code": "PIAB",
                      "common_name": "Norway spruce", "leaf_habit": "evergreen"}, ...]}

    Examples
    --------
    >>> t = SpeciesTable([Species("ACSA3", "sugar maple", LeafHabit.DECIDUOUS, 3, "SM")])
    >>> t.lookup(3, "").code, t.lookup(None, " sm ").common_name
    ('ACSA3', 'sugar maple')
    >>> t.lookup(9, "??") is None
    True
    """

    def __init__(self, species: Iterable[Species] = ()) -> None:
        self.species = tuple(species)
        self._by_number: dict[int, Species] = {}
        self._by_label: dict[str, Species] = {}
        for sp in self.species:
            if sp.caliper_number is not None:
                if sp.caliper_number in self._by_number:
                    raise SpeciesTableError(f"caliper species {sp.caliper_number} listed twice")
                self._by_number[sp.caliper_number] = sp
            if sp.caliper_label:
                self._by_label[sp.caliper_label.strip().casefold()] = sp

    def lookup(self, number: int | None, label: str | None) -> Species | None:
        """The row for caliper species ``number`` / ``label``, or ``None`` when unmapped."""
        if number is not None and number in self._by_number:
            return self._by_number[number]
        if label:
            return self._by_label.get(label.strip().casefold())
        return None

    def apply(self, reading: CaliperReading) -> CaliperReading:
        """``reading`` with species code, common name and leaf habit filled from this table."""
        sp = self.lookup(reading.species_number, reading.species_label)
        if sp is None:
            return reading
        return replace(
            reading,
            species_code=sp.code,
            common_name=sp.common_name,
            leaf_habit=sp.leaf_habit.value,
        )

    @classmethod
    def from_dict(cls, data: Any, source: str = "<dict>") -> SpeciesTable:
        """Build from the JSON structure above. Raises :class:`SpeciesTableError`."""
        rows = data.get("species") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            raise SpeciesTableError(f"{source}: expected an object with a 'species' list")
        out = []
        for i, row in enumerate(rows):
            try:
                number = row.get("caliper")
                out.append(
                    Species(
                        code=str(row["code"]),
                        common_name=str(row.get("common_name", row["code"])),
                        leaf_habit=LeafHabit(row["leaf_habit"]),
                        caliper_number=None if number is None else int(number),
                        caliper_label=row.get("label"),
                    )
                )
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise SpeciesTableError(f"{source}: species entry {i}: {exc}") from exc
        return cls(out)

    @classmethod
    def load(cls, path: str | Path) -> SpeciesTable:
        """Load a JSON species table file. Raises :class:`SpeciesTableError` (or ``OSError``)."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise SpeciesTableError(f"{path}: not JSON: {exc}") from exc
        return cls.from_dict(data, str(path))

    def to_dict(self) -> dict[str, Any]:
        """The JSON structure (inverse of :meth:`from_dict`)."""
        return {
            "species": [
                {
                    "caliper": sp.caliper_number,
                    "label": sp.caliper_label,
                    "code": sp.code,
                    "common_name": sp.common_name,
                    "leaf_habit": sp.leaf_habit.value,
                }
                for sp in self.species
            ]
        }


# --- Digitech sentence fragments ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CaliperSpecies:
    """``$PHGF,SPC,<n>,<label>``: species selected on the caliper."""

    species_number: int | None
    species_label: str
    raw: bytes = b""
    t_monotonic_s: float = 0.0


@dataclass(frozen=True, slots=True)
class CaliperDiameter:
    """``$PHGF,DIA,M,<mm>``: a diameter in whole millimetres."""

    diameter_mm: int
    raw: bytes = b""
    t_monotonic_s: float = 0.0


@dataclass(frozen=True, slots=True)
class CaliperLength:
    """``$PHGF,LEN,M,<dm>``: a length in decimetres."""

    length_dm: float
    raw: bytes = b""
    t_monotonic_s: float = 0.0


CaliperFragment = CaliperSpecies | CaliperDiameter | CaliperLength


def parse_spc(s: Sentence, raw: bytes, t: float) -> CaliperSpecies:
    """``$PHGF,SPC,<n>,<label>,``. Raises ``ValueError`` for a non-integer species number."""
    f = list(s.fields) + ["", ""]
    text = f[1].strip()
    try:
        number = int(text) if text else None
    except ValueError as exc:
        raise ValueError(f"caliper species number {text!r} is not an integer") from exc
    return CaliperSpecies(number, f[2].strip(), raw, t)


def parse_dia(s: Sentence, raw: bytes, t: float) -> CaliperDiameter:
    """``$PHGF,DIA,M,<mm>,``. Raises ``ValueError`` for another unit or an impossible value."""
    f = list(s.fields) + ["", ""]
    if f[1].strip().upper() != "M":
        raise ValueError(f"caliper diameter unit {f[1]!r} is not M (millimetres)")
    try:
        mm = int(f[2].strip())
    except ValueError as exc:
        raise ValueError(f"caliper diameter {f[2]!r} is not whole millimetres") from exc
    if not 0 < mm <= MAX_DIAMETER_MM:
        raise ValueError(f"caliper diameter {mm} mm is outside 1..{MAX_DIAMETER_MM}")
    return CaliperDiameter(mm, raw, t)


def parse_len(s: Sentence, raw: bytes, t: float) -> CaliperLength:
    """``$PHGF,LEN,M,<dm>,``. Raises ``ValueError`` for another unit or a non-number."""
    f = list(s.fields) + ["", ""]
    if f[1].strip().upper() != "M":
        raise ValueError(f"caliper length unit {f[1]!r} is not M")
    try:
        dm = float(f[2].strip())
    except ValueError as exc:
        raise ValueError(f"caliper length {f[2]!r} is not a number") from exc
    if dm < 0:
        raise ValueError(f"caliper length {dm} dm is negative")
    return CaliperLength(dm, raw, t)


def reading_from_mm(
    diameter_mm: float,
    species_number: int | None,
    species_label: str,
    *,
    protocol: str = "digitech",
    raw: bytes = b"",
    t_monotonic_s: float = 0.0,
    length_dm: float | None = None,
    species: SpeciesTable | None = None,
) -> CaliperReading:
    """A :class:`CaliperReading` from a diameter in millimetres (1 in = 25.4 mm).

    >>> reading_from_mm(254, 1, "x").dbh_in
    10.0
    """
    reading = CaliperReading(
        dbh_in=diameter_mm / MM_PER_IN,
        dbh_cm=diameter_mm / 10.0,
        species_number=species_number,
        species_label=species_label,
        length_dm=length_dm,
        protocol=protocol,
        raw=raw,
        t_monotonic_s=t_monotonic_s,
    )
    return species.apply(reading) if species is not None else reading


class CaliperAssembler:
    """Turns Digitech fragments into one :class:`CaliperReading` per tree.

    The species stays selected until the next ``SPC`` (the caliper sends it with every tree,
    but a crew may tally several trees of one species). With ``sends_length=False`` (default)
    a tree is complete at its ``DIA``; with ``sends_length=True`` it waits for the ``LEN`` that
    follows, and a tree whose ``LEN`` never came is released by the next ``SPC``/``DIA`` or by
    :meth:`flush`. Stray fragments (a ``DIA`` before any ``SPC`` is still accepted with no
    species; a ``LEN`` with no tree waiting) are counted in :attr:`counts`.
    """

    def __init__(self, species: SpeciesTable | None = None, *, sends_length: bool = False):
        self.species = species
        self.sends_length = sends_length
        self.counts: Counter[str] = Counter()
        self._species: CaliperSpecies | None = None
        self._pending: CaliperReading | None = None

    def feed(self, fragment: CaliperFragment) -> list[CaliperReading]:
        """Take one fragment; return the trees it completes (0 or 1, 2 on a missed LEN)."""
        out: list[CaliperReading] = []
        if isinstance(fragment, CaliperLength):
            if self._pending is None:
                self.counts["length_without_tree"] += 1
                return out
            out.append(replace(self._pending, length_dm=fragment.length_dm,
                               raw=self._pending.raw + b"\n" + fragment.raw))
            self._pending = None
            self.counts["trees"] += 1
            return out
        out.extend(self.flush())
        if isinstance(fragment, CaliperSpecies):
            self._species = fragment
            return out
        sp = self._species
        if sp is None:
            self.counts["diameter_without_species"] += 1
        raw = (sp.raw + b"\n" if sp is not None else b"") + fragment.raw
        tree = reading_from_mm(
            fragment.diameter_mm,
            sp.species_number if sp else None,
            sp.species_label if sp else "",
            raw=raw,
            t_monotonic_s=fragment.t_monotonic_s,
            species=self.species,
        )
        if self.sends_length:
            self._pending = tree
        else:
            self.counts["trees"] += 1
            out.append(tree)
        return out

    @property
    def waiting(self) -> bool:
        """True while a tree waits for its ``$PHGF,LEN`` (see :meth:`flush`)."""
        return self._pending is not None

    def flush(self) -> list[CaliperReading]:
        """Release a tree still waiting for its length."""
        if self._pending is None:
            return []
        tree, self._pending = self._pending, None
        self.counts["trees"] += 1
        self.counts["length_missing"] += 1
        return [tree]


def read_digitech_capture(
    data: bytes, species: SpeciesTable | None = None, *, sends_length: bool = False
) -> tuple[list[CaliperReading], Counter[str]]:
    """Trees from a raw Digitech byte capture (any framing, junk allowed).

    The bytes are scanned for complete checksummed sentences
    (:class:`devices.instruments.SentenceScanner`), each parsed, and the fragments assembled.

    Returns
    -------
    trees : list of CaliperReading
    counts : Counter
        ``trees``, parser outcomes (``rejected_*``) and ``discarded_bytes`` of junk.
    """
    from devices.instruments.parser import InstrumentParser
    from devices.instruments.scanner import SentenceScanner

    scanner = SentenceScanner()
    parser = InstrumentParser()
    assembler = CaliperAssembler(species, sends_length=sends_length)
    trees: list[CaliperReading] = []
    for sentence in scanner.feed(data) + scanner.flush():
        fragment = parser.parse(sentence)
        if isinstance(fragment, CaliperSpecies | CaliperDiameter | CaliperLength):
            trees.extend(assembler.feed(fragment))
        elif fragment is not None:
            parser.counts["not_caliper"] += 1
    trees.extend(assembler.flush())
    counts = Counter(parser.counts) + assembler.counts
    counts["discarded_bytes"] = scanner.dropped_bytes
    counts["discarded_fragments"] = scanner.dropped_frames
    return trees, counts


# --- Masser export ----------------------------------------------------------------------------

MASSER_DEFAULT_SPECIES = SpeciesTable(
    Species(code, name, habit, i + 1)
    for i, (code, name, habit) in enumerate(
        [
            ("PIAB", "Norway spruce", LeafHabit.EVERGREEN),
            ("ABAL", "silver fir", LeafHabit.EVERGREEN),
            ("PSME", "Douglas-fir", LeafHabit.EVERGREEN),
            ("SPRUCE-FIR", "spruce/fir", LeafHabit.EVERGREEN),
            ("SPRUCE-FIR-DOUGLAS", "spruce/fir/Douglas-fir", LeafHabit.EVERGREEN),
            ("PISY", "Scots pine", LeafHabit.EVERGREEN),
            ("LADE", "European larch", LeafHabit.DECIDUOUS),
            ("PINE-LARCH", "pine/larch", LeafHabit.EVERGREEN),
            ("PINE-OC", "pine/other conifers", LeafHabit.EVERGREEN),
            ("OC", "other conifers", LeafHabit.EVERGREEN),
            ("FASY", "European beech", LeafHabit.DECIDUOUS),
            ("QUERCUS", "oak", LeafHabit.DECIDUOUS),
            ("BEECH-OB", "beech/other broadleaves", LeafHabit.DECIDUOUS),
            ("OAK-OB", "oak/other broadleaves", LeafHabit.DECIDUOUS),
            ("FREX", "European ash", LeafHabit.DECIDUOUS),
            ("ACER", "maple", LeafHabit.DECIDUOUS),
            ("QURU", "northern red oak", LeafHabit.DECIDUOUS),
            ("POPULUS", "poplar", LeafHabit.DECIDUOUS),
            ("HB", "hardwood broadleaves", LeafHabit.DECIDUOUS),
            ("SB", "softwood broadleaves", LeafHabit.DECIDUOUS),
        ]
    )
)
"""Masser species numbers 1..20 in the order used by the German sample-plot software that the
shared sample comes from (Fichte, Tanne, Douglasie, ..., Hlb, Wlb); configure your own table for
a differently set-up caliper."""


@dataclass(frozen=True, slots=True)
class MasserPlot:
    """One ``P`` ... ``E`` block of a Masser export."""

    header: str
    plot_id: str
    trees: tuple[CaliperReading, ...]
    footer: str | None = None


@dataclass(slots=True)
class MasserImport:
    """Result of :func:`read_masser`: the plots and the lines skipped (with their reasons)."""

    plots: list[MasserPlot] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)
    """(1-based line number, reason) for every line not used."""


def _masser_lines(source: str | Path | bytes | Iterable[str]) -> Iterator[str]:
    if isinstance(source, bytes):
        yield from source.decode("latin-1").splitlines()
    elif isinstance(source, str | Path):
        yield from Path(source).read_text(encoding="latin-1").splitlines()
    else:
        yield from source


def _masser_tree(line: str, table: SpeciesTable) -> CaliperReading | str:
    """One ``B<species 2 digits><diameter mm 3 digits>...`` line: the tree, or why it is skipped.

    Examples
    --------
    >>> _masser_tree("B1124600,208", MASSER_DEFAULT_SPECIES).dbh_cm
    24.6
    >>> _masser_tree("B11000", MASSER_DEFAULT_SPECIES)
    'diameter 0 mm is not positive'
    """
    code = line[1:].split(",", 1)[0]
    if len(code) < 5 or not code[:5].isdigit():
        return f"tree line {line!r} is not B<ss><ddd>"
    mm = int(code[2:5])
    if mm <= 0:
        return f"diameter {mm} mm is not positive"
    return reading_from_mm(mm, int(code[:2]), "", protocol="masser", raw=line.encode("latin-1"), species=table)


def read_masser(
    source: str | Path | bytes | Iterable[str], species: SpeciesTable | None = None
) -> MasserImport:
    """Read a Masser caliper export.

    Layout (as in ``../shared/data/devices/stichprobenauswertung-masser-kluppfall.txt``):
    ``P<4-digit job><4-digit plot>...`` opens a plot; ``B<species 2 digits><diameter mm 3
    digits><2 digits>,<n>`` is one tree (the trailing fields are not used); ``E...`` ends the
    plot. ``H`` (height) lines and anything else are skipped and listed.

    Parameters
    ----------
    source : path, bytes or iterable of lines
    species : SpeciesTable, optional
        Maps the Masser species number; default :data:`MASSER_DEFAULT_SPECIES`.

    Returns
    -------
    MasserImport

    Raises
    ------
    OSError
        The file cannot be read.

    Examples
    --------
    >>> r = read_masser(["P1234000100,097", "B1124600,208", "E1,1"])
    >>> t = r.plots[0].trees[0]
    >>> r.plots[0].plot_id, t.species_number, t.dbh_cm, t.common_name
    ('0001', 11, 24.6, 'European beech')
    """
    table = MASSER_DEFAULT_SPECIES if species is None else species
    result = MasserImport()
    header: str | None = None
    trees: list[CaliperReading] = []

    def close(footer: str | None) -> None:
        nonlocal header, trees
        if header is not None:
            result.plots.append(MasserPlot(header, header[5:9], tuple(trees), footer))
        header, trees = None, []

    for number, raw_line in enumerate(_masser_lines(source), start=1):
        line = raw_line.strip()
        if not line:
            continue
        tag = line[0]
        if tag == "P":
            if header is not None:
                result.skipped.append((number, "plot header before the previous plot's end"))
                close(None)
            header = line
        elif tag == "E":
            if header is None:
                result.skipped.append((number, "end line without plot"))
            close(line)
        elif tag == "B":
            tree = _masser_tree(line, table) if header is not None else "tree line outside a plot"
            if isinstance(tree, str):
                result.skipped.append((number, tree))
            else:
                trees.append(tree)
        else:
            result.skipped.append((number, f"line type {tag!r} not used"))
    if header is not None:
        result.skipped.append((0, "file ended inside a plot"))
        close(None)
    return result
