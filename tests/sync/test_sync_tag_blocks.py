"""Tree tags unique across laptops (issue 17, item 9): each checkout gets its own tag block from
the office (folder and PostGIS), kept beside the visit; the model numbers new trees in it; the
app opens a visit with its block."""

from __future__ import annotations

import pytest

from fieldapp.app.visit import open_visit as app_open_visit
from fieldapp.store import create_visit
from fieldapp.store.tagblock import tag_range_of
from fieldapp.survey.visit import Visit
from fieldapp.sync import checkout, sync
from tests.sync.sync_site import make_office


@pytest.mark.parametrize("kind", ["folder", "postgis"])
def test_each_checkout_numbers_its_trees_in_its_own_block(kind, tmp_path, request):
    office = make_office(kind, tmp_path, request)
    model = Visit.new("Tag lot", crs="EPSG:32616", who="a@laptop-a")
    for i in range(3):  # laptop A tallies tags 1, 2, 3 before it ever synced
        model.add_tree(x=500000.0 + i, y=4983000.0, dbh_in=10.0 + i, species_code="ACSA")
    a = tmp_path / "a.gpkg"
    create_visit(a, model).close()
    assert tag_range_of(a) is None
    report = sync(a, office)
    # A's first sync takes block 1 (tags 1000-1999); B and C check out blocks 2 and 3
    assert tag_range_of(a) == (1000, 1999)
    b = checkout(office, report.site_id, tmp_path / "b.gpkg")
    c = checkout(office, report.site_id, tmp_path / "c.gpkg")
    assert (tag_range_of(b), tag_range_of(c)) == ((2000, 2999), (3000, 3999))
    sync(a, office)  # asking again gives the same block
    assert tag_range_of(a) == (1000, 1999)
    tags = {}
    for name, path in (("a", a), ("b", b), ("c", c)):
        ctl = app_open_visit(path)
        try:
            t1 = ctl.model.add_tree(x=500100.0, y=4983100.0, dbh_in=12.0, species_code="QURU")
            t2 = ctl.model.add_tree(x=500101.0, y=4983100.0, dbh_in=13.0, species_code="QURU")
            tags[name] = (t1.tag, t2.tag)
        finally:
            ctl.store.close()
    # B and C tally offline at once: 2000/2001 and 3000/3001, never two trees with one tag
    assert tags == {"a": (1000, 1001), "b": (2000, 2001), "c": (3000, 3001)}
    for path in (a, b, c, a, b, c):
        sync(path, office)
    ctl = app_open_visit(c)
    try:
        got = sorted(t.tag for t in ctl.model.trees())
    finally:
        ctl.store.close()
    assert got == [1, 2, 3, 1000, 1001, 2000, 2001, 3000, 3001]


def test_model_block_starts_after_the_highest_tag_in_it_and_overflows_above_all():
    v = Visit.new("Lot", crs="EPSG:32616", who="x")
    v.add_tree(x=1.0, y=1.0, dbh_in=10.0, species_code="ACSA")          # tag 1
    v.set_tag_block(2000, 2001)
    # the crew counts on from its own last tag while it stays below the blocks (issue 35 item 9:
    # the 27th tree after the first sync is 27, not 1000) ...
    assert v.next_tag() == 2
    # ... and a laptop whose user has no tree yet starts in its block
    other = Visit.new("Lot", crs="EPSG:32616", who="y")
    other.add_tree(x=1.0, y=1.0, dbh_in=10.0, species_code="ACSA", tag=1)
    other = Visit.from_records(other.site, other.trees(), who="x")
    other.set_tag_block(2000, 2001)
    assert other.next_tag() == 2000
    assert [other.add_tree(x=2.0, y=2.0, dbh_in=10.0, species_code="ACSA").tag for _ in range(3)] == [2000, 2001, 2002]
    with pytest.raises(ValueError):
        v.set_tag_block(0, 10)


