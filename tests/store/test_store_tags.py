"""Tree tags stay unique: the next tag comes from a running maximum (not a scan of the tally),
kept through delete, undo, restore, and reopening the visit file."""

from __future__ import annotations

from fieldapp.store import create_visit, open_visit
from fieldapp.survey import Layer, Visit

X0, Y0 = 500_000.0, 4_983_000.0


def tags(visit):
    return sorted(t.tag for t in visit.trees())


def add(visit, i=0):
    return visit.add_tree(x=X0 + i, y=Y0, dbh_in=12.0)


def assert_unique(visit):
    got = tags(visit)
    assert len(got) == len(set(got)), got


def test_tags_count_up_from_one():
    v = Visit.new("tally", crs="EPSG:32616", who="t")
    assert [add(v, i).tag for i in range(3)] == [1, 2, 3]


def test_deleting_the_highest_tag_does_not_give_it_again():
    v = Visit.new("tally", crs="EPSG:32616", who="t")
    _t1, _t2, t3 = add(v), add(v), add(v)
    v.delete_tree(t3.uuid)
    # tag 3 is in the recycle bin and can come back: the next tree is 4 (a scan of the
    # remaining trees would have given 3 again)
    t4 = add(v)
    assert t4.tag == 4
    v.restore(t3.uuid)
    assert tags(v) == [1, 2, 3, 4]


def test_undo_of_a_delete_and_of_an_add_keep_tags_unique():
    v = Visit.new("tally", crs="EPSG:32616", who="t")
    _t1, t2 = add(v), add(v)
    v.delete_tree(t2.uuid)
    t3 = add(v)  # 3, not 2
    v.undo()  # takes tree 3 away
    v.undo()  # brings tree 2 back
    assert tags(v) == [1, 2]
    t4 = add(v)  # 3 was used (it may be restored): 4
    assert t4.tag == 4
    v.restore(t3.uuid)
    assert tags(v) == [1, 2, 3, 4]
    assert_unique(v)


def test_an_updated_tag_raises_the_maximum():
    v = Visit.new("tally", crs="EPSG:32616", who="t")
    t1 = add(v)
    v.update_tree(t1.uuid, tag=40)  # the crew renumbers to the physical tag
    assert add(v).tag == 41


def test_reopened_visit_continues_after_the_highest_tag_in_the_file(tmp_path):
    path = tmp_path / "tally.gpkg"
    v = Visit.new("tally", crs="EPSG:32616", who="t")
    store = create_visit(path, v)
    trees = [add(v, i) for i in range(5)]  # tags 1..5
    v.delete_tree(trees[4].uuid)  # 5 gone for good once the session ends
    v.delete_tree(trees[1].uuid)  # 2 gone
    v.update_tree(trees[2].uuid, tag=9)  # 3 renumbered 9
    store.close()

    store = open_visit(path)
    v2 = store.visit
    assert tags(v2) == [1, 4, 9]
    t = add(v2)
    assert t.tag == 10  # highest in the file (9) + 1, however the rows are ordered
    v2.delete_tree(t.uuid)
    assert add(v2).tag == 11
    v2.undo()
    v2.undo()  # tree 10 back
    assert tags(v2) == [1, 4, 9, 10]
    assert add(v2).tag == 12
    assert_unique(v2)
    store.close()
    with open_visit(path, readonly=True) as ro:
        assert tags(ro.visit) == [1, 4, 9, 10, 12]
        # in file (fid) order the highest tag is not last: tree 9 is the third row
        assert [t.tag for t in ro.visit.features(Layer.TREE)] == [1, 9, 4, 10, 12]
