"""One crash-safe GeoPackage per visit, mirroring the survey model record by record.

Durability
----------
The file is SQLite in WAL mode with ``synchronous=FULL``: every command of the model is one
transaction, and COMMIT returns only after the WAL is fsync'ed, so a record the user has seen is
on the disk even if the laptop's battery dies the next instant (``NORMAL`` would only survive an
application crash, not a power cut, and the field laptop runs on battery; FULL still commits
10 Hz tracks with a wide margin, see ``bench/bench_store.py``, whose rate is bounded by the
disk's fsync latency). ``durability="normal"`` skips the per-commit fsync for very slow media: it
still survives any application crash (SIGKILL included) and never corrupts the file, but a
power cut may lose the last few commits. A crash leaves ``.gpkg-wal`` beside the file; the next
open replays it.

:meth:`VisitStore.checkpoint` (call before export or sync) copies the WAL into the file and
truncates it; :meth:`VisitStore.close` also switches the journal back to DELETE, so after a clean
close the ``.gpkg`` alone holds everything and can be copied, mailed or opened in QGIS.

A new file is built beside its target under a temporary name and moved into place, so a crash
during creation never leaves a half-made visit, and an existing file is never overwritten.

Schema versions
---------------
``fieldapp_meta.schema_version`` says which tables and columns a file has
(:data:`fieldapp.store.schema.SCHEMA_VERSION`; :data:`~fieldapp.store.schema.ADDED_COLUMNS`
lists what each version added). A file of an older version is read as it is (the fields it
lacks take the model's defaults) and migrated when it is opened for recording; a newer one is
refused. Schema 2 added ``transect.stipulated`` and ``line_feature.mapped_stream``; schema 3
the ``stake_point`` table (:data:`~fieldapp.store.schema.ADDED_TABLES`); schema 4 the
``photo`` media table and the Related Tables Extension's relations (:mod:`.media`); schema 5
the ``device_reading`` table (:class:`fieldapp.survey.features.DeviceReading`); schema 6 the
``data_point`` table (wetland determination data points, :class:`fieldapp.survey.features.DataPoint`).

Errors (``StoreError`` base, defined in :mod:`fieldapp.store.errors`)
---------------------------------------------------------------------
``NotAVisitFile``   not SQLite, not a GeoPackage, or a GeoPackage that is not a fieldapp visit;
``DamagedVisitFile`` SQLite reports corruption (``quick_check`` not ok, malformed pages);
    ``InvalidRecords`` (a ``DamagedVisitFile``) rows the model would refuse (a DBH of 'abc' or
    -5, a yes/no of "no", a coordinate outside the CRS's area of use, a uuid that is not a
    UUID), a child naming no existing parent, a uuid used twice; ``.problems`` names each row
    (table, fid, uuid, column, what is wrong);
``NewerVisitFile``  written by a newer fieldapp (schema version above ours);
``ReadOnlyVisitFile`` the file or its folder cannot be written (open it with ``readonly=True``),
    or a write was tried on a store opened read-only;
``VisitFileExists`` ``create_visit`` on a path that exists;
``VisitOnNetworkDrive`` a visit made or opened for recording on a network share or drive (record
    on the laptop's own disk; read-only opens are allowed);
``StoreClosed``     the store was closed; ``WriteFailed`` a commit failed (nothing written).

Reading without changing
------------------------
:func:`inspect`, refusing a file, and ``open_visit(path, readonly=True)`` never modify the file:
they read through a read-only SQLite connection (``mode=ro`` URI, ``PRAGMA query_only``), with no
journal-mode switch. A WAL-mode file needs its ``-shm`` index to be read: when the ``-wal`` or
``-shm`` exists (the app has the visit open, or crashed), ``mode=ro`` reads the WAL's committed
records through it; when neither exists the WAL is empty and the file is opened ``immutable=1``
so no ``-wal``/``-shm`` is created beside it. Loading checks every row with the model's own rules
(:func:`fieldapp.survey.validation.validate`: a ``uuid`` or a reference to another record must be a
UUID in canonical text form), every station, OHWM point and walk vertex must name a parent row
that exists (a transect, an OHWM line, a walk), and no uuid may appear twice in the whole file
(UNIQUE per table in SQL; across tables checked on load, as it costs one set over the rows). The
optional references (``transect.line_uuid``, ``area_feature.walk_uuid``, ``walk.area_uuid``)
are checked for form only: the model keeps them when the record they name is deleted. One bad
row refuses the whole file, naming the row — nothing a user recorded is ever silently dropped
(``set_aside=True``, the app's open, opens the rest instead and names each row left out,
:mod:`.setaside`). Only an accepted file opened for recording is
switched to WAL. The reading and checking of rows is :mod:`fieldapp.store.load`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyproj import CRS
from shapely.geometry.base import BaseGeometry

from .. import __version__
from ..geo import SiteFrame
from ..survey.features import Action, Change, Feature, Layer
from ..survey.visit import Visit
from . import media
from . import schema as S
from . import spatial as spatial_index
from .durable import fsync_dir, fsync_file
from .errors import (
    DamagedVisitFile,
    NewerVisitFile,
    NotAVisitFile,
    ReadOnlyVisitFile,
    RecordProblem,
    StoreClosed,
    StoreError,
    VisitFileExists,
    VisitOnNetworkDrive,
    WriteFailed,
)
from .load import _load, _read_layer
from .paths import StrPath, can_write_file, can_write_folder, is_remote, sqlite_uri
from .pointblob import point_blob
from .staletemps import clear_stale_creations, temp_prefix
from .tagblock import use_tag_block
from .visitlock import VisitLock

__all__ = ["VisitStore", "create_visit", "inspect", "open_visit"]

log = logging.getLogger(__name__)
SQLITE_MAGIC = b"SQLite format 3\x00"
#: a visit file this big or bigger is read through once before SQLite opens it (:func:`_read_ahead`)
READ_AHEAD_MIN_BYTES = 4 * 1024 * 1024
#: at most this much of it is (its photos may make a visit file big; a day's track is ~ 93 MB)
READ_AHEAD_MAX_BYTES = 256 * 1024 * 1024
UNDEFINED_CARTESIAN = -1
CUSTOM_SRS_ID = 100000


def _now_text() -> str:
    return S.utc_text(datetime.now(UTC))


def _srs_row(frame: SiteFrame) -> tuple[int, str, str, int, str, str]:
    """(srs_id, name, organization, org_id, definition, description) for the site CRS."""
    epsg = frame.srs_id
    wkt = frame.crs.to_wkt("WKT1_GDAL")
    if epsg:
        return (epsg, frame.crs.name, "EPSG", epsg, wkt, frame.crs.name)
    return (CUSTOM_SRS_ID, frame.crs.name, "NONE", CUSTOM_SRS_ID, wkt, frame.crs.name)


def _initialise(conn: sqlite3.Connection, visit: Visit) -> None:
    """Create the GeoPackage core tables, our layers and the metadata (one transaction)."""
    frame = visit._frame
    conn.execute(f"PRAGMA application_id = {S.APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {S.GPKG_USER_VERSION}")
    conn.execute("BEGIN")
    conn.execute(
        "CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,"
        " organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL,"
        " definition TEXT NOT NULL, description TEXT)"
    )
    conn.execute(
        "CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,"
        " identifier TEXT UNIQUE, description TEXT DEFAULT '',"
        " last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
        " min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,"
        " CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id))"
    )
    conn.execute(
        "CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,"
        " geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL,"
        " m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),"
        " CONSTRAINT uk_gc_table_name UNIQUE (table_name),"
        " CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),"
        " CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id))"
    )
    # The three rows every GeoPackage has (GeoPackage 1.4 §1.1.2.1.2, Requirement 11).
    srs_rows = [
        ("WGS 84 geodetic", 4326, "EPSG", 4326, CRS.from_epsg(4326).to_wkt("WKT1_GDAL"),
         "longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid"),
        ("Undefined cartesian SRS", -1, "NONE", -1, "undefined", "undefined cartesian coordinate reference system"),
        ("Undefined geographic SRS", 0, "NONE", 0, "undefined", "undefined geographic coordinate reference system"),
    ]
    site_srs = None if frame is None else _srs_row(frame)
    if site_srs and site_srs[0] != 4326:
        srs_rows.append((site_srs[1], site_srs[0], site_srs[2], site_srs[3], site_srs[4], site_srs[5]))
    conn.executemany(
        "INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id,"
        " definition, description) VALUES (?, ?, ?, ?, ?, ?)",
        srs_rows,
    )
    srs_id = site_srs[0] if site_srs else UNDEFINED_CARTESIAN
    now = _now_text()
    conn.execute(spatial_index.create_sql())
    for layer in Layer:
        for sql in S.create_table_sql(layer):
            conn.execute(sql)
        spatial = layer in S.GEOMETRY
        conn.execute(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change,"
            " srs_id) VALUES (?, ?, ?, ?, ?, ?)",
            (layer.value, "features" if spatial else "attributes", layer.value,
             S.DESCRIPTIONS[layer], now, srs_id if spatial else None),
        )
        if spatial:
            conn.execute(
                "INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name,"
                " srs_id, z, m) VALUES (?, 'geom', ?, ?, 0, 0)",
                (layer.value, S.GEOMETRY[layer][0], srs_id),
            )
            for sql in spatial_index.rtree_sql(layer.value):  # the spatial index GDAL and QGIS use
                conn.execute(sql)
    for sql in media.related_tables_sql():  # photos as Related Tables media (schema 4)
        conn.execute(sql)
    # Not registered in gpkg_contents: a registered attributes table needs an INTEGER primary
    # key (GeoPackage Requirement 119); this key/value table is the application's own.
    conn.execute(f'CREATE TABLE "{S.META_TABLE}" (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)')
    conn.executemany(
        f'INSERT INTO "{S.META_TABLE}" (key, value) VALUES (?, ?)',
        [("application", "fieldapp"), ("schema_version", str(S.SCHEMA_VERSION)),
         ("app_version", __version__), ("created_utc", now), ("site_uuid", visit.site.uuid)],
    )
    conn.execute("COMMIT")


def _connect(path: Path) -> sqlite3.Connection:
    # check_same_thread off: the window opens a visit on a worker thread and then uses it on
    # the GUI thread only (one thread at a time, handed over by a queued signal)
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=10.0, check_same_thread=False)
    return spatial_index.register_st_functions(conn)  # the R-tree triggers call ST_MinX, ...


class VisitStore:
    """The open GeoPackage of a visit; the model's journal. Get one from create/open_visit.

    Attributes
    ----------
    path : Path
    visit : Visit
        The model, with this store attached as its journal.
    """

    _readonly = False
    _visit_lock: VisitLock | None = None
    #: The damaged rows left out of the model when opened with ``set_aside=True`` (each named).
    set_aside: tuple[RecordProblem, ...] = ()

    def __init__(self, path: Path, conn: sqlite3.Connection, visit: Visit, *, readonly: bool = False,
                 lock: VisitLock | None = None) -> None:
        self.path = path
        self._visit_lock = lock     # held until close (:mod:`.visitlock`)
        self._conn: sqlite3.Connection | None = conn
        self._readonly = readonly
        self.visit = visit
        self._touched: set[str] = set()
        self._srs_id = self._current_srs_id()
        self._prepare_sql()
        self._grown: dict[str, list[float]] = {}    # bounds of rows added since the last checkpoint
        self._reshaped: set[str] = set()            # tables with rows changed or deleted since
        visit.attach_journal(self)

    # -------------------------------------------------------------- lifecycle
    def __enter__(self) -> VisitStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._conn is None

    @property
    def unlocked_reason(self) -> str | None:
        """Why this store records without the visit's lock (:mod:`.visitlock`), or None."""
        return self._visit_lock.unlocked_reason if self._visit_lock is not None else None

    @property
    def readonly(self) -> bool:
        """True when opened with ``open_visit(path, readonly=True)``: nothing is ever written."""
        return self._readonly

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosed(f"{self.path} is closed")
        return self._conn

    def checkpoint(self) -> None:
        """Copy the WAL into the .gpkg and truncate it (``wal_checkpoint(TRUNCATE)``).

        Also stamps ``gpkg_contents.last_change`` of the tables changed since the last
        checkpoint (kept out of each record's transaction to keep commits small).
        Call before export or sync. Raises StoreError if a reader blocks the checkpoint.
        A read-only store has nothing to checkpoint: no-op.
        """
        conn = self._db()
        if self._readonly:
            return
        if self._touched:
            now = _now_text()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("UPDATE gpkg_contents SET last_change = ? WHERE table_name = ?",
                                 [(now, t) for t in sorted(self._touched)])
                # a table only added to grows its extent by the new rows' bounds; one with rows
                # changed or deleted is measured again (an extent can shrink)
                spatial_index.update_extents(conn, sorted(self._reshaped))
                spatial_index.grow_extents(conn, {t: b for t, b in self._grown.items()
                                                  if t not in self._reshaped})
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            self._touched.clear()
            self._grown.clear()
            self._reshaped.clear()
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise StoreError(f"checkpoint of {self.path} blocked by another connection; retry")

    def fold_wal(self) -> bool:
        """Copy what the WAL holds into the .gpkg now, without waiting (``wal_checkpoint(PASSIVE)``):
        the cheap, regular checkpoint while recording (:mod:`fieldapp.app.keepsafe`), so a copy of
        the .gpkg alone lags by seconds, not by the 1000 pages of SQLite's own auto-checkpoint.

        Never blocks (a reader, e.g. a copy of the visit being made, only leaves the rest for the
        next time) and writes no extents (:meth:`checkpoint` does). True when the .gpkg now holds
        every committed record; a read-only or closed store: False.
        """
        if self._conn is None or self._readonly:
            return False
        busy, logged, done = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return not busy and logged == done

    def close(self) -> None:
        """Checkpoint, switch to DELETE journal (no -wal needed), close. Idempotent.

        A read-only store just closes its connection (the file is left byte for byte as it was).
        """
        if self._conn is None:
            return
        if self._readonly:
            self._conn.close()
            self._conn = None
            if self.visit.journal is self:
                self.visit.attach_journal(None)
            return
        try:
            self.checkpoint()
            mode = self._conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
            if mode.lower() != "delete":
                log.warning("%s: journal_mode stayed %s (another reader?)", self.path, mode)
        finally:
            self._conn.close()
            self._conn = None
            if self.visit.journal is self:
                self.visit.attach_journal(None)
            if self._visit_lock is not None:
                self._visit_lock.release()

    # -------------------------------------------------------------- writing
    def _prepare_sql(self) -> None:
        self._cols = {layer: S.columns(layer) for layer in Layer}
        self._insert, self._update = {}, {}
        for layer, cols in self._cols.items():
            names = list(S.COMMON) + (["geom"] if layer in S.GEOMETRY else []) + [c.name for c in cols]
            quoted = ", ".join(f'"{n}"' for n in names)
            marks = ", ".join("?" for _ in names)
            self._insert[layer] = f'INSERT INTO "{layer.value}" ({quoted}) VALUES ({marks})'
            sets = ", ".join(f'"{n}" = ?' for n in names[1:])
            self._update[layer] = f'UPDATE "{layer.value}" SET {sets} WHERE uuid = ?'

    def _row(self, layer: Layer, f: Feature, geom: BaseGeometry | None = None) -> list[object]:
        """The table row of record ``f`` (``geom``: its geometry when the caller has made it)."""
        row: list[object] = [f.uuid, S.utc_text(f.created_utc), S.utc_text(f.modified_utc), f.created_by]
        if layer in _XY_LAYERS and geom is None:
            x, y = getattr(f, "x", None), getattr(f, "y", None)
            row.append(None if x is None or y is None else point_blob(x, y, self._srs_id))
        elif layer in S.GEOMETRY:
            row.append(S.gpkg_blob(geom if geom is not None else S.geometry_of(layer, f), self._srs_id))
        row.extend(S.to_sql(c, getattr(f, c.field)) for c in self._cols[layer])
        return row

    def apply(self, changes: Sequence[Change]) -> None:
        """Commit the changes of one command in one transaction (the model's journal hook).

        Raises WriteFailed (nothing written) on any database error, ReadOnlyVisitFile on a
        store opened read-only (the model then stays unchanged too).
        """
        conn = self._db()
        if self._readonly:
            raise ReadOnlyVisitFile(f"{self.path} was opened read-only; nothing can be recorded in it")
        touched: set[str] = set()
        grown: dict[str, list[float]] = {}
        reshaped: set[str] = set()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for ch in changes:
                    layer = ch.layer
                    touched.add(layer.value)
                    if layer is Layer.SITE and ch.action is Action.UPDATED and ch.new.crs != ch.old.crs:
                        self._set_srs(ch.new.crs)
                    if ch.action is Action.ADDED and layer in _XY_LAYERS:
                        # a point (every fix): its blob and bounds from x, y, no shapely
                        conn.execute(self._insert[layer], self._row(layer, ch.new))
                        x, y = getattr(ch.new, "x", None), getattr(ch.new, "y", None)
                        _grow(grown, layer.value, None if x is None or y is None else [x, y, x, y])
                    elif ch.action is Action.ADDED:
                        geom = S.geometry_of(layer, ch.new) if layer in S.GEOMETRY else None
                        conn.execute(self._insert[layer], self._row(layer, ch.new, geom))
                        _grow(grown, layer.value, geom)
                    else:
                        reshaped.add(layer.value)
                    if ch.action is Action.UPDATED:
                        row = self._row(layer, ch.new)
                        cur = conn.execute(self._update[layer], row[1:] + [ch.old.uuid])
                        if cur.rowcount != 1:
                            raise WriteFailed(f"{layer.value} {ch.old.uuid} is not in the file")
                    elif ch.action is Action.REMOVED:
                        conn.execute(f'DELETE FROM "{layer.value}" WHERE uuid = ?', (ch.old.uuid,))
                conn.execute("COMMIT")
                self._touched.update(touched)
                self._reshaped.update(reshaped)
                for t, b in grown.items():
                    _grow(self._grown, t, b)
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except WriteFailed:
            raise
        except (sqlite3.Error, ValueError, TypeError) as exc:
            raise WriteFailed(f"could not write to {self.path}: {exc}") from exc

    def _current_srs_id(self) -> int:
        row = self._db().execute(
            "SELECT srs_id FROM gpkg_geometry_columns WHERE table_name = ?", (Layer.TREE.value,)
        ).fetchone()
        return int(row[0]) if row else UNDEFINED_CARTESIAN

    def _set_srs(self, crs_text: str) -> None:
        """Inside a transaction: register the site CRS and point every layer at it."""
        conn = self._db()
        for layer in S.GEOMETRY:
            if conn.execute(f'SELECT 1 FROM "{layer.value}" WHERE geom IS NOT NULL LIMIT 1').fetchone():
                raise WriteFailed("the CRS cannot change once geometry is stored")
        srs = _srs_row(SiteFrame(crs_text))
        conn.execute(
            "INSERT OR IGNORE INTO gpkg_spatial_ref_sys (srs_id, srs_name, organization,"
            " organization_coordsys_id, definition, description) VALUES (?, ?, ?, ?, ?, ?)",
            srs,
        )
        tables = [layer.value for layer in S.GEOMETRY]
        conn.executemany("UPDATE gpkg_geometry_columns SET srs_id = ? WHERE table_name = ?",
                         [(srs[0], t) for t in tables])
        conn.executemany("UPDATE gpkg_contents SET srs_id = ? WHERE table_name = ?",
                         [(srs[0], t) for t in tables])
        self._srs_id = srs[0]

    # -------------------------------------------------------------- reading
    def read_records(self, layer: Layer) -> list[Feature]:
        """All features of ``layer`` as model records, in fid order."""
        return _read_layer(self._db(), layer)

    def counts(self) -> dict[str, int]:
        """Rows per layer table."""
        conn = self._db()
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {layer.value: conn.execute(f'SELECT count(*) FROM "{layer.value}"').fetchone()[0]
                if layer.value in tables else 0 for layer in Layer}