def test_a_tag_clash_that_still_arises_is_a_conflict_record_and_can_be_re_tagged(tmp_path, capsys):
    """Laptop B's crew nails tag 1000 -- A's block -- on a new tree (typed by hand). B's sync
    keeps both trees and records a tag clash naming A's tree; `--resolve ID 2005` re-tags B's
    tree, and after the syncs every copy has one tree per tag."""
    import contextlib
    import sqlite3

    from fieldapp.sync import ConflictKind, FolderOffice, read_conflicts
    from fieldapp.sync.cli import main as cli_main
    from tests.gpkgtools import st_connect

    office = FolderOffice(tmp_path / "office", create=True)
    model = Visit.new("Tag lot", crs="EPSG:32616", who="a@laptop-a")
    a = tmp_path / "a.gpkg"
    create_visit(a, model).close()
    site = sync(a, office).site_id
    b = checkout(office, site, tmp_path / "b.gpkg")
    for path in (a, b):
        ctl = app_open_visit(path)
        try:
            ctl.model.add_tree(x=500100.0, y=4983100.0, dbh_in=12.0, species_code="QURU")
        finally:
            ctl.store.close()
    with contextlib.closing(st_connect(b)) as conn, conn:     # the ST_ functions its triggers need
        conn.execute("UPDATE tree SET tag = 1000")  # B's tree: 2000 -> 1000, A's tag
    sync(a, office)
    report = sync(b, office)
    (c,) = [k for k in report.conflicts if k.kind is ConflictKind.TAG_CLASH]
    a_tree = [u for (u,) in sqlite3.connect(a).execute("SELECT uuid FROM tree")]
    assert (c.field, c.ours, c.theirs["tag"], c.kept) == ("tag", 1000, 1000, "both")
    assert [c.theirs["uuid"]] == a_tree
    assert cli_main(["--office", str(office.root), "--resolve", c.uuid[:8], "2005", str(b)]) == 0
    assert "re-tagged: tag = 2005" in capsys.readouterr().out
    for path in (b, a, b):
        sync(path, office)
    for path in (a, b, office.master_path(site)):
        with contextlib.closing(sqlite3.connect(path)) as conn:
            assert sorted(t for (t,) in conn.execute("SELECT tag FROM tree")) == [1000, 2005]
        (r,) = [k for k in read_conflicts(path) if k.kind is ConflictKind.TAG_CLASH]
        assert r.resolved_utc is not None


def _add_trees(path, n):
    """Tally ``n`` trees on ``path`` through the app (numbered by the model); their tags."""
    ctl = app_open_visit(path)
    try:
        return [ctl.model.add_tree(x=500100.0 + i, y=4983100.0, dbh_in=12.0, species_code="QURU").tag
                for i in range(n)]
    finally:
        ctl.store.close()


def _retag(path, old, new):
    import contextlib

    from tests.gpkgtools import st_connect

    with contextlib.closing(st_connect(path)) as conn, conn:     # the ST_ functions its triggers need
        conn.execute("UPDATE tree SET tag = ? WHERE tag = ?", (new, old))


@pytest.mark.parametrize("kind", ["folder", "postgis"])
def test_a_used_up_block_gets_a_new_one_at_the_next_sync(kind, tmp_path, request):
    """A holds block 1 (1000-1999), B block 2. A's crew reaches 1999 (tags 1000..1998 stood in
    for by one tree re-tagged 1998) and tallies on offline: the tally says the block is used up
    and numbers 2000, 2001 (one above the highest tag on A). A's sync then takes a new block
    above every block given and every tag at the office: block 3 (3000-3999), and asking again
    gives the same; B, never used up, keeps block 2."""
    from fieldapp.app.recording import tag_block_words as _tag_words

    office = make_office(kind, tmp_path, request)
    a = tmp_path / "a.gpkg"
    create_visit(a, Visit.new("Tag lot", crs="EPSG:32616", who="a@laptop-a")).close()
    site = sync(a, office).site_id
    b = checkout(office, site, tmp_path / "b.gpkg")
    assert (tag_range_of(a), tag_range_of(b)) == ((1000, 1999), (2000, 2999))
    assert _add_trees(a, 1) == [1000]
    _retag(a, 1000, 1998)
    ctl = app_open_visit(a)
    try:
        assert ctl.model.add_tree(x=500200.0, y=4983100.0, dbh_in=11.0, species_code="ACSA").tag == 1999
        assert ctl.model.tag_block_used_up and ctl.model.next_tag() == 2000
        assert _tag_words(ctl.model).startswith(
            "This laptop's tags 1000–1999 are used up: next tag 2000, one above the highest tag on this laptop.")
        assert [ctl.model.add_tree(x=500300.0 + i, y=4983100.0, dbh_in=11.0, species_code="ACSA").tag
                for i in range(2)] == [2000, 2001]
    finally:
        ctl.store.close()
    sync(a, office)
    assert tag_range_of(a) == (3000, 3999)
    sync(a, office)
    assert tag_range_of(a) == (3000, 3999)               # the same block when asked again
    assert _add_trees(a, 1) == [3000]
    sync(b, office)
    assert tag_range_of(b) == (2000, 2999)
    # C checks out now: above A's block 3
    c = checkout(office, site, tmp_path / "c.gpkg")
    assert tag_range_of(c) == (4000, 4999)


