"""A conflict record in the crew's words: its field (``HDOP``, ``DBH (in)``), and each side's
value (a tag clash's other tree, a deleted feature, a whole feature by what names it: a note by
its text, a tree by its tag). Used by ``fieldapp sync --conflicts``, the sync and adopt
summaries and the report's Sync conflicts table.

>>> field_words("hdop"), field_words("dbh_in"), field_words("sats_used"), field_words(None)
('HDOP', 'DBH (in)', 'Sats used', 'whole feature')
>>> feature_summary({"fid": 3, "uuid": "a1", "text": "Beaver dam across the outlet", "geom": {"wkt": "POINT (1 2)"}})
"Text 'Beaver dam across the outlet'"
"""

from __future__ import annotations

import json

from fieldapp.sync.conflicts import Conflict, ConflictKind

#: Words kept in capitals in a field's name (the rest is sentence case).
ACRONYMS = {"hdop": "HDOP", "vdop": "VDOP", "pdop": "PDOP", "dbh": "DBH", "ohwm": "OHWM", "rtk": "RTK",
            "gnss": "GNSS", "utc": "UTC", "uuid": "UUID", "crs": "CRS", "id": "ID", "ntrip": "NTRIP"}
#: Field-name endings -> unit words.
UNITS = (("_in", "in"), ("_ft", "ft"), ("_sqft", "sq ft"), ("_ac", "ac"), ("_pct", "%"), ("_deg", "°"),
         ("_m", "m"), ("_s", "s"))
#: The columns that name a whole feature, in the order they are told.
NAMING = ("tag", "label", "name", "text", "species_code", "dbh_in", "kind")


def name_words(name: str) -> str:
    """``sats_used`` -> ``Sats used``, ``hdop`` -> ``HDOP``, ``ohwm_line`` -> ``OHWM line``."""
    words = [ACRONYMS.get(w.lower(), w) for w in name.split("_") if w]
    if words and words[0] not in ACRONYMS.values():
        words[0] = words[0].capitalize()
    return " ".join(words)


def field_words(name: str | None) -> str:
    """A conflict's field in words with its unit: ``dbh_in`` -> ``DBH (in)``, ``geom`` ->
    ``Geometry (position)``; ``None`` (a delete conflict) -> ``whole feature``."""
    if not name:
        return "whole feature"
    if name == "geom":
        return "Geometry (position)"
    for end, unit in UNITS:
        if name.endswith(end) and len(name) > len(end):
            return f"{name_words(name[: -len(end)])} ({unit})"
    return name_words(name)


def _value(v: object, width: int | None) -> str:
    if isinstance(v, dict) and "wkt" in v:
        text = str(v["wkt"])
    elif isinstance(v, dict) and "blob_base64" in v:
        text = "(binary)"
    elif isinstance(v, str):
        text = repr(v)
    else:
        text = json.dumps(v, default=str)
    return text if width is None or len(text) <= width else text[: width - 3] + "..."


def feature_summary(row: dict[str, object], width: int | None = None) -> str:
    """A whole feature (a delete conflict's side) by the columns that name it (:data:`NAMING`,
    a note's text in full unless ``width``), else by its position."""
    told = [f"{field_words(k)} {_value(row[k], width)}" for k in NAMING if row.get(k) not in (None, "")]
    if not told:
        geom = row.get("geom")
        told = [f"at {_value(geom, width)}"] if isinstance(geom, dict) else ["(no name)"]
    return ", ".join(told)


def side_words(c: Conflict, side: str, width: int | None = 60, *, uuid_chars: int | None = None) -> str:
    """One side of ``c`` (``"base"``, ``"theirs"`` or ``"ours"``) in words: a tag clash's office
    side as ``tag 1 is also on tree <uuid>`` (its first ``uuid_chars`` characters and "…" when
    given: a table cell), a deleted side as ``deleted``, a whole feature by
    :func:`feature_summary`, a value as it is (text quoted, a geometry as WKT), ``–`` for none."""
    v = getattr(c, side)
    if c.kind is ConflictKind.TAG_CLASH:
        if side == "theirs" and isinstance(v, dict):
            other = str(v.get("uuid"))
            if uuid_chars is not None and len(other) > uuid_chars:
                other = other[:uuid_chars] + "…"
            return f"tag {v.get('tag')} is also on tree {other}"
        return "–" if v is None else f"tag {v}"
    if c.kind is not ConflictKind.SAME_FIELD:
        if v is None:
            return "deleted" if side != "base" else "–"
        return feature_summary(v, width) if isinstance(v, dict) else _value(v, width)
    return "–" if v is None else _value(v, width)


def kept_words(c: Conflict) -> str:
    """Which side was kept: ``the office's``, ``this laptop's``, ``the delete``, ``both trees``."""
    return {"theirs": "the office's", "ours": "this laptop's", "delete": "the delete",
            "both": "both trees"}.get(c.kept, c.kept)


def conflict_line(c: Conflict, width: int | None = 60) -> str:
    """``Tag: office tag 1 is also on tree <uuid>; this laptop tag 1; kept both trees`` (the
    before-both-edits side only when there is one)."""
    parts = [f"{field_words(c.field)}:"]
    if c.base is not None:
        parts.append(f"before {side_words(c, 'base', width)};")
    parts.append(f"office {side_words(c, 'theirs', width)}; this laptop {side_words(c, 'ours', width)};"
                 f" kept {kept_words(c)}")
    return " ".join(parts)
