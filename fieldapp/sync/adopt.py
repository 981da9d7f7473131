"""Bring a plain copy of a visit to the office: ``fieldapp sync --office PATH --adopt-copy COPY NEW``.

A plain copy is a visit file copied before its first sync (``cp day.gpkg dayB.gpkg``: the office
handed one template to two laptops, a crew copied a visit to a second laptop). Once the other
copy created the site in the office, the plain copy's own sync is refused
(:func:`fieldapp.sync.preflight._preflight`: its rows would collide with the office's). This
module gives its records a way to the office, losing no edit and overwriting nothing:

1. ``NEW`` is checked out from the office (:func:`fieldapp.sync.engine.checkout`: a proper laptop
   copy, with its own ``.sync`` state and tag block);
2. every record of the copy is brought into ``NEW``, matched by **uuid** (the features' identity
   in every copy; the integer ``fid`` of a copy's new feature may be another feature's in the
   office, which is why pygeodiff, keyed on the fid, cannot make this merge):

   - a feature the office lacks is inserted (a new fid; children follow their parents by uuid,
     photos their record by ``record_table`` / ``record_uuid``: the Related Tables views follow);
   - a feature the office has with equal values: nothing (``modified_utc`` is bookkeeping);
   - a feature the office has with other values: **there is no common base**, so neither side
     can be said to be the edit. The office's value is kept and a ``same-field`` conflict
     record (``fieldapp_sync_conflicts``, policy :data:`POLICY`) holds the copy's value as
     ``ours`` (``base`` is ``None``): the crew resolves it with ``--conflicts`` / ``--resolve ID
     keep-mine`` or the Conflicts view;
   - a feature in the office the copy lacks is kept (the copy may never have had it: deleting
     it would be the less protective reading);
   - a tree inserted with a tag another tree of the site has: a ``tag-clash`` record, both trees
     kept (:func:`fieldapp.sync.conflicts.tag_clashes`, as a sync does);
3. ``NEW`` is read through the store, then moved into place. Its next ordinary sync sends the
   inserted records and the conflict records (pygeodiff's diff against its base, as always).

The copy is only read (a backup-API snapshot from a read-only connection): it stays
byte-identical, the crew's evidence. ``NEW`` must be in an existing folder outside the office
folder (:func:`fieldapp.sync.adoptwork.check_new_place`). All work is in
``.NEW.<host>.<pid>.adopting/`` beside ``NEW``; on any failure, Ctrl+C or a kill nothing named
``NEW`` exists (the folder is removed, or by the next adoption in that folder:
:func:`fieldapp.sync.adoptwork.clear_stale`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from fieldapp.store.durable import fsync_dir
from fieldapp.store.spatial import register_st_functions
from fieldapp.sync import adoptwork, schemas
from fieldapp.sync import changesets as cs
from fieldapp.sync.conflicts import (
    LATEST_WINS_COLUMNS,
    PLAIN_COPY_POLICY,
    Conflict,
    ConflictContext,
    ConflictKind,
    _encode,
    insert_conflicts,
    open_same_field,
    repeats_open,
    tag_clashes,
)
from fieldapp.sync.conflictwords import conflict_line
from fieldapp.sync.errors import InvalidOfficeRecords, LaptopStateError, SyncError, VisitRefused
from fieldapp.sync.files import INTERNAL_TABLES, connect, ensure_sync_tables, log_ids, replace_durably
from fieldapp.sync.files import quote_identifier as _qi
from fieldapp.sync.laptop import LaptopState, site_id_of
from fieldapp.sync.offices import office_arg, shell_arg
from fieldapp.sync.officestore import OfficeStore, utc_now_iso
from fieldapp.sync.visitcheck import _refusal

#: The ``policy`` of the conflict records an adoption writes: the office's value was kept because
#: the copy and the office share no base (neither value can be said to be the edit).
POLICY = PLAIN_COPY_POLICY


@dataclass
class AdoptReport:
    """What :func:`adopt_copy` did.

    ``counts``: ``{table: {"inserted": n, "same": n, "differ": n, "office_only": n}}`` --
    features of the copy inserted into ``NEW``, equal to the office's, with other values than
    the office's (office kept, a conflict record per field), and office features the copy lacks
    (kept). ``conflicts``: the records written into ``NEW`` (same-field and tag-clash);
    ``already_open``: differences left out because the office holds an open record saying the
    same (the same feature, field and both values: this copy was adopted and synced before).
    """

    site_id: str
    office: str
    copy: Path
    new: Path
    office_seq: int
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    conflicts: tuple[Conflict, ...] = ()
    #: the ``--office`` value to paste into the commands the summary suggests
    office_arg: str = "PATH"
    #: differences the office already holds as open records (this copy adopted before): not repeated
    already_open: int = 0

    def format(self) -> str:
        """The summary the command prints, in the crew's words (which reading was taken)."""
        from fieldapp.store.layerwords import layer_words

        lines = [f"site {self.site_id} from {self.office} (seq {self.office_seq}) checked out to"
                 f" {self.new.name}, with the records of {self.copy.name} ({self.copy.name} unchanged)"]
        rows = [(t, c) for t, c in sorted(self.counts.items()) if any(c.values())]
        if rows:
            w = max(len(f"{layer_words(t)} ({t})") for t, _ in rows) + 2
            lines.append(f"  {'layer':<{w}}{'brought in':>11}{'same':>6}{'differ':>8}{'office only':>13}")
            for t, c in rows:
                lines.append(f"  {layer_words(t) + f' ({t})':<{w}}{c['inserted']:>11}{c['same']:>6}"
                             f"{c['differ']:>8}{c['office_only']:>13}")
        differ = [k for k in self.conflicts if k.kind is ConflictKind.SAME_FIELD]
        clashes = [k for k in self.conflicts if k.kind is ConflictKind.TAG_CLASH]
        if differ:
            lines.append(f"  {len(differ)} value(s) differ from the office's: the copy and the office have no"
                         " common base, so neither can be said to be the edit; the office's value is kept"
                         " and each difference is a conflict record holding the copy's value (ours)")
        if self.already_open:
            lines.append(f"  {self.already_open} value(s) differ as the office's open conflict records already"
                         f" say ({self.copy.name} was brought in before): no second record each")
        if clashes:
            lines.append(f"  {len(clashes)} tree(s) brought in carry a tag another tree has: both kept,"
                         " a tag-clash record each (re-tag with --resolve ID NEW_TAG)")
        for k in self.conflicts:
            what = f"{layer_words(k.layer)} ({k.layer}) {k.feature_uuid}"     # the field opens the line
            lines.append(f"  conflict {k.kind.value}: {what}: {conflict_line(k).replace('this laptop', 'copy')}"
                         f"; id={k.uuid[:8]}")
        new = shell_arg(self.new)
        if self.conflicts:
            lines.append(f"  see `fieldapp sync --office {self.office_arg} --conflicts {new}`; resolve with"
                         f" `fieldapp sync --office {self.office_arg} --resolve ID keep-mine|keep-theirs|VALUE {new}`")
        lines.append(f"  next: `fieldapp sync --office {self.office_arg} {new}` sends them to the office")
        return "\n".join(lines)


