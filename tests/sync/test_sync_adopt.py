"""A plain copy of a visit made before its first sync reaches the office through
``--adopt-copy COPY NEW`` (fieldapp.sync.adopt): NEW is a fresh laptop copy holding the copy's
records matched by uuid; a value differing from the office's stays the office's with a
conflict record; nothing is deleted; the copy stays byte-identical; no NEW on failure."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from fieldapp.app.photos import attach_files
from fieldapp.store import create_visit, open_visit
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit
from fieldapp.sync import ConflictKind, FolderOffice, checkout, read_conflicts, sync
from fieldapp.sync.adopt import POLICY, adopt_copy
from fieldapp.sync.cli import main as cli_main
from fieldapp.sync.errors import SyncError
from fieldapp.sync.resolve import resolve_conflict
from tests.gpkgtools import st_connect, validate_gpkg
from tests.photo_sample import jpeg
from tests.sync.sync_site import make_office

X0, Y0 = 500000.0, 4983000.0  # UTM 16N
REPO = Path(__file__).resolve().parents[2]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sql(path: Path, *statements: tuple) -> None:
    with contextlib.closing(st_connect(path)) as conn, conn:   # the R-tree triggers' ST_ functions
        for s in statements:
            conn.execute(*s)


def _trees(path: Path) -> dict:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return {u: (tag, dbh, sp) for u, tag, dbh, sp in
                conn.execute("SELECT uuid, tag, dbh_in, species_code FROM tree")}


def _day(tmp_path: Path, office):
    """The tester's day: day.gpkg (trees tags 1-4) copied to dayA and dayB before any sync.
    A: T1 DBH 10 -> 20, new tree TA (tag 5); synced first (creates the site). B, offline:
    T1 DBH -> 21, T3 species -> QURU, T2 deleted, new trees TB1 (tag 5, as TA) with a photo
    and TB2 (tag 6)."""
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    day = tmp_path / "day.gpkg"
    with create_visit(day, visit):
        t = [visit.add_tree(x=X0 + 5 * i, y=Y0, dbh_in=10.0 + i, species_code="ACSA") for i in range(4)]
    a, b = tmp_path / "dayA.gpkg", tmp_path / "crewB" / "dayB.gpkg"
    b.parent.mkdir()
    shutil.copyfile(day, a)
    shutil.copyfile(day, b)
    with open_visit(a, who="a@laptop-a") as store:
        ta = store.visit.add_tree(x=X0, y=Y0 + 20, dbh_in=8.0, species_code="TIAM")
    _sql(a, ("UPDATE tree SET dbh_in = 20.0 WHERE uuid = ?", (t[0].uuid,)))
    site = sync(a, office).site_id
    with open_visit(b, who="b@laptop-b") as store:
        tb1 = store.visit.add_tree(x=X0 + 1, y=Y0 + 30, dbh_in=15.0, species_code="QUAL")
        tb2 = store.visit.add_tree(x=X0 + 2, y=Y0 + 30, dbh_in=16.0, species_code="QUAL")
        (photo,) = attach_files(store.visit, [jpeg(tmp_path / "tb1.jpg", size=(300, 200))],
                                layer=Layer.TREE, uuid=tb1.uuid).kept
    _sql(b, ("UPDATE tree SET dbh_in = 21.0 WHERE uuid = ?", (t[0].uuid,)),
         ("UPDATE tree SET species_code = 'QURU' WHERE uuid = ?", (t[2].uuid,)),
         ("DELETE FROM tree WHERE uuid = ?", (t[1].uuid,)))
    assert (ta.tag, tb1.tag, tb2.tag) == (5, 5, 6)
    return site, a, b, t, ta, tb1, tb2, photo


@pytest.mark.parametrize("kind", ["folder", "postgis"])
def test_a_plain_copys_records_reach_the_office_through_a_new_laptop_copy(kind, tmp_path, request):
    office = make_office(kind, tmp_path, request)
    site, a, b, t, ta, tb1, tb2, photo = _day(tmp_path, office)
    before = _sha(b)
    with pytest.raises(SyncError,
                       match=r"copy of another laptop.s visit.*--adopt-copy \S*dayB.gpkg \S*dayB-office.gpkg"):
        sync(b, office)
    new = tmp_path / "crewB" / "dayB-office.gpkg"
    report = adopt_copy(office, b, new)
    assert _sha(b) == before and sorted(p.name for p in b.parent.iterdir()) == [
        "dayB-office.gpkg", "dayB-office.gpkg.sync", "dayB.gpkg"]
    # office kept for T1 (20, not B's 21) and T3 (ACSA, not QURU); T2 kept though B deleted it;
    # TA (office only) kept; TB1, TB2 brought in, TB1 with the tag TA has
    assert _trees(new) == {t[0].uuid: (1, 20.0, "ACSA"), t[1].uuid: (2, 11.0, "ACSA"),
                           t[2].uuid: (3, 12.0, "ACSA"), t[3].uuid: (4, 13.0, "ACSA"),
                           ta.uuid: (5, 8.0, "TIAM"), tb1.uuid: (5, 15.0, "QUAL"), tb2.uuid: (6, 16.0, "QUAL")}
    assert report.counts["tree"] == {"inserted": 2, "same": 1, "differ": 2, "office_only": 2}
    assert report.counts["photo"] == {"inserted": 1, "same": 0, "differ": 0, "office_only": 0}
    assert report.counts["site"]["same"] == 1
    got = {(k.kind, k.feature_uuid, k.field): (k.base, k.theirs, k.ours, k.kept) for k in read_conflicts(new)}
    assert got == {
        (ConflictKind.SAME_FIELD, t[0].uuid, "dbh_in"): (None, 20.0, 21.0, "theirs"),
        (ConflictKind.SAME_FIELD, t[2].uuid, "species_code"): (None, "ACSA", "QURU", "theirs"),
        (ConflictKind.TAG_CLASH, tb1.uuid, "tag"): (None, {"uuid": ta.uuid, "tag": 5}, 5, "both"),
    }
    assert {k.policy for k in read_conflicts(new) if k.kind is ConflictKind.SAME_FIELD} == {POLICY}
    text = report.format()
    assert "no common base" in text and "office's value is kept" in text
    with open_visit(new, readonly=True) as store:       # the photo is on TB1 in NEW
        (p,) = store.visit.photos_of(Layer.TREE, tb1.uuid)
        assert (p.uuid, p.data) == (photo.uuid, photo.data)
    validate_gpkg(new)
    # NEW syncs as any laptop copy: the office gets TB1, TB2, the photo and the 3 records
    sent = sync(new, office)
    assert sent.changeset_id is not None and len(sent.conflicts) == 0   # no second tag clash
    m = tmp_path / "check.gpkg"
    checkout(office, site, m)
    assert _trees(m) == _trees(new)
    assert {k.uuid for k in read_conflicts(m)} == {k.uuid for k in read_conflicts(new)}
    with open_visit(m, readonly=True) as store:
        assert [x.uuid for x in store.visit.photos_of(Layer.TREE, tb1.uuid)] == [photo.uuid]
    if kind == "postgis":
        return      # the resolve round trip is the office's ordinary sync (kept fast: folder only)
    # the crew keeps its own DBH of T1: resolved in NEW, sent, the office has 21.0
    (k,) = [k for k in read_conflicts(new) if k.field == "dbh_in"]
    assert resolve_conflict(new, k.uuid[:8], "keep-mine")[1] == "keep-mine: dbh_in = 21.0"
    sync(new, office)
    sync(a, office)
    assert _trees(a)[t[0].uuid] == (1, 21.0, "ACSA")


def test_the_command_line_names_the_reading_and_refuses_in_field_words(tmp_path, capsys):
    office = FolderOffice(tmp_path / "office", create=True)
    site, a, b, *_ = _day(tmp_path, office)
    before = _sha(b)
    b.chmod(0o444)       # the crew's evidence, kept read-only: only read
    new = tmp_path / "new.gpkg"
    assert cli_main(["--office", str(office.root), "--adopt-copy", str(b), str(new)]) == 0
    out = capsys.readouterr().out
    assert "2 value(s) differ from the office's" in out and "conflict tag-clash" in out
    assert "Trees (tree)" in out or "(tree)" in out
    # NEW exists now: refused, nothing changed
    assert cli_main(["--office", str(office.root), "--adopt-copy", str(b), str(new)]) == 1
    assert "already exists" in capsys.readouterr().err
    # not a fieldapp visit; a newer store schema; another site: each refused, nothing made
    junk = tmp_path / "notes.gpkg"
    junk.write_text("field notes\n")
    cut = tmp_path / "cut.gpkg"          # a copy cut short (a USB stick pulled mid-copy)
    cut.write_bytes(b.read_bytes()[: b.stat().st_size // 2])
    newer = tmp_path / "newer.gpkg"
    shutil.copyfile(b, newer)
    _sql(newer, ("UPDATE fieldapp_meta SET value = '99' WHERE key = 'schema_version'",))
    other = tmp_path / "other.gpkg"
    create_visit(other, Visit.new("Other lot", crs="EPSG:32616", who="x")).close()
    for copy, words in ((junk, "damaged or not a fieldapp visit"), (cut, "damaged"), (newer, "newer"),
                        (other, "has no site"),
                        (tmp_path / "missing.gpkg", "not there")):
        target = tmp_path / f"from-{copy.stem}.gpkg"
        assert cli_main(["--office", str(office.root), "--adopt-copy", str(copy), str(target)]) == 1
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err and err.count("\n") == 1, err
        assert not target.exists() and not Path(f"{target}.sync").exists()
        assert not list(tmp_path.glob(".*adopting"))
    with pytest.raises(SyncError, match="is a visit of site .*, not of site elsewhere"):
        adopt_copy(office, b, tmp_path / "x.gpkg", site_id="elsewhere")
    assert _sha(b) == before
    assert cli_main(["--office", str(office.root), "--adopt-copy", str(b)]) == 2


def test_a_failure_or_a_kill_leaves_no_new_copy(tmp_path, monkeypatch):
    office = FolderOffice(tmp_path / "office", create=True)
    site, a, b, *_ = _day(tmp_path, office)
    before = _sha(b)
    new = tmp_path / "new.gpkg"
    from fieldapp.sync import adopt

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(adopt, "_check", interrupted)       # Ctrl+C just before NEW is placed
    with pytest.raises(KeyboardInterrupt):
        adopt_copy(office, b, new)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crewB", "day.gpkg", "dayA.gpkg", "dayA.gpkg.sync",
                                                          "office", "tb1.jpg"]
    monkeypatch.undo()
    # killed (SIGKILL) after the merge, before NEW is placed: only the scratch folder is left
    code = (f"import os, signal, sys; sys.path.insert(0, {str(REPO)!r})\n"
            "from fieldapp.sync import adopt, FolderOffice\n"
            "adopt._check = lambda *a: os.kill(os.getpid(), getattr(signal, 'SIGKILL', 9))\n"
            f"adopt.adopt_copy(FolderOffice({str(office.root)!r}), {str(b)!r}, {str(new)!r})\n")
    proc = subprocess.run([sys.executable, "-c", code], timeout=300)
    assert proc.returncode != 0
    assert not new.exists() and not Path(f"{new}.sync").exists()
    (left,) = tmp_path.glob(".new.gpkg.*.adopting")
    assert left.is_dir()
    assert _sha(b) == before
    other = tmp_path / "other.gpkg"   # the rerun under another name clears the dead run's folder
    report = adopt_copy(office, b, other)
    assert not list(tmp_path.glob(".*adopting"))
    assert report.counts["tree"]["inserted"] == 2
    validate_gpkg(other)


@pytest.mark.parametrize("older", ["copy", "office"])
def test_a_copy_at_another_store_schema_is_brought_to_the_newer_one(older, tmp_path):
    """From the schema-1 sample (trees tagged 1-3, DBH 12, 13, 14 in): one side stays a schema-1
    file, the other is opened for recording (migrated to this fieldapp's schema). A's file
    creates the site; B's copy sets tree 3's species (empty in the sample) to QURU with sqlite3
    and its DBH to 14 (as it was): NEW is at the newer schema, with one conflict (species), and syncs."""
    from tests.sync.test_sync_schema import NEWS, SITE, TREE, V1, version

    office = FolderOffice(tmp_path / "office", create=True)
    a, b = tmp_path / "a.gpkg", tmp_path / "b.gpkg"
    shutil.copyfile(V1, a)
    shutil.copyfile(V1, b)
    with open_visit(a if older == "copy" else b, who="x@laptop"):  # migrated on opening
        pass
    sync(a, office)
    _sql(b, ("UPDATE tree SET species_code = 'QURU', dbh_in = 14.0 WHERE uuid = ?", (TREE[3],)))
    before = _sha(b)
    new = tmp_path / "new.gpkg"
    report = adopt_copy(office, b, new)
    assert _sha(b) == before and version(b) == ("1" if older == "copy" else NEWS)
    assert version(new) == NEWS and version(office.master_path(SITE)) == ("1" if older == "office" else NEWS)
    assert [(k.feature_uuid, k.field, k.theirs, k.ours) for k in report.conflicts] == [
        (TREE[3], "species_code", "", "QURU")]
    assert report.counts["tree"] == {"inserted": 0, "same": 2, "differ": 1, "office_only": 0}
    sync(new, office)
    assert version(office.master_path(SITE)) == NEWS
    if older == "copy":   # a schema-1 file migrated by the sync's schemas.migrate_file (not by the
        validate_gpkg(new)  # store) keeps fieldapp_meta in gpkg_contents, as any synced one does