def test_a_new_block_skips_blocks_holding_tags_already_on_trees(tmp_path):
    """Trees tagged 5120 (typed by hand) are at the office: the next block given is 6."""
    from fieldapp.sync import FolderOffice

    office = FolderOffice(tmp_path / "office", create=True)
    a = tmp_path / "a.gpkg"
    create_visit(a, Visit.new("Tag lot", crs="EPSG:32616", who="a@laptop-a")).close()
    site = sync(a, office).site_id
    _add_trees(a, 1)
    _retag(a, 1000, 5120)
    sync(a, office)
    assert tag_range_of(checkout(office, site, tmp_path / "b.gpkg")) == (6000, 6999)


def test_a_hand_edited_duplicate_tag_is_flagged_for_the_laptop_that_only_sends_it(tmp_path):
    """B's crew, with sqlite3, gives its new tree (2000) tag 1 and the office's tree 2 tag 1 too:
    both now carry the tag of A's tree 1. B's sync receives nothing (nobody synced since its
    checkout) and still records both clashes, in its report and its visit (it used to find a
    clash only when it also received). A then receives the trees and the two records, and
    writes no record of its own; a sync of B again writes no second record."""
    import contextlib
    import sqlite3

    from fieldapp.sync import ConflictKind, FolderOffice, read_conflicts

    office = FolderOffice(tmp_path / "office", create=True)
    model = Visit.new("Tag lot", crs="EPSG:32616", who="a@laptop-a")
    for i in range(2):
        model.add_tree(x=500000.0 + i, y=4983000.0, dbh_in=10.0 + i, species_code="ACSA")  # tags 1, 2
    a = tmp_path / "a.gpkg"
    create_visit(a, model).close()
    site = sync(a, office).site_id
    b = checkout(office, site, tmp_path / "b.gpkg")
    assert _add_trees(b, 1) == [2000]
    with contextlib.closing(sqlite3.connect(a)) as conn:
        by_tag = dict(conn.execute("SELECT tag, uuid FROM tree"))
    _retag(b, 2000, 1)
    _retag(b, 2, 1)
    report = sync(b, office)
    assert report.changeset_id is not None and report.office_seq == 2
    got = sorted((k.feature_uuid == by_tag[2], k.ours, k.theirs["tag"], k.kept)
                 for k in report.conflicts if k.kind is ConflictKind.TAG_CLASH)
    assert got == [(False, 1, 1, "both"), (True, 1, 1, "both")]
    assert {c.layer: c.conflicts for c in report.layers}["tree"] == 2
    in_b = [k for k in read_conflicts(b) if k.kind is ConflictKind.TAG_CLASH]
    assert {k.uuid for k in in_b} == {k.uuid for k in report.conflicts}
    received = sync(a, office)
    assert received.conflicts == () and received.conflict_records.received == 2
    assert {k.uuid for k in read_conflicts(a)} == {k.uuid for k in in_b}
    assert sync(b, office).conflicts == ()


def test_a_script_opening_the_visit_through_the_store_numbers_in_the_block(tmp_path):
    """Issue 30, item 13: a script (or command) that opens the visit with
    ``fieldapp.store.open_visit`` gets the copy's tag block too, not the next tag after the
    highest in the file (which lies in another laptop's block)."""
    from fieldapp.store import open_visit as store_open_visit
    from fieldapp.sync import FolderOffice

    office = FolderOffice(tmp_path / "office", create=True)
    a = tmp_path / "a.gpkg"
    create_visit(a, Visit.new("Tag lot", crs="EPSG:32616", who="a@laptop-a")).close()
    site = sync(a, office).site_id
    b = checkout(office, site, tmp_path / "b.gpkg")
    assert tag_range_of(b) == (2000, 2999)
    store = store_open_visit(b, who="script@laptop-b")
    try:
        assert store.visit.tag_block == (2000, 2999)
        tree = store.visit.add_tree(x=500100.0, y=4983100.0, dbh_in=12.0, species_code="QURU")
    finally:
        store.close()
    assert tree.tag == 2000
    reopened = store_open_visit(b, readonly=True)
    try:
        assert [t.tag for t in reopened.visit.trees()] == [2000]
    finally:
        reopened.close()
