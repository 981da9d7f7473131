"""The visit check: what the sync refuses in a visit before it touches it, and how it reads what
arrives from the office through the store before the visit gets it.

:func:`check_visit_file` is the gate at the start of every sync (basics, the store's own check,
a full read through the store that is skipped when the file's SHA-256 passed it before);
:func:`check_received` reads a scratch copy of what the visit is about to become. Why a content
hash and why the whole copy is read: ``docs/sync.md``.

The sync looks both up in :mod:`fieldapp.sync.engine` when it runs (the engine's tests on
generic GeoPackages narrow them there).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Sequence
from pathlib import Path

from fieldapp.store.errors import RecordProblem
from fieldapp.store.paths import can_write_file, can_write_folder
from fieldapp.sync.errors import VisitRefused
from fieldapp.sync.files import check_geopackage, connect, sha256_of
from fieldapp.sync.files import quote_identifier as _qi

MAX_VISIT_BYTES = 16 * 1024 * 1024 * 1024

#: Bump when :func:`check_visit_file` checks more: older records then no longer count.
VISIT_CHECK_VERSION = 1


def check_visit_basics(visit: Path) -> None:
    """Refuse a visit the sync cannot safely touch: not a regular GeoPackage file, damaged, or
    read-only (the file's write permission bits are all off, or this user may not write it or
    its folder, where ``VISIT.gpkg.sync/`` is kept). Writing is tried for real too
    (:func:`fieldapp.store.paths.can_write_file` / ``can_write_folder``: the file opened for
    append, a temporary file made and removed in the folder; nothing changed): ``os.access``
    does not see Windows' access lists.

    Raises
    ------
    VisitRefused
        naming the visit and the problem; nothing has been written.
    """
    visit = Path(visit)
    check_geopackage(visit, what="visit", max_bytes=MAX_VISIT_BYTES, error=VisitRefused)
    mode = visit.stat().st_mode
    if (not os.access(visit, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
            or not can_write_file(visit)):
        raise VisitRefused(
            f"visit {visit} is read-only: a sync writes what the office sends into it. Nothing was"
            " synced; make the file writable and sync again"
        )
    if not os.access(visit.parent, os.W_OK | os.X_OK) or not can_write_folder(visit.parent):
        raise VisitRefused(
            f"the folder of visit {visit} is read-only: a sync keeps its state beside the visit,"
            f" in {visit.name}.sync/. Nothing was synced; move the visit to a writable folder"
        )


def _bad_value(conn: sqlite3.Connection) -> str | None:
    """Name the first stored value of the wrong type (text in a number column ...), if any.

    Uses the store's column list (:func:`fieldapp.store.schema.columns`); only for messages.
    """
    from fieldapp.store import schema as store_schema
    from fieldapp.survey.features import Layer

    allowed = {"REAL": ("real", "integer"), "INTEGER": ("integer",), "BOOLEAN": ("integer",)}
    for layer in Layer:
        for col in store_schema.columns(layer):
            ok = allowed.get(col.sql)
            if ok is None:
                continue
            with contextlib.suppress(sqlite3.Error):
                row = conn.execute(
                    f"SELECT uuid, {_qi(col.name)}, typeof({_qi(col.name)}) FROM {_qi(layer.value)}"
                    f" WHERE typeof({_qi(col.name)}) NOT IN ('null', {', '.join('?' * len(ok))})"
                    " LIMIT 1", ok,
                ).fetchone()
                if row is not None:
                    return (f"{layer.value} {row[0]}: {col.name} is {row[1]!r} ({row[2]}), not a"
                            f" {col.sql.lower()} value")
    return None


def _checker_version() -> str:
    """Which check a ``validated.json`` record vouches for: fieldapp, store schema, check."""
    import fieldapp
    from fieldapp.store import SCHEMA_VERSION

    return f"fieldapp {fieldapp.__version__}; schema {SCHEMA_VERSION}; check {VISIT_CHECK_VERSION}"


def visit_fingerprint(visit: Path) -> str | None:
    """SHA-256 of the visit file's bytes, when they hold its whole content.

    ``None`` when a non-empty ``VISIT.gpkg-wal`` is beside it (committed records not yet in the
    ``.gpkg``: the app is recording into it, or crashed), before or after hashing.
    """
    visit = Path(visit)
    wal = visit.with_name(visit.name + "-wal")

    def wal_has_records() -> bool:
        try:
            return wal.stat().st_size > 0
        except FileNotFoundError:
            return False

    if wal_has_records():
        return None
    digest = sha256_of(visit)
    return None if wal_has_records() else digest


def check_visit_file(visit: Path, *, known_sha256: str | None = None) -> str | None:
    """Everything the sync checks about a visit before it touches it (or the office).

    1. :func:`check_visit_basics` (a sound, writable GeoPackage in a writable folder);
    2. the store's own check, :func:`fieldapp.store.inspect` (a fieldapp visit, known schema
       version, every table present; SQLite's ``quick_check`` is step 1's, not run again here
       nor by the full read: it reads every page, 0.1 s each time for a day's visit, and the
       file's hash before and after the read says whether it changed meanwhile): what the
       report and the exports refuse, the sync refuses too; then the schema itself (:func:`fieldapp.sync.schemacheck.
       check_schema`): no trigger, view, index, table or column that fieldapp does not make
       (nor this laptop's base copy of the office master holds), every time;
    3. a full read through the store: ``open_visit(visit, readonly=True)`` loads every feature
       into the model (checking each row with the model's rules) without writing to the file,
       so a value the store cannot read (``dbh_in`` = ``'abc'``) is refused here instead of
       being sent to the office. Skipped when the file's SHA-256 (:func:`visit_fingerprint`) is
       ``known_sha256``: the same bytes passed it before (see ``docs/sync.md``).

    Parameters
    ----------
    visit : path
    known_sha256 : str, optional
        SHA-256 of bytes that passed step 3 before (the laptop's ``validated.json``), or whose
        every row the store read in full as the office copy a sync made them from (the sync's
        own record, :attr:`fieldapp.sync.phases._Sync.vouched_sha256`).

    Returns
    -------
    str or None
        SHA-256 of the bytes that passed step 3 (to record), or ``None`` when they cannot be
        vouched for: a non-empty ``-wal``, or the file changed while it was being read.

    Raises
    ------
    VisitRefused
        naming the visit and the first problem; the visit is byte-identical afterwards.
    """
    from fieldapp.store import StoreError, inspect, open_visit

    visit = Path(visit)
    check_visit_basics(visit)
    try:
        inspect(visit, quick_check=False)     # check_visit_basics has just run it
    except (StoreError, FileNotFoundError) as exc:
        raise VisitRefused(f"{exc}. Nothing was synced") from exc
    check_visit_schema(visit)
    before = visit_fingerprint(visit)
    if before is not None and before == known_sha256:
        return before
    try:
        open_visit(visit, readonly=True, quick_check=False).close()
    except Exception as exc:  # noqa: BLE001 - whatever the store cannot read, we refuse
        where = None
        with contextlib.suppress(sqlite3.Error), contextlib.closing(
            connect(visit, readonly=True)
        ) as conn:
            where = _bad_value(conn)
        # the value named once (the store's own words repeat it with their own advice)
        detail = where if where else f"{type(exc).__name__}: {exc}"
        raise VisitRefused(
            f"visit {visit} holds a value fieldapp refuses: {detail}. Nothing was synced and the"
            " visit is unchanged; correct the value in QGIS (the app will not open the visit"
            " until then either) and sync again"
        ) from exc
    return before if before is not None and visit_fingerprint(visit) == before else None


def check_visit_schema(visit: Path) -> None:
    """Refuse a visit whose ``sqlite_master`` holds anything fieldapp does not make (a trigger
    rewriting every tree's DBH, a view, an index, a table, a column), naming each: see
    :mod:`fieldapp.sync.schemacheck`. What this laptop's base copy (the office master as last
    synced) holds is accepted too. Read-only.

    Raises
    ------
    VisitRefused
        naming the visit and what was found; the visit is unchanged.
    """
    from fieldapp.sync.schemacheck import check_schema, master_rows
    from fieldapp.sync.statepaths import base_copy

    base = base_copy(Path(visit).absolute())
    allowed: list[tuple[str, str, str, str]] = []
    if base.is_file():
        with contextlib.suppress(sqlite3.Error), contextlib.closing(connect(base, readonly=True)) as conn:
            allowed = master_rows(conn)
    check_schema(visit, what=f"visit {visit}", error=VisitRefused,
                 done="Nothing was synced and the visit is unchanged", also_allowed=allowed)


def check_received(gpkg: Path) -> None:
    """Read ``gpkg`` -- a scratch copy holding what a sync is about to write into the visit --
    through the store, as the app would: ``open_visit(gpkg, readonly=True)`` loads every feature
    and checks each row with the model's rules, without writing to the file.

    Called only when something arrives from the office (never by a no-op sync).

    Raises
    ------
    fieldapp.store.InvalidRecords
        rows the model refuses (``.problems`` names each: table, fid, uuid, column, why);
    fieldapp.store.StoreError, FileNotFoundError
        not a fieldapp visit, damaged, newer schema.
    """
    from fieldapp.store import open_visit

    open_visit(gpkg, readonly=True).close()


def _problem_text(problems: Sequence[RecordProblem], limit: int = 5) -> str:
    """``layer tree, feature <uuid> (fid 1), column dbh_in: <why>; ...`` for the first ``limit``."""
    shown = [f"layer {p.table}, feature {p.uuid or '(no uuid)'} (fid {p.fid}), column {p.column}:"
             f" {getattr(p, 'why', p.message)}" for p in problems[:limit]]
    more = f" (and {len(problems) - limit} more)" if len(problems) > limit else ""
    return "; ".join(shown) + more


def _refusal(exc: Exception) -> tuple[list[RecordProblem], str]:
    """The store's problems (RecordProblem list, maybe empty) and a text naming them."""
    problems = list(getattr(exc, "problems", None) or [])
    return problems, (_problem_text(problems) if problems else f"{type(exc).__name__}: {exc}")
