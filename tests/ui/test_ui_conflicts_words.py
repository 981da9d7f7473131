"""The Conflicts view's Base / Theirs / Ours cells of a tag clash in words (the other tree by
uuid, no JSON dict), as `fieldapp sync --conflicts` says them (fieldapp.sync.conflictwords)."""

from __future__ import annotations

from fieldapp.sync import FolderOffice
from fieldapp.sync.adopt import adopt_copy
from fieldapp.ui.conflictsview import ConflictsView, field_words
from tests.sync.test_sync_adopt import _day


def test_a_tag_clash_row_names_the_other_tree_in_words(qtbot, tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    site, a, b, t, ta, tb1, tb2, photo = _day(tmp_path, office)
    new = tmp_path / "new.gpkg"
    adopt_copy(office, b, new)
    view = ConflictsView()
    qtbot.addWidget(view)
    assert view.load(new) == 3
    rows = [[view.table.item(r, c).text() for c in range(view.table.columnCount())]
            for r in range(view.table.rowCount())]
    (clash,) = [r for r in rows if r[3] == "Tag"]
    assert clash[5:8] == ["–", f"tag 5 is also on tree {ta.uuid[:8]}…", "tag 5"]
    assert "{" not in "".join(clash)
    (dbh,) = [r for r in rows if r[3] == "DBH (in)"]
    assert dbh[5:8] == ["–", "20.0", "21.0"]
    assert field_words("hdop") == "HDOP"