def adopt_copy(office: OfficeStore, copy_path: str | os.PathLike[str], new_path: str | os.PathLike[str], *,
               site_id: str | None = None, synced_by: str | None = None) -> AdoptReport:
    """Make ``new_path`` a laptop copy of the copy's site holding every record of the plain copy
    ``copy_path`` (the module docstring says how each record is read).

    Parameters
    ----------
    office : OfficeStore
        A folder or PostGIS office holding the copy's site.
    copy_path : path
        The plain copy (a fieldapp visit never synced). Only read: byte-identical afterwards.
    new_path : path
        The new laptop copy to make (must not exist, nor its ``.sync`` folder).
    site_id : str, optional
        The site in the office; default: the copy's own (``fieldapp_meta.site_uuid``).
    synced_by : str, optional
        Who adopts (stamped on the conflict records).

    Raises
    ------
    SyncError
        ``NEW``'s folder does not exist, or is (inside) the office folder; nothing was made.
    FileExistsError
        ``NEW`` or ``NEW.sync`` exists; nothing was made.
    VisitRefused
        The copy is missing, not a fieldapp visit, damaged, of a newer store schema than this
        fieldapp, or holds a value the store refuses.
    LaptopStateError
        The copy was synced before (its sync log has entries): not a plain copy.
    SyncError
        The office has no such site, or the copy is of another site than ``site_id``.
    InvalidOfficeRecords
        The merged visit would hold rows the store refuses (nothing was made).
    NewerSchema, OfficeNotFound, OfficeLocked, ...
        As :func:`fieldapp.sync.engine.checkout` raises them. On every error (and Ctrl+C) no
        ``NEW`` is left.
    """
    copy, new = Path(copy_path).absolute(), Path(new_path).absolute()
    adoptwork.check_new_place(office, new)
    new_state = LaptopState(new)
    for p in (new, new_state.dir):
        if p.exists() or p.is_symlink():
            raise FileExistsError(f"{p} already exists; choose a new file name. Nothing was made")
    adoptwork.clear_stale(new.parent)     # runs killed before, of any NEW here: never NEW itself
    shutil.rmtree(new.with_name(f".{new.name}.adopting"), ignore_errors=True)  # an older fieldapp's
    work = adoptwork.work_folder(new)
    work.mkdir()
    try:
        scratch = work / "copy.gpkg"
        site = _read_copy(copy, scratch, site_id)
        office.check_available()
        if office.schema(site) is None:
            raise SyncError(f"{office.describe()} has no site {site} (the site of {copy.name}): a copy"
                            " of a site this office does not have; sync it as it is to create the site,"
                            " or give the office that has it. Nothing was made")
        from fieldapp.sync import engine

        temp = engine.checkout(office, site, work / new.name)
        state = LaptopState(temp)
        state.read(site)
        _align(scratch, temp)
        report = AdoptReport(site, office.describe(), copy, new, max(log_ids(temp).values(), default=0),
                             office_arg=office_arg(office))
        ctx = ConflictContext(POLICY, f"adopt-{uuid.uuid4().hex}", report.office_seq, state.laptop_id,
                              synced_by)
        repeated: list[Conflict] = []
        report.conflicts = tuple(_merge(scratch, temp, state.base, ctx, report.counts, repeated))
        report.already_open = len(repeated)
        _check(temp, copy)
        for p in (new, new_state.dir):  # made meanwhile by another program: never replaced
            if p.exists() or p.is_symlink():
                raise FileExistsError(f"{p} was made while the copy was brought in; nothing was made")
        os.replace(state.dir, new_state.dir)   # the visit last: its name is the commit
        replace_durably(temp, new)
        fsync_dir(new.parent)
        return report
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _read_copy(copy: Path, scratch: Path, site_id: str | None) -> str:
    """Snapshot the copy read-only into ``scratch``, check it is a plain fieldapp visit (the
    sync's visit check), return its site id."""
    from fieldapp.sync import engine

    if not copy.is_file():
        raise VisitRefused(f"{copy} is not there (or not a file); nothing was made")
    try:
        with contextlib.closing(connect(copy, readonly=True)) as src, \
                contextlib.closing(register_st_functions(sqlite3.connect(scratch))) as dst:
            src.backup(dst)
    except sqlite3.Error as exc:
        raise VisitRefused(f"{copy} is damaged or not a fieldapp visit (it cannot be read as a"
                           f" GeoPackage: {exc}); nothing was made") from exc
    try:
        engine.check_visit_file(scratch)
    except VisitRefused as exc:
        text = str(exc).replace(str(scratch), str(copy)).replace("Nothing was synced", "Nothing was made")
        raise VisitRefused(f"{copy.name} cannot be brought to the office: {text}") from exc
    logged = log_ids(scratch)
    if logged:
        raise LaptopStateError(
            f"{copy.name} was synced before (its sync log has {len(logged)} changeset(s), up to seq"
            f" {max(logged.values())}): it is not a plain copy made before a first sync, and --adopt-copy"
            " would bring back what the office deleted since. Sync it with its own .sync folder, or"
            " check out a fresh copy (`--checkout SITE NEW.gpkg`). Nothing was made")
    own = site_id_of(scratch)
    if site_id is not None and own != site_id:
        raise SyncError(f"{copy.name} is a visit of site {own}, not of site {site_id}: a copy of another"
                        " site cannot be brought into this one. Nothing was made")
    return own


