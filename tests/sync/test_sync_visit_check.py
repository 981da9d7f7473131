"""The sync's visit check is remembered by content hash, never trusted past a change.

A sync records in ``VISIT.gpkg.sync/validated.json`` the SHA-256 of the visit's bytes as they
last passed the full read through the store, and a later sync skips that read only when the
file hashes the same (see :mod:`fieldapp.sync.engine`). These tests count the full reads (calls
of ``fieldapp.store.open_visit``) instead of timing anything, and change the visit behind the
sync's back in the ways a size/mtime fingerprint or a hash of the ``.gpkg`` alone would miss.

Visits are real store visits (:func:`fieldapp.store.create_visit`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

import pytest

import fieldapp.store
from fieldapp.store import create_visit, open_visit
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit
from fieldapp.sync import FolderOffice, InvalidOfficeRecords, VisitRefused, checkout, engine, sync
from tests.gpkgtools import st_connect

X0, Y0 = 500000.0, 4983000.0  # UTM 16N


def make_visit(path: Path, trees: int = 3) -> Path:
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    store = create_visit(path, visit)
    for i in range(trees):
        visit.add_tree(x=X0 + 5 * i, y=Y0, dbh_in=10.0 + i, species_code="ACSA")
    store.close()
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record(visit: Path) -> dict:
    return json.loads((visit.with_name(visit.name + ".sync") / "validated.json").read_text())


@pytest.fixture
def full_reads(monkeypatch):
    """How many times the store read a whole visit (``open_visit``) since the last clear()."""
    calls: list[Path] = []
    real = fieldapp.store.open_visit

    def counting(path, *args, **kwargs):
        calls.append(Path(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fieldapp.store, "open_visit", counting)
    return calls


@pytest.fixture
def synced(tmp_path, full_reads):
    office = FolderOffice(tmp_path / "office", create=True)
    visit = make_visit(tmp_path / "visit.gpkg")
    sync(visit, office)
    full_reads.clear()
    return office, visit


def test_record_is_the_synced_files_hash_and_a_no_op_sync_skips_the_full_read(synced, full_reads):
    office, visit = synced
    # the first sync changed the visit (its sync tables, its log row) and read it again at the
    # end: the record is the hash of the file as it is now
    assert record(visit)["sha256"] == sha(visit)
    before = sha(visit)
    report = sync(visit, office)
    assert report.no_op and full_reads == [] and sha(visit) == before


def test_bad_row_written_behind_the_syncs_back_is_refused(synced, full_reads):
    # the tester's case: a value the store cannot read, written with sqlite3 after a good sync,
    # with the file's size and mtime put back (as cp -p / rsync -t / touch -r would keep them)
    office, visit = synced
    st = visit.stat()
    with contextlib.closing(st_connect(visit)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 'abc' WHERE fid = 1")
    os.utime(visit, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (visit.stat().st_size, visit.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert sha(visit) != record(visit)["sha256"]
    before, recorded, head = sha(visit), record(visit), office.head(engine.site_id_of(visit))
    with pytest.raises(VisitRefused, match="dbh_in is 'abc'"):
        sync(visit, office)
    assert full_reads == [visit]  # the hash differed, so the store read the whole file
    assert sha(visit) == before and record(visit) == recorded
    assert office.head(engine.site_id_of(visit)) == head  # nothing sent


def test_bad_row_still_in_the_wal_is_refused(synced, full_reads):
    # another program (QGIS, say) has the visit open in WAL mode while it is synced; then a bad
    # row is committed into the -wal only: the .gpkg's bytes are exactly the ones recorded, yet
    # the sync must read it all (fieldapp itself holds the visit's lock while it records: its
    # own open store is refused below)
    office, visit = synced
    with contextlib.closing(st_connect(visit)) as holder:   # WAL mode: the -wal stays
        holder.execute("PRAGMA journal_mode=WAL")
        sync(visit, office)
        assert record(visit)["sha256"] == sha(visit)
        with holder:
            holder.execute("UPDATE tree SET dbh_in = 'abc' WHERE fid = 1")
        assert visit.with_name(visit.name + "-wal").stat().st_size > 0
        assert record(visit)["sha256"] == sha(visit)  # the .gpkg alone has not changed
        full_reads.clear()
        with pytest.raises(VisitRefused, match="dbh_in is 'abc'"):
            sync(visit, office)
        assert full_reads == [visit] and record(visit)["sha256"] == sha(visit)


def test_a_visit_open_for_recording_is_not_synced_under_the_app(synced, full_reads):
    # the app records into the visit: a sync from the command line would change the file under
    # the app's model (received edits it does not know of, and would write over): refused before
    # anything is written; once the app has closed it, the sync runs
    office, visit = synced
    before = sha(visit)
    with open_visit(visit, who="a@laptop-a") as store:
        store.visit.add_note("culvert")
        store.checkpoint()
        recorded = sha(visit)
        with pytest.raises(VisitRefused, match=r"open in another fieldapp window or program"
                                               r".*nothing was synced"):
            sync(visit, office)
        assert sha(visit) == recorded != before and full_reads == []
    report = sync(visit, office)
    assert report.totals().sent == 1
    # the summary names the site as the crew named it, its id beside it
    with open_visit(visit, readonly=True) as reader:
        name = reader.visit.site.name
    assert report.format().splitlines()[0].startswith(f"site {name} ({report.site_id}) <-> ")


def test_a_checkout_holds_its_new_visit_so_no_window_makes_one_there_meanwhile(synced, monkeypatch):
    # a checkout from a slow office share takes a while: a window making (or opening) a visit
    # at the same path meanwhile is refused, and the checkout's copy is placed whole
    office, visit = synced
    ((site_id, _name, _head),) = office.list_sites()
    target = visit.with_name("crew2.gpkg")
    refusals = []
    fetch = office.fetch_master

    def slow_fetch(sid, dest):
        with pytest.raises(fieldapp.store.VisitInUse):
            create_visit(target, Visit.new("made meanwhile"))
        refusals.append(target.exists())
        fetch(sid, dest)
    monkeypatch.setattr(office, "fetch_master", slow_fetch)
    assert checkout(office, site_id, target) == target
    assert refusals == [False]
    with open_visit(target, readonly=True) as copy, open_visit(visit, readonly=True) as mine:
        assert copy.visit.site.name == mine.visit.site.name


def test_record_of_another_check_version_or_damaged_is_not_trusted(synced, full_reads):
    office, visit = synced
    path = visit.with_name(visit.name + ".sync") / "validated.json"
    data = record(visit)
    path.write_text(json.dumps({**data, "checker": "fieldapp 0.0.1; schema 1; check 0"}))
    assert sync(visit, office).no_op
    assert full_reads == [visit]  # an older check vouched for it: read again, then re-recorded
    assert record(visit)["checker"] == data["checker"] and record(visit)["sha256"] == sha(visit)
    full_reads.clear()
    path.write_text("{not json")
    assert sync(visit, office).no_op and full_reads == [visit]
    assert record(visit)["sha256"] == sha(visit)


def test_value_from_the_office_the_store_refuses_is_refused_on_pull(tmp_path, full_reads, monkeypatch):
    # laptop A gets 'abc' past its own check (as an older fieldapp, or QGIS on A's file, could)
    # and sends it; B's pull reads what its visit would become (a scratch copy) through the
    # store and refuses it, naming the row: B's visit and its record are untouched, and B's own
    # check still skips the full read of B (the same bytes passed it before). More cases in
    # test_sync_received.py.
    office = FolderOffice(tmp_path / "office", create=True)
    a = make_visit(tmp_path / "a.gpkg")
    site = sync(a, office).site_id              # the first sync adds the sync tables too
    assert full_reads.count(a) == 1 and record(a)["sha256"] == sha(a)
    b = checkout(office, site, tmp_path / "b.gpkg")
    assert sync(b, office).no_op
    assert record(b)["sha256"] == sha(b)
    with contextlib.closing(st_connect(a)) as conn, conn:
        (uuid,) = conn.execute("SELECT uuid FROM tree WHERE fid = 1").fetchone()
        conn.execute("UPDATE tree SET dbh_in = 'abc' WHERE fid = 1")
    with monkeypatch.context() as mp:
        mp.setattr(engine, "check_visit_file", lambda v, known_sha256=None: engine.check_visit_basics(v))
        sync(a, office)
    before, recorded = sha(b), record(b)
    full_reads.clear()
    with pytest.raises(InvalidOfficeRecords, match=f"layer tree, feature {uuid} \\(fid 1\\), column dbh_in:"
                       " 'abc' is not a number -- set by office changeset seq 2"):
        sync(b, office)
    assert [p.parent for p in full_reads] == [b.with_name("b.gpkg.sync") / "work"]  # scratch only
    assert sha(b) == before and record(b) == recorded
    with open_visit(b, readonly=True) as store:  # the store still opens B's visit
        assert store.visit.get(Layer.TREE, uuid).dbh_in == 10.0
    with contextlib.closing(st_connect(a)) as conn, conn:  # A corrects the row and sends it
        conn.execute("UPDATE tree SET dbh_in = 15.0 WHERE fid = 1")
    sync(a, office)
    report = sync(b, office)
    assert [(c.layer, c.received) for c in report.layers] == [("tree", 1)]  # dbh_in 10 -> 15
    assert record(b)["sha256"] == sha(b)


def test_a_sync_does_not_read_the_visit_again_at_the_end(tmp_path, full_reads):
    """What a sync writes into the visit is the office copy the store has just read in full
    (checked before anything is sent), or with nothing received the visit's own rows as they
    were read at the start: either read vouches for the new bytes, so the visit itself is read
    once, at the start."""
    office = FolderOffice(tmp_path / "office", create=True)
    a = make_visit(tmp_path / "a.gpkg")
    site = sync(a, office).site_id
    b = checkout(office, site, tmp_path / "b.gpkg")
    full_reads.clear()
    for path, who, dbh in ((a, "a@laptop-a", 30.0), (b, "b@laptop-b", 40.0)):
        with open_visit(path, who=who) as store:
            tree = store.visit.features(Layer.TREE)[0]
            store.visit.update_feature(Layer.TREE, tree.uuid, dbh_in=dbh + (path == b))
    sync(a, office)          # sends only: the snapshot is the bytes read at the start
    assert full_reads.count(a) == 1 and record(a)["sha256"] == sha(a)
    full_reads.clear()
    report = sync(b, office)                    # receives A's edit and sends its own
    assert report.totals().received and report.totals().sent
    assert full_reads.count(b) == 1             # the start only; the scratch copies were read
    assert len(full_reads) >= 2 and record(b)["sha256"] == sha(b)
    with open_visit(b, readonly=True) as store:  # and what was recorded is a visit the store reads
        assert len(store.visit.features(Layer.TREE)) == 3
    full_reads.clear()
    assert sync(b, office).no_op and full_reads == []   # the record holds for the next sync


def test_a_write_between_the_check_and_the_snapshot_is_read_again_at_the_end(synced, full_reads, monkeypatch):
    """A row written after the start check and before the snapshot is in what is sent: the
    sync cannot vouch for it, so the visit is read in full again at the end (and a bad row
    written so loses its record)."""
    from fieldapp.sync import phases

    office, visit = synced
    with open_visit(visit, who="a@laptop-a") as store:
        store.visit.add_tree(x=X0 + 50, y=Y0, dbh_in=9.0, species_code="ACSA")
    full_reads.clear()
    real = phases.snapshot_sqlite

    def late_edit(src, dst):
        with contextlib.closing(st_connect(src)) as conn, conn:
            conn.execute("UPDATE tree SET species_code = 'QURU' WHERE fid = 1")
        return real(src, dst)

    monkeypatch.setattr(phases, "snapshot_sqlite", late_edit)
    sync(visit, office)
    assert full_reads.count(visit) == 2 and record(visit)["sha256"] == sha(visit)


@pytest.mark.parametrize("change, refusal", [
    ("UPDATE tree SET dbh_in = 'abc' WHERE fid = 1", "dbh_in is 'abc'"),
    ("CREATE TRIGGER t_dbh AFTER INSERT ON tree BEGIN UPDATE tree SET dbh_in = 1; END", "t_dbh"),
])
def test_a_write_after_the_finalize_is_checked_in_full_at_the_next_sync(synced, full_reads, monkeypatch,
                                                                        change, refusal):
    """The end of a sync records the hash the finalize's bytes had (vouched for by the reads the
    sync made) without reading or hashing the visit again; a write after the finalize (a bad
    value, a trigger) changes the file's hash, so the record does not hold for it: the next
    sync checks the visit in full and refuses it, naming what is wrong."""
    office, visit = synced
    with open_visit(visit, who="a@laptop-a") as store:      # something to send
        store.visit.add_tree(x=X0 + 50, y=Y0, dbh_in=9.0, species_code="ACSA")
    full_reads.clear()
    real = engine._keep_tag_block
    finalized: list[str] = []

    def then_written(office_, state, visit_):    # after the finalize, before the record
        real(office_, state, visit_)
        finalized.append(sha(visit_))
        with contextlib.closing(st_connect(visit_)) as conn, conn:
            conn.execute(change)

    monkeypatch.setattr(engine, "_keep_tag_block", then_written)
    assert sync(visit, office).totals().sent == 1           # the sync itself stands
    monkeypatch.setattr(engine, "_keep_tag_block", real)
    assert full_reads == [visit]                            # the start only
    assert record(visit)["sha256"] == finalized[0] != sha(visit)
    before = sha(visit)
    with pytest.raises(VisitRefused, match=refusal):
        sync(visit, office)
    assert sha(visit) == before


def test_the_end_of_a_sync_checks_nothing_again_when_the_visit_is_as_vouched(synced, monkeypatch):
    """The visit as the finalize left it is recorded without the basics, the store's own check,
    the schema check or a hash being run again: the next sync runs the checks first."""
    from fieldapp.sync import visitcheck

    office, visit = synced
    with open_visit(visit, who="a@laptop-a") as store:
        store.visit.add_tree(x=X0 + 50, y=Y0, dbh_in=9.0, species_code="ACSA")
    checks: list[str | None] = []
    real = engine.check_visit_file

    def counting(path, *, known_sha256=None):
        checks.append(known_sha256)
        return real(path, known_sha256=known_sha256)

    monkeypatch.setattr(engine, "check_visit_file", counting)
    hashes = []
    real_fp = visitcheck.visit_fingerprint
    monkeypatch.setattr(engine, "visit_fingerprint", lambda p: hashes.append(p) or real_fp(p))
    sync(visit, office)
    assert len(checks) == 1 and record(visit)["sha256"] == sha(visit)
    assert len(hashes) == 1             # _prepare_laptop's, before its writes; none at the end
    assert sync(visit, office).no_op and len(checks) == 2     # and the record holds
