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

Errors (``StoreError`` base)
----------------------------
``NotAVisitFile``   not SQLite, not a GeoPackage, or a GeoPackage that is not a fieldapp visit;
``DamagedVisitFile`` SQLite reports corruption (``quick_check`` not ok, malformed pages);
``NewerVisitFile``  written by a newer fieldapp (schema version above ours);
``VisitFileExists`` ``create_visit`` on a path that exists;
``StoreClosed``     the store was closed; ``WriteFailed`` a commit failed (nothing written).
Opening never modifies a file it refuses.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from pyproj import CRS

from .. import __version__
from ..geo import SiteFrame
from ..survey.features import FEATURE_CLASSES, Action, Change, Layer
from ..survey.visit import Visit
from . import schema as S

__all__ = [
    "StoreError",
    "NotAVisitFile",
    "DamagedVisitFile",
    "NewerVisitFile",
    "VisitFileExists",
    "StoreClosed",
    "WriteFailed",
    "VisitStore",
    "create_visit",
    "open_visit",
]

log = logging.getLogger(__name__)
SQLITE_MAGIC = b"SQLite format 3\x00"
UNDEFINED_CARTESIAN = -1
CUSTOM_SRS_ID = 100000


class StoreError(Exception):
    """Base of the store's errors."""


class NotAVisitFile(StoreError):
    """The file is not a fieldapp visit GeoPackage."""


class DamagedVisitFile(StoreError):
    """SQLite reports the file damaged."""


class NewerVisitFile(StoreError):
    """The file was written by a newer fieldapp schema than this version understands."""


class VisitFileExists(StoreError, FileExistsError):
    """Refusing to overwrite an existing file."""


class StoreClosed(StoreError):
    """The store is closed."""


class WriteFailed(StoreError):
    """A commit failed; nothing of that command was written."""


def _now_text() -> str:
    return S.utc_text(datetime.now(timezone.utc))


def _srs_row(frame: SiteFrame | None):
    """(srs_id, name, organization, org_id, definition, description) for the site CRS."""
    if frame is None:
        return None
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
    site_srs = _srs_row(frame)
    if site_srs and site_srs[0] != 4326:
        srs_rows.append((site_srs[1], site_srs[0], site_srs[2], site_srs[3], site_srs[4], site_srs[5]))
    conn.executemany(
        "INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id,"
        " definition, description) VALUES (?, ?, ?, ?, ?, ?)",
        srs_rows,
    )
    srs_id = site_srs[0] if site_srs else UNDEFINED_CARTESIAN
    now = _now_text()
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
    conn.execute(f'CREATE TABLE "{S.META_TABLE}" (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)')
    conn.execute(
        "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change)"
        " VALUES (?, 'attributes', ?, ?, ?)",
        (S.META_TABLE, S.META_TABLE, "fieldapp file metadata: schema version, application", now),
    )
    conn.executemany(
        f'INSERT INTO "{S.META_TABLE}" (key, value) VALUES (?, ?)',
        [("application", "fieldapp"), ("schema_version", str(S.SCHEMA_VERSION)),
         ("app_version", __version__), ("created_utc", now), ("site_uuid", visit.site.uuid)],
    )
    conn.execute("COMMIT")


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=10.0)
    return conn