def _align(copy: Path, new: Path) -> None:
    """Bring the scratch copy and ``NEW`` to one store schema (the newer of the two; the next
    sync migrates the office, as for any laptop)."""
    v_copy, v_new = schemas.version_of(copy), schemas.version_of(new)
    if v_copy is None or v_new is None or v_copy == v_new:
        return
    schemas.migrate_file(copy if v_copy < v_new else new, max(v_copy, v_new))


def _record_tables(copy: Path, new: Path, work: Path) -> dict[str, tuple[str, ...]]:
    """The record tables pygeodiff would sync, with a ``uuid``, and their columns but ``fid``.
    Raises :class:`SyncError` when the copy's tables or columns are not ``NEW``'s."""
    gd = cs.new_geodiff()
    ours, theirs = cs.schema(gd, copy, work), cs.schema(gd, new, work)
    out = {}
    for name, t in sorted(ours.items()):
        if name in INTERNAL_TABLES or "uuid" not in t.columns:
            continue
        if name not in theirs or set(theirs[name].columns) != set(t.columns):
            raise SyncError(f"table {name} of the copy does not have the office site's columns (changed by"
                            " something other than fieldapp?); nothing was made")
        out[name] = tuple(c for c in t.columns if c != "fid")
    return out


def _merge(copy: Path, new: Path, base: Path, ctx: ConflictContext, counts: dict[str, dict[str, int]],
           repeated: list[Conflict]) -> list[Conflict]:
    """Bring the copy's records into ``new`` (one transaction), then the tag clashes; return the
    conflict records written. ``base`` is ``new`` as checked out (for the tag clashes); a
    difference the office already holds as an open record goes to ``repeated``, not into ``new``."""
    tables = _record_tables(copy, new, new.parent)
    tally: defaultdict[str, dict[str, int]] = defaultdict(
        lambda: {"inserted": 0, "same": 0, "differ": 0, "office_only": 0})
    conflicts: list[Conflict] = []
    ensure_sync_tables(new)
    with contextlib.closing(connect(new)) as conn:
        conn.execute("ATTACH DATABASE ? AS copy", (str(copy),))
        held = open_same_field(conn)    # the office's open records, checked out with NEW
        with conn:
            for name, cols in tables.items():
                for k in _merge_table(conn, name, cols, ctx, tally[name]):
                    (repeated if repeats_open(k, held) else conflicts).append(k)
            insert_conflicts(conn, conflicts)
        conn.execute("DETACH DATABASE copy")
    if "tree" in tables:
        clashes = tag_clashes(base, new, ctx, defaultdict(lambda: defaultdict(int)))
        with contextlib.closing(connect(new)) as conn, conn:
            insert_conflicts(conn, clashes)
        conflicts += clashes
    counts.update(tally)
    return conflicts