# ------------------------------------------------------------------ open / create
def create_visit(path: StrPath, visit: Visit, *, durability: str = "full") -> VisitStore:
    """Create the visit's GeoPackage at ``path`` (never overwriting) and attach it to ``visit``.

    Features the visit already holds are written too. Returns the open :class:`VisitStore`.
    ``durability``: ``"full"`` (default, survives power loss) or ``"normal"`` (survives an
    application crash; a power cut may lose the last commits) - see the module docstring.

    Raises
    ------
    VisitFileExists
        ``path`` exists (nothing is touched).
    VisitInUse
        Another window or program is making or recording a visit at ``path`` (:mod:`.visitlock`).
    VisitOnNetworkDrive
        ``path`` is on a network share or drive (:func:`refuse_network_drive`); nothing made.
    """
    path = Path(path)
    if path.exists():
        raise VisitFileExists(f"{path} exists; a visit file is never overwritten")
    refuse_network_drive(path)
    lock = VisitLock(path).acquire()
    try:
        return _create_visit(path, visit, durability, lock)
    except BaseException:
        lock.release()
        raise


def _create_visit(path: Path, visit: Visit, durability: str, lock: VisitLock) -> VisitStore:
    clear_stale_creations(path.parent)   # what a killed creation left (staletemps)
    fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a visit file is an ordinary file
    try:
        conn = _connect(tmp)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=FULL")
            _initialise(conn, visit)
            staging = VisitStore.__new__(VisitStore)
            staging.path, staging._conn, staging.visit, staging._touched = tmp, conn, visit, set()
            staging._srs_id = staging._current_srs_id()
            staging._prepare_sql()
            staging._grown, staging._reshaped = {}, set()
            conn.execute("BEGIN")
            conn.execute(staging._insert[Layer.SITE], staging._row(Layer.SITE, visit.site))
            conn.execute("COMMIT")
            initial = [Change(Action.ADDED, layer, f) for layer in Layer if layer is not Layer.SITE
                       for f in visit.features(layer)]
            if initial:
                staging.apply(initial)
                conn.execute("BEGIN")
                spatial_index.update_extents(conn)
                conn.execute("COMMIT")
        finally:
            conn.close()
        fsync_file(tmp)
        _place_without_overwrite(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    lock.acquire()          # the file made: its own lock too (a rename or a link of it)
    conn = _connect(path)
    _set_durable(conn, durability)
    return VisitStore(path, conn, visit, lock=lock)


#: the layers whose geometry is a point made from the record's x and y (schema.GEOMETRY "xy")
_XY_LAYERS = frozenset(layer for layer, (_, kind) in S.GEOMETRY.items() if kind == "xy")


def _grow(bounds: dict[str, list[float]], table: str, geom: BaseGeometry | list[float] | None) -> None:
    """Widen ``bounds[table]`` ([min_x, min_y, max_x, max_y]) by a geometry or by other bounds."""
    if geom is None:
        return
    if isinstance(geom, list):
        b = geom
    else:
        if geom.is_empty:
            return
        b = list(geom.bounds)
    have = bounds.get(table)
    bounds[table] = b if have is None else [min(have[0], b[0]), min(have[1], b[1]),
                                            max(have[2], b[2]), max(have[3], b[3])]


def _place_without_overwrite(tmp: Path, path: Path) -> None:
    try:
        os.link(tmp, path)  # atomic, fails if path exists
        tmp.unlink()
    except FileExistsError as exc:
        raise VisitFileExists(f"{path} exists; a visit file is never overwritten") from exc
    except OSError:  # filesystems without hard links (FAT/exFAT sticks)
        if path.exists():
            raise VisitFileExists(f"{path} exists; a visit file is never overwritten") from None
        os.replace(tmp, path)
    fsync_dir(path.parent)


def refuse_network_drive(path: Path) -> None:
    r"""Raise :class:`VisitOnNetworkDrive` when ``path`` is on another machine
    (:func:`fieldapp.store.paths.is_remote`: a ``\\server\share`` path, a mapped network drive,
    an NFS/SMB mount). A visit is recorded in SQLite's WAL, whose shared index does not work
    across machines, and a dropped network link would lose records. Read-only opens (report,
    export, sync) are not refused."""
    if is_remote(path):
        raise VisitOnNetworkDrive(
            f"{path} is on a network drive: record visits on this laptop's own disk; copy or sync"
            " them to the share afterwards (a visit recorded over the network can lose records"
            " when the connection drops). Nothing was recorded; it can still be opened read-only"
            " to view, report or export it")


def _set_durable(conn: sqlite3.Connection, durability: str = "full") -> None:
    if durability not in ("full", "normal"):
        raise ValueError(f"durability must be 'full' or 'normal', got {durability!r}")
    mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise StoreError(f"could not switch to WAL journal (got {mode})")
    conn.execute(f"PRAGMA synchronous={'FULL' if durability == 'full' else 'NORMAL'}")
    conn.execute("PRAGMA foreign_keys=OFF")


def _is_wal_file(path: Path) -> bool:
    """The header's read/write versions (bytes 18-19) say WAL (2), SQLite file format §1.3."""
    with open(path, "rb") as fh:
        head = fh.read(20)
    return len(head) == 20 and head[18] == 2


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot change ``path`` (see "Reading without changing").

    ``mode=ro``; for a WAL-mode file with neither ``-wal`` nor ``-shm`` beside it (nothing
    uncheckpointed), ``immutable=1`` so SQLite creates no ``-wal``/``-shm`` files either.
    Then ``PRAGMA query_only``. The URI is :func:`fieldapp.store.paths.sqlite_uri`'s (a share's
    ``file:////server/share/...`` on Windows, a mapped drive's letter kept).
    """
    side = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
    if _is_wal_file(path) and not any(p.exists() for p in side):
        uri = sqlite_uri(path, mode="ro", immutable=1)
    else:
        uri = sqlite_uri(path, mode="ro")
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=10.0)
    try:
        spatial_index.register_st_functions(conn)
        conn.execute("PRAGMA query_only = 1")
    except BaseException:
        conn.close()
        raise
    return conn


def _is_readonly_error(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and (code & 0xFF) == sqlite3.SQLITE_READONLY:
        return True
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text


def _readonly_message(path: Path, detail: str = "") -> str:
    return (f"{path} is read-only (the file or its folder cannot be written{': ' + detail if detail else ''}); "
            "open it read-only to view, report or export it, or copy it to a writable folder to record")


def _inspect_conn(conn: sqlite3.Connection, path: Path, quick_check: bool = True) -> dict[str, str]:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id != S.APPLICATION_ID:
        raise NotAVisitFile(f"{path} is an SQLite file but not a GeoPackage (application_id {app_id:#x})")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if S.META_TABLE not in tables:
        raise NotAVisitFile(f"{path} is a GeoPackage but not a fieldapp visit (no {S.META_TABLE} table)")
    meta = dict(conn.execute(f'SELECT key, value FROM "{S.META_TABLE}"').fetchall())
    if meta.get("application") != "fieldapp":
        raise NotAVisitFile(f"{path} is not a fieldapp visit")
    try:
        version = int(meta.get("schema_version", ""))
    except ValueError as exc:
        raise DamagedVisitFile(f"{path}: schema_version {meta.get('schema_version')!r}") from exc
    if version > S.SCHEMA_VERSION:
        raise NewerVisitFile(
            f"{path} was written by a newer fieldapp (schema {version}; this version "
            f"understands up to {S.SCHEMA_VERSION}); update fieldapp to open it"
        )
    missing = {layer.value for layer in Layer if layer not in S.tables_added_after(version)} - tables
    if missing:
        raise DamagedVisitFile(f"{path} lacks tables {sorted(missing)}")
    absent_ok = S.added_after(version)  # an older schema lacks the columns added since
    lacking = []
    for layer in Layer:
        if layer in S.tables_added_after(version) and layer.value not in tables:
            continue
        have = {r[1] for r in conn.execute(f'PRAGMA table_info("{layer.value}")')}
        lacking += [f"{layer.value}.{c.name}" for c in S.columns(layer)
                    if c.name not in have and (layer, c.name) not in absent_ok]
    if lacking:
        raise DamagedVisitFile(f"{path} (schema {version}) lacks columns {lacking}")
    check = conn.execute("PRAGMA quick_check").fetchall() if quick_check else [("ok",)]
    if check != [("ok",)]:
        raise DamagedVisitFile(f"{path} is damaged: {'; '.join(r[0] for r in check[:5])}")
    return meta


def _sqlite_failure(path: Path, exc: sqlite3.Error) -> StoreError:
    """The right StoreError for an SQLite error while reading: read-only or damaged."""
    if _is_readonly_error(exc) or isinstance(exc, sqlite3.OperationalError) and "unable to open" in str(exc):
        return ReadOnlyVisitFile(_readonly_message(path, str(exc)))
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
        return StoreError(f"{path} is in use by another program ({exc}); close it there and retry")
    return DamagedVisitFile(f"{path} is damaged: {exc}")


@contextlib.contextmanager
def _closed_on_failure(conn: sqlite3.Connection, path: Path,
                       errors: type[sqlite3.Error] = sqlite3.DatabaseError) -> Iterator[None]:
    """Close ``conn`` when the block raises; an SQLite ``errors`` becomes the right
    :class:`StoreError` (:func:`_sqlite_failure`), anything else is raised as it is."""
    try:
        yield
    except errors as exc:
        conn.close()
        raise _sqlite_failure(path, exc) from exc
    except BaseException:
        conn.close()
        raise


def _read_ahead(path: Path) -> int:
    """Read a big visit file (and its ``-wal``) through once in 1 MiB reads; returns the bytes
    read. Opened cold (the morning after: the laptop rebooted, the file not in the OS's cache)
    SQLite would fetch it one 4 KiB page at a time in B-tree order; read in order first, its
    pages are in the cache when the load asks. A day's visit (93 MB, with its checks) opened
    cold in 2.53-2.65 s without it and 1.54-1.67 s with it, alternating in one run (2-core VM,
    virtual disk); warm, 1.53-1.62 s and 1.49-1.71 s (the read is a copy from the cache). Files
    under :data:`READ_AHEAD_MIN_BYTES` are left to SQLite; at most :data:`READ_AHEAD_MAX_BYTES` of
    each is read. Best effort: a file that cannot be read here is left for SQLite to refuse in its
    own words."""
    done = 0
    buf = bytearray(1 << 20)
    for name in (path, path.with_name(path.name + "-wal")):
        try:
            with open(name, "rb", buffering=0) as fh:
                if os.fstat(fh.fileno()).st_size < READ_AHEAD_MIN_BYTES:
                    continue
                left = READ_AHEAD_MAX_BYTES
                while left > 0 and (n := fh.readinto(buf)):
                    done += n
                    left -= n
        except OSError:
            continue
    return done


def _open_checked(path: Path, quick_check: bool = True) -> tuple[sqlite3.Connection, dict[str, str]]:
    """A read-only connection to a file that passed the checks of :func:`inspect`."""
    if not path.is_file():
        raise FileNotFoundError(f"no visit file at {path}")
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
    except PermissionError as exc:
        raise ReadOnlyVisitFile(f"{path} cannot be read: {exc}") from exc
    if not head.startswith(SQLITE_MAGIC):
        raise NotAVisitFile(f"{path} is not a GeoPackage (not an SQLite database)")
    _read_ahead(path)
    try:
        conn = _connect_readonly(path)
    except sqlite3.Error as exc:
        raise _sqlite_failure(path, exc) from exc
    with _closed_on_failure(conn, path):
        return conn, _inspect_conn(conn, path, quick_check)


def inspect(path: StrPath, *, quick_check: bool = True) -> dict[str, str]:
    """Check that ``path`` is a fieldapp visit this version can open, without changing it.

    Reads through a read-only connection (see "Reading without changing"): the file's bytes
    are the same afterwards. Returns the metadata table as a dict. ``quick_check`` False leaves
    out SQLite's ``PRAGMA quick_check`` (a read of every page: 0.1 s for a day's visit) for a
    caller that has just run it on the file (the sync's visit check,
    :func:`fieldapp.sync.visitcheck.check_visit_file`).

    Raises
    ------
    NotAVisitFile, DamagedVisitFile, NewerVisitFile, FileNotFoundError
    ReadOnlyVisitFile
        A WAL-mode file whose ``-shm`` index cannot be created (read-only folder).
    """
    conn, meta = _open_checked(Path(path), quick_check)
    conn.close()
    return meta


def open_visit(path: StrPath, *, who: str | None = None, durability: str = "full", readonly: bool = False,
               set_aside: bool = False, quick_check: bool = True, **visit_kwargs: Any) -> VisitStore:
    """Open a visit file, load it into a :class:`Visit` and mirror further changes into it.

    Parameters
    ----------
    path : path-like
    who : str, optional
        ``created_by`` for new features.
    durability : ``"full"`` or ``"normal"``
        See the module docstring (ignored when ``readonly``).
    readonly : bool
        Read without ever writing (for report, export and sync): no journal-mode switch,
        ``PRAGMA query_only``; the file's bytes (and sha256) are unchanged after ``close()``.
        The store's ``apply`` raises :class:`ReadOnlyVisitFile`, so commands on its visit are
        refused and leave the model unchanged; ``checkpoint()`` is a no-op. While the app has
        the visit open, a read-only open sees every committed record (through the WAL).
    set_aside : bool
        Open the rest of a file holding damaged rows (the app's open): those rows and their
        children are left in the file untouched and out of the model, named in the store's
        ``set_aside`` (:mod:`.setaside`); without it such a file raises ``InvalidRecords``.
    quick_check : bool
        False: as :func:`inspect` with ``quick_check=False`` (the caller has just run it).

    Older schemas: a file of an older schema version opens too. Read-only it is read as it is
    (the columns added since take the model's defaults: ``transect.stipulated`` False,
    ``line_feature.mapped_stream`` None for a schema 1 file). Opened for recording it is first
    migrated to this version in one transaction (:func:`_migrate`); an older fieldapp then
    refuses it as :class:`NewerVisitFile`. A visit synced before its migration is newer than its
    sync base copy; ``fieldapp.sync`` migrates the base and the office master to match (with
    :func:`fieldapp.store.schema.migration_sql`) on the next sync.

    Every row is checked with the model's rules before anything is written; a WAL left by a
    crash is read (and, when opened for recording, replayed into the file). Opened for
    recording, new trees are numbered in the tag block the office gave this laptop copy
    (:mod:`.tagblock`), whatever opens it: the app, a script, a command.

    Raises
    ------
    FileNotFoundError, NotAVisitFile, DamagedVisitFile, NewerVisitFile
        As :func:`inspect`; the file is left untouched.
    WriteFailed
        Opened for recording, a file of an older schema could not be migrated (unchanged).
    InvalidRecords
        A row the model refuses (a ``DamagedVisitFile``; ``.problems`` names every row);
        the file is left untouched.
    ReadOnlyVisitFile
        Opened for recording but the file or its folder cannot be written (open it with
        ``readonly=True``); the file is left untouched.
    VisitInUse
        Opened for recording while another window or program records into it or syncs it
        (:mod:`.visitlock`; a read-only open is never refused so); the file is left untouched.
    VisitOnNetworkDrive
        Opened for recording on a network share or drive (:func:`refuse_network_drive`; a
        read-only open is never refused so); the file is left untouched.
    """
    path = Path(path)
    if durability not in ("full", "normal"):
        raise ValueError(f"durability must be 'full' or 'normal', got {durability!r}")
    if readonly:
        return _open_visit(path, who, durability, True, None, visit_kwargs, set_aside, quick_check)
    if not path.is_file():      # said as the checks say it, before a lock is taken for nothing
        raise FileNotFoundError(f"no visit file at {path}")
    refuse_network_drive(path)
    lock = VisitLock(path).acquire()    # before the load: a second window is refused at once
    try:
        return _open_visit(path, who, durability, False, lock, visit_kwargs, set_aside, quick_check)
    except BaseException:
        lock.release()
        raise


def _open_visit(path: Path, who: str | None, durability: str, readonly: bool, lock: VisitLock | None,
                visit_kwargs: dict[str, Any], set_aside: bool = False, quick_check: bool = True) -> VisitStore:
    conn, meta = _open_checked(path, quick_check)
    aside: list[RecordProblem] | None = [] if set_aside else None
    with _closed_on_failure(conn, path):
        site, records, track = _load(conn, path, aside)
    if readonly:
        visit = Visit.from_records(site, records, track=track, who=who, **visit_kwargs)
        store = VisitStore(path, conn, visit, readonly=True)
        store.set_aside = tuple(aside or ())
        return store
    conn.close()
    if not (os.access(path, os.R_OK | os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)
            and can_write_file(path) and can_write_folder(path.parent)):
        # os.access alone misses Windows' access lists: a real attempt too (nothing written)
        raise ReadOnlyVisitFile(_readonly_message(path))
    try:
        conn = _connect(path)
    except sqlite3.Error as exc:
        raise _sqlite_failure(path, exc) from exc
    with _closed_on_failure(conn, path, sqlite3.Error):
        if int(meta["schema_version"]) < S.SCHEMA_VERSION:
            _migrate(conn, path)  # before the WAL switch: a failed migration leaves the bytes as they were
        _conform(conn, path)
        _set_durable(conn, durability)
    visit = Visit.from_records(site, records, track=track, who=who, **visit_kwargs)
    use_tag_block(visit, path)     # whoever opens it (app, script, command): tagblock.py
    store = VisitStore(path, conn, visit, lock=lock)
    store.set_aside = tuple(aside or ())
    return store


def conform_in(conn: sqlite3.Connection) -> bool:
    """:func:`_conform`'s changes in the caller's transaction (``conn`` with the ST_ functions);
    True if any. The sync runs it after migrating a copy (``fieldapp.sync.schemas``)."""
    spatial = spatial_index.conform(conn, S.META_TABLE)
    return media.conform(conn) or spatial


def _conform(conn: sqlite3.Connection, path: Path) -> None:
    """Give a file written before the spatial index its R-tree, triggers and extents, and take
    ``fieldapp_meta`` out of ``gpkg_contents`` (:func:`fieldapp.store.spatial.conform`), and
    widen layer extents left behind by a crash (rows recorded since the last checkpoint:
    :func:`fieldapp.store.spatial.cover_extents`), in one transaction; nothing is written when
    the file already conforms.

    Raises
    ------
    WriteFailed
        It could not be written (the file is as it was).
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conform_in(conn):
                log.info("%s: brought to GeoPackage conformance (spatial index, extents,"
                         " Related Tables rows, fieldapp_meta unregistered)", path)
            widened = spatial_index.cover_extents(conn)
            if widened:
                log.info("%s: extents of %s widened to the rows recorded before the last crash",
                         path, ", ".join(widened))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        raise WriteFailed(f"could not add the spatial index to {path} ({exc}); the file is unchanged") from exc


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring a file of an older schema to :data:`~fieldapp.store.schema.SCHEMA_VERSION`.

    Done when a file is opened for recording (never by a read-only open, which reads the old
    schema as it is): :func:`fieldapp.store.schema.migration_sql` (columns added, the rows
    already there taking the model's defaults) and ``schema_version`` in one transaction, so a
    crash or a full disk leaves the file at its old version, whole. The version is read again
    inside the write lock, so two processes opening the file at once migrate it once.

    Raises
    ------
    WriteFailed
        The migration could not be written (the file is as it was).
    """
    key = "schema_version"
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = int(conn.execute(f'SELECT value FROM "{S.META_TABLE}" WHERE key = ?', (key,)).fetchone()[0])
            if version < S.SCHEMA_VERSION:
                for sql in S.migration_sql(version):
                    conn.execute(sql)
                conn.execute(f'UPDATE "{S.META_TABLE}" SET value = ? WHERE key = ?', (str(S.SCHEMA_VERSION), key))
                log.info("%s: schema %d -> %d", path, version, S.SCHEMA_VERSION)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        raise WriteFailed(f"could not bring {path} to schema {S.SCHEMA_VERSION} ({exc}); "
                          "the file is unchanged") from exc
