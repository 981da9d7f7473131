"""Tree tags unique across laptops (issue 17, item 9): each checkout gets its own tag block from
the office (folder and PostGIS), kept beside the visit; the model numbers new trees in it; the
app opens a visit with its block."""

from __future__ import annotations

import pytest

from tests.sync.test_sync import make_office
from fieldapp.app.visit import open_visit as app_open_visit
from fieldapp.store import create_visit
from fieldapp.survey.visit import Visit
from fieldapp.sync import checkout, sync
from fieldapp.sync.laptop import tag_range_of


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
    assert v.next_tag() == 2000
    assert [v.add_tree(x=2.0, y=2.0, dbh_in=10.0, species_code="ACSA").tag for _ in range(3)] == [2000, 2001, 2002]
    with pytest.raises(ValueError):
        v.set_tag_block(0, 10)