class VisitStore:
    """The open GeoPackage of a visit; the model's journal. Get one from create/open_visit.

    Attributes
    ----------
    path : Path
    visit : Visit
        The model, with this store attached as its journal.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, visit: Visit) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = conn
        self.visit = visit
        self._touched: set[str] = set()
        self._srs_id = self._current_srs_id()
        self._prepare_sql()
        visit.attach_journal(self)

    # -------------------------------------------------------------- lifecycle
    def __enter__(self) -> "VisitStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._conn is None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosed(f"{self.path} is closed")
        return self._conn

    def checkpoint(self) -> None:
        """Copy the WAL into the .gpkg and truncate it (``wal_checkpoint(TRUNCATE)``).

        Also stamps ``gpkg_contents.last_change`` of the tables changed since the last
        checkpoint (kept out of each record's transaction to keep commits small).
        Call before export or sync. Raises StoreError if a reader blocks the checkpoint.
        """
        conn = self._db()
        if self._touched:
            now = _now_text()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("UPDATE gpkg_contents SET last_change = ? WHERE table_name = ?",
                                 [(now, t) for t in sorted(self._touched)])
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            self._touched.clear()
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise StoreError(f"checkpoint of {self.path} blocked by another connection; retry")

    def close(self) -> None:
        """Checkpoint, switch to DELETE journal (no -wal needed), close. Idempotent."""
        if self._conn is None:
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

    def _row(self, layer: Layer, f) -> list:
        row = [f.uuid, S.utc_text(f.created_utc), S.utc_text(f.modified_utc), f.created_by]
        if layer in S.GEOMETRY:
            row.append(S.gpkg_blob(S.geometry_of(layer, f), self._srs_id))
        row.extend(S.to_sql(c, getattr(f, c.field)) for c in self._cols[layer])
        return row

    def apply(self, changes: Sequence[Change]) -> None:
        """Commit the changes of one command in one transaction (the model's journal hook).

        Raises WriteFailed (nothing written) on any database error.
        """
        conn = self._db()
        touched = set()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for ch in changes:
                    layer = ch.layer
                    touched.add(layer.value)
                    if layer is Layer.SITE and ch.action is Action.UPDATED and ch.new.crs != ch.old.crs:
                        self._set_srs(ch.new.crs)
                    if ch.action is Action.ADDED:
                        conn.execute(self._insert[layer], self._row(layer, ch.new))
                    elif ch.action is Action.UPDATED:
                        row = self._row(layer, ch.new)
                        cur = conn.execute(self._update[layer], row[1:] + [ch.old.uuid])
                        if cur.rowcount != 1:
                            raise WriteFailed(f"{layer.value} {ch.old.uuid} is not in the file")
                    else:
                        conn.execute(f'DELETE FROM "{layer.value}" WHERE uuid = ?', (ch.old.uuid,))
                conn.execute("COMMIT")
                self._touched.update(touched)
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
    def read_records(self, layer: Layer) -> list:
        """All features of ``layer`` as model records, in fid order."""
        return _read_layer(self._db(), layer)

    def counts(self) -> dict[str, int]:
        """Rows per layer table."""
        conn = self._db()
        return {l.value: conn.execute(f'SELECT count(*) FROM "{l.value}"').fetchone()[0] for l in Layer}


def _read_layer(conn: sqlite3.Connection, layer: Layer) -> list:
    cls = FEATURE_CLASSES[layer]
    cols = S.columns(layer)
    names = list(S.COMMON) + (["geom"] if layer in S.GEOMETRY else []) + [c.name for c in cols]
    quoted = ", ".join(f'"{n}"' for n in names)
    out = []
    model_fields = {f.name for f in fields(cls)}
    for row in conn.execute(f'SELECT {quoted} FROM "{layer.value}" ORDER BY fid'):
        kw = {
            "uuid": row[0],
            "created_utc": S.parse_utc(row[1]),
            "modified_utc": S.parse_utc(row[2]),
            "created_by": row[3],
        }
        i = 4
        if layer in S.GEOMETRY:
            kw.update(S.geometry_fields(layer, S.parse_gpkg_blob(row[4])))
            i = 5
        for c, v in zip(cols, row[i:]):
            kw[c.field] = S.from_sql(c, v)
        out.append(cls(**{k: v for k, v in kw.items() if k in model_fields}))
    return out


# ------------------------------------------------------------------ open / create
def create_visit(path, visit: Visit, *, durability: str = "full") -> VisitStore:
    """Create the visit's GeoPackage at ``path`` (never overwriting) and attach it to ``visit``.

    Features the visit already holds are written too. Returns the open :class:`VisitStore`.
    ``durability``: ``"full"`` (default, survives power loss) or ``"normal"`` (survives an
    application crash; a power cut may lose the last commits) - see the module docstring.

    Raises
    ------
    VisitFileExists
        ``path`` exists (nothing is touched).
    """
    path = Path(path)
    if path.exists():
        raise VisitFileExists(f"{path} exists; a visit file is never overwritten")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
            conn.execute("BEGIN")
            conn.execute(staging._insert[Layer.SITE], staging._row(Layer.SITE, visit.site))
            conn.execute("COMMIT")
            initial = [Change(Action.ADDED, l, f) for l in Layer if l is not Layer.SITE for f in visit.features(l)]
            if initial:
                staging.apply(initial)
        finally:
            conn.close()
        _fsync_file(tmp)
        _place_without_overwrite(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    conn = _connect(path)
    _set_durable(conn, durability)
    return VisitStore(path, conn, visit)


def _fsync_file(p: Path) -> None:
    fd = os.open(p, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # pragma: no cover - directories cannot be fsync'ed on some systems
        pass


def _set_durable(conn: sqlite3.Connection, durability: str = "full") -> None:
    if durability not in ("full", "normal"):
        raise ValueError(f"durability must be 'full' or 'normal', got {durability!r}")
    mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise StoreError(f"could not switch to WAL journal (got {mode})")
    conn.execute(f"PRAGMA synchronous={'FULL' if durability == 'full' else 'NORMAL'}")
    conn.execute("PRAGMA foreign_keys=OFF")


def inspect(path) -> dict:
    """Check that ``path`` is a fieldapp visit this version can open, without changing it.

    Returns the metadata table as a dict. Raises NotAVisitFile, DamagedVisitFile,
    NewerVisitFile, FileNotFoundError.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no visit file at {path}")
    with open(path, "rb") as fh:
        head = fh.read(100)
    if not head.startswith(SQLITE_MAGIC):
        raise NotAVisitFile(f"{path} is not a GeoPackage (not an SQLite database)")
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise DamagedVisitFile(f"{path} cannot be opened: {exc}") from exc
    try:
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
        missing = {l.value for l in Layer} - tables
        if missing:
            raise DamagedVisitFile(f"{path} lacks tables {sorted(missing)}")
        check = conn.execute("PRAGMA quick_check").fetchall()
        if check != [("ok",)]:
            raise DamagedVisitFile(f"{path} is damaged: {'; '.join(r[0] for r in check[:5])}")
        return meta
    except sqlite3.DatabaseError as exc:
        raise DamagedVisitFile(f"{path} is damaged: {exc}") from exc
    finally:
        conn.close()


def open_visit(path, *, who: str | None = None, durability: str = "full", **visit_kwargs) -> VisitStore:
    """Open a visit file, load it into a :class:`Visit` and mirror further changes into it.

    A WAL left by a crash is replayed. Raises the errors of :func:`inspect`; the file is left
    untouched when refused.
    """
    path = Path(path)
    inspect(path)
    conn = _connect(path)
    try:
        _set_durable(conn, durability)
        sites = _read_layer(conn, Layer.SITE)
        if len(sites) != 1:
            raise DamagedVisitFile(f"{path} has {len(sites)} site rows, expected 1")
        records = [f for layer in Layer if layer is not Layer.SITE for f in _read_layer(conn, layer)]
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise DamagedVisitFile(f"{path} is damaged: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    visit = Visit.from_records(sites[0], records, who=who, **visit_kwargs)
    return VisitStore(path, conn, visit)