def _merge_table(conn: sqlite3.Connection, name: str, cols: tuple[str, ...], ctx: ConflictContext,
                 tally: dict[str, int]) -> list[Conflict]:
    """One table: insert the copy's features the office lacks, compare the ones both have
    (a conflict record per differing field, the office's value kept), count the office's own."""
    t, col_list = _qi(name), ", ".join(_qi(c) for c in cols)
    tally["office_only"] = conn.execute(
        f"SELECT count(*) FROM main.{t} WHERE uuid NOT IN (SELECT uuid FROM copy.{t})").fetchone()[0]
    compared = [c for c in cols if c != "uuid" and c not in LATEST_WINS_COLUMNS]
    select = ", ".join([f"m.{_qi(c)}" for c in compared] + [f"c.{_qi(c)}" for c in compared])
    out: list[Conflict] = []
    now, n = utc_now_iso(), len(compared)
    join = f"FROM main.{t} m JOIN copy.{t} c ON c.uuid = m.uuid"
    both = conn.execute(f"SELECT count(*) {join}").fetchone()[0]
    # only the features with a differing value come to Python (SQLite's IS: NULL-safe, a blob
    # byte for byte, 1 IS 1.0): a day's GNSS track both copies hold is compared in SQL
    unequal = " OR ".join(f"NOT (m.{_qi(c)} IS c.{_qi(c)})" for c in compared) or "0"
    tally["differ"] = 0
    for row in conn.execute(f"SELECT m.fid, m.uuid, {select} {join} WHERE {unequal} ORDER BY m.fid"):
        fid, fuuid, office, mine = row[0], row[1], row[2:2 + n], row[2 + n:]
        differing = [(c, o, m) for c, o, m in zip(compared, office, mine, strict=True) if not _same(o, m)]
        tally["differ"] += bool(differing)
        for col, o, m in differing:
            out.append(Conflict(uuid.uuid4().hex, name, fuuid, fid, col, ConflictKind.SAME_FIELD, None,
                                _encode(o), _encode(m), "theirs", POLICY, ctx.changeset_id, ctx.seq,
                                ctx.laptop_id, ctx.synced_by, now))
    tally["same"] = both - tally["differ"]
    tally["inserted"] = conn.execute(  # after the comparison: it joins the features both had
        f"INSERT INTO main.{t} ({col_list}) SELECT {col_list} FROM copy.{t}"
        f" WHERE uuid NOT IN (SELECT uuid FROM main.{t}) ORDER BY fid").rowcount
    return out


def _same(a: object, b: object) -> bool:
    """Equal values as stored (a blob byte for byte; 1 and 1.0 alike, as SQLite compares)."""
    if isinstance(a, (bytes, memoryview)) and isinstance(b, (bytes, memoryview)):
        return bytes(a) == bytes(b)
    if isinstance(a, (bytes, memoryview)) or isinstance(b, (bytes, memoryview)):
        return False
    return a == b


def _check(new: Path, copy: Path) -> None:
    """Read the merged ``NEW`` through the store before it is placed."""
    from fieldapp.sync import engine

    try:
        engine.check_received(new)
    except Exception as exc:  # noqa: BLE001 - whatever the store cannot read, we refuse
        problems, text = _refusal(exc)
        raise InvalidOfficeRecords(
            f"the office's records with those of {copy.name} would hold rows this fieldapp refuses:"
            f" {text}. Nothing was made; {copy.name} is unchanged", problems) from exc

