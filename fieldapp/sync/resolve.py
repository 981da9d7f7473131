"""Resolve a conflict record: apply the chosen value as an ordinary edit of the visit, and mark
the record resolved. Both are rows of the visit, so the next sync sends them like any other edit
and every laptop (and the office) ends with the value and the record marked resolved.

Choices (``fieldapp sync --resolve ID CHOICE``; the Conflicts view's columns "office" and
"laptop" are ``theirs`` and ``ours``):

- ``keep-mine``: the laptop's value of the record (``ours``);
- ``keep-theirs``: the office's value (``theirs``);
- any other text: that value for the field (a number for a numeric field -- DBH in inches,
  slope in percent, as the field holds it -- or WKT for a geometry, in the site CRS).

For an edit-vs-delete record the side that is a feature is restored (a new fid, same uuid) when
chosen; choosing the deleted side keeps the delete.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
import tempfile
from pathlib import Path

from fieldapp.store.paths import StrPath
from fieldapp.sync import gpkgsql
from fieldapp.sync.conflicts import Conflict, ConflictKind, _decode, read_conflicts
from fieldapp.sync.errors import SyncError, VisitRefused
from fieldapp.sync.files import CONFLICTS_TABLE, connect, snapshot_sqlite
from fieldapp.sync.files import quote_identifier as _qi
from fieldapp.sync.officestore import utc_now_iso

CHOICES = ("keep-mine", "keep-theirs")


class ResolutionRefused(SyncError):
    """A resolution the field cannot take (nothing was changed). ``name`` is the field
    (``dbh_in``), ``reason`` why, in the model's words (``-5.0 outside [0.1, 500.0]``,
    ``takes a number``), ``value`` the text that was refused; the app says it in field words
    (:func:`fieldapp.app.editing.resolution_refusal_words`)."""

    def __init__(self, name: str, reason: str, value: str, text: str) -> None:
        super().__init__(text)
        self.name = name
        self.reason = reason
        self.value = value


def find_conflict(visit: Path, conflict_id: str) -> Conflict:
    """The record whose uuid is ``conflict_id`` or starts with it (6 characters at least).

    Raises :class:`SyncError` when none or several match."""
    wanted = conflict_id.strip().lower()
    found = [c for c in read_conflicts(visit) if c.uuid == wanted or (len(wanted) >= 6 and c.uuid.startswith(wanted))]
    if len(found) != 1:
        raise SyncError(f"{visit.name} has {'no' if not found else len(found)} conflict record(s) with id"
                        f" {conflict_id!r}; see `fieldapp sync --office ... --conflicts {visit.name}`")
    return found[0]


def _typed(conn: sqlite3.Connection, layer: str, field: str, text: str) -> object:
    """``text`` as the field's value: a number for a numeric column, a GeoPackage blob for a
    geometry (WKT in the site CRS), else the text. Raises :class:`SyncError` in words."""
    import shapely

    geom = conn.execute("SELECT srs_id FROM gpkg_geometry_columns WHERE table_name = ? AND column_name = ?",
                        (layer, field)).fetchone()
    if geom is not None:
        from fieldapp.store.schema import gpkg_blob

        try:
            return gpkg_blob(shapely.from_wkt(text), geom[0])
        except shapely.errors.ShapelyError as exc:
            raise ResolutionRefused(
                field, "takes a geometry in WKT", text,
                f"{text!r} is not a geometry in WKT (e.g. 'POINT (500100 4800100)'): {exc}") from exc
    kind = {r[1]: str(r[2]).upper() for r in conn.execute(f"PRAGMA table_info({_qi(layer)})")}.get(field, "")
    try:
        if kind in ("REAL", "DOUBLE", "FLOAT"):
            value = float(text)
            if not math.isfinite(value):    # "nan" / "inf" parse, and no reading is either
                raise ValueError(text)
            return value
        if kind.startswith("INT") or kind in ("MEDIUMINT", "SMALLINT", "TINYINT"):
            return int(text)
    except ValueError:
        raise ResolutionRefused(field, "takes a number", text,
                                f"{field} of {layer} takes a number, not {text!r}") from None
    return text


def _check_free_tag(conn: sqlite3.Connection, c: Conflict, tag: object) -> None:
    """Refuse re-tagging the conflict's tree with ``tag`` when another tree of the site has it:
    the tree the clash names (``theirs``), or any other tree in this visit. Tags are nailed on
    the trees, so two trees with one tag is the clash itself, not its resolution.

    Raises :class:`SyncError` in field words (nothing was changed)."""
    other = c.theirs if isinstance(c.theirs, dict) else {}
    holder = other.get("uuid") if other.get("tag") == tag and other.get("uuid") != c.feature_uuid else None
    if holder is None:
        found = conn.execute(f"SELECT uuid FROM {_qi(c.layer)} WHERE tag = ? AND uuid IS NOT ? ORDER BY fid LIMIT 1",
                             (tag, c.feature_uuid)).fetchone()
        holder = found[0] if found else None
    if holder is not None:
        raise SyncError(f"tag {tag} is tree {holder}'s too; give a tag no other tree of this site has"
                        f" (e.g. --resolve {c.uuid[:8]} NEW_TAG). Nothing was changed")


def _apply(path: Path, c: Conflict, choice: str) -> str:
    """Write the resolution into ``path`` (one transaction); return its words."""
    now = utc_now_iso()
    with contextlib.closing(connect(path)) as conn:
        gpkgsql.register(conn)
        with conn:
            if c.kind is ConflictKind.TAG_CLASH:
                if choice in CHOICES:  # both trees keep their tags (the crew checked them)
                    words = f"{choice}: tags left as they are"
                else:
                    value = _typed(conn, c.layer, "tag", choice)
                    _check_free_tag(conn, c, value)
                    conn.execute(f"UPDATE {_qi(c.layer)} SET tag = ? WHERE uuid = ?", (value, c.feature_uuid))
                    words = f"re-tagged: tag = {value}"
            elif c.kind is ConflictKind.SAME_FIELD:
                assert c.field is not None      # a same-field conflict names its field
                if choice in CHOICES:
                    value = _decode(c.ours if choice == "keep-mine" else c.theirs)
                else:
                    value = _typed(conn, c.layer, c.field, choice)
                stamp = ", modified_utc = ?" if c.field != "modified_utc" and "modified_utc" in {
                    r[1] for r in conn.execute(f"PRAGMA table_info({_qi(c.layer)})")} else ""
                done = conn.execute(f"UPDATE {_qi(c.layer)} SET {_qi(c.field)} = ?{stamp} WHERE uuid = ?",
                                    (value, *([now] if stamp else []), c.feature_uuid)).rowcount
                if done != 1:
                    raise SyncError(f"the {c.layer} {c.feature_uuid} of this conflict is no longer in the visit;"
                                    " nothing was changed")
                words = f"{choice}: {c.field} = {value if not isinstance(value, bytes) else 'geometry'}"
            else:
                if choice not in CHOICES:
                    raise SyncError("a delete conflict is resolved with keep-mine or keep-theirs, not a value")
                row = c.ours if choice == "keep-mine" else c.theirs
                if row is None:
                    words = f"{choice}: the delete stands"
                elif not isinstance(row, dict):     # pragma: no cover - a side is stored as a JSON object
                    raise SyncError(f"the {choice} side of conflict {c.uuid[:8]} is not a record; nothing was changed")
                else:
                    restored = {str(k): _decode(v) for k, v in row.items() if k != "fid"}
                    cols = ", ".join(_qi(k) for k in restored)
                    conn.execute(f"INSERT INTO {_qi(c.layer)} ({cols}) VALUES ({', '.join('?' * len(restored))})",
                                 list(restored.values()))
                    words = f"{choice}: the {c.layer} is restored"
            conn.execute(f"UPDATE {CONFLICTS_TABLE} SET resolved_utc = ?, resolution = ? WHERE uuid = ?",
                         (now, words, c.uuid))
    return words


def resolve_conflict(visit_path: StrPath, conflict_id: str, choice: str) -> tuple[Conflict, str]:
    """Resolve conflict ``conflict_id`` of the visit with ``choice`` (module docstring); return
    the record and the resolution's words. The edit is tried on a copy first and read through
    the store (the visit check of a sync), so a value the app would refuse is refused here and
    the visit is left as it was.

    Raises :class:`SyncError` (unknown id, already resolved, the feature gone, a value the field
    cannot take, a new tag that another tree of the site in the visit already has) and
    :class:`~fieldapp.sync.errors.VisitRefused` for a value the store refuses.
    """
    from fieldapp.sync import engine

    visit = Path(visit_path)
    with engine.visit_held(visit.absolute(), "changed"):
        return _resolve(visit, conflict_id, choice)


def _resolve(visit: Path, conflict_id: str, choice: str) -> tuple[Conflict, str]:
    from fieldapp.sync import engine

    c = find_conflict(visit, conflict_id)
    if c.resolved_utc:
        raise SyncError(f"conflict {c.uuid[:8]} was already resolved on {c.resolved_utc} ({c.resolution})")
    with tempfile.TemporaryDirectory(prefix="fieldapp-resolve-") as tmp:
        trial = Path(tmp) / visit.name
        snapshot_sqlite(visit, trial)
        _apply(trial, c, choice)
        try:
            engine.check_visit_file(trial)  # looked up at call time (the generic-visit tests narrow it)
        except VisitRefused as exc:
            raise _refused_by_store(c, choice, exc) from exc
    return c, _apply(visit, c, choice)


def _refused_by_store(c: Conflict, choice: str, exc: VisitRefused) -> SyncError:
    """The store's refusal of the trial copy as the resolution's refusal: the problem of the
    conflict's feature (its column and why) when the store named one, else the refusal as it is."""
    field = "tag" if c.kind is ConflictKind.TAG_CLASH else c.field
    for p in getattr(exc.__cause__, "problems", None) or []:
        if p.uuid == c.feature_uuid and p.table == c.layer:
            reason = p.message.split(": ", 1)[1] if p.message.startswith(f"{p.column}: ") else p.message
            return ResolutionRefused(p.column or field or "", reason, choice,
                                     f"{choice!r} cannot be kept for {p.column} of {c.layer} {c.feature_uuid}:"
                                     f" {reason}; the visit was not changed")
    return SyncError(f"the resolution {choice!r} was refused ({exc}); the visit was not changed")
