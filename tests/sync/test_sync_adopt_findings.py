"""The new-user pass (tryout5) on ``--adopt-copy`` and ``--resolve``: a tag clash is not
"resolved" with a tag another tree has, a second adoption of one copy does not duplicate the
office's open conflict records, bad NEW paths are refused in field words before anything is
made, stale working folders of killed runs are cleared, and the suggested commands and the
conflict lines are pasteable and in the crew's words."""

from __future__ import annotations

from fieldapp.sync import ConflictKind, FolderOffice, read_conflicts
from fieldapp.sync.cli import main as cli_main
from fieldapp.sync.adopt import adopt_copy
from tests.sync.test_sync_adopt import _day, _sha, _trees


def _clash(path):
    (k,) = [k for k in read_conflicts(path) if k.kind is ConflictKind.TAG_CLASH]
    return k


def test_a_tag_clash_is_not_resolved_with_a_tag_another_tree_has(tmp_path, capsys):
    """TB1 (tag 5) clashes with TA (tag 5). `--resolve ID 5` would leave the clash and close its
    record: refused, naming TA; so is 6, TB2's tag in the laptop's visit; 7 is free and taken."""
    office = FolderOffice(tmp_path / "office", create=True)
    site, a, b, t, ta, tb1, tb2, photo = _day(tmp_path, office)
    new = tmp_path / "new.gpkg"
    adopt_copy(office, b, new)
    k = _clash(new)
    before = _sha(new)
    for tag, holder in (("5", ta.uuid), ("6", tb2.uuid)):
        assert cli_main(["--office", str(office.root), "--resolve", k.uuid[:8], tag, str(new)]) == 1
        err = capsys.readouterr().err
        assert f"tag {tag} is tree {holder}'s too; give a tag no other tree of this site has" in err, err
        assert "Nothing was changed" in err and err.count("\n") == 1
        assert _sha(new) == before and _clash(new).resolved_utc is None
    assert cli_main(["--office", str(office.root), "--resolve", k.uuid[:8], "7", str(new)]) == 0
    assert "re-tagged: tag = 7" in capsys.readouterr().out
    assert _trees(new)[tb1.uuid][0] == 7 and _trees(new)[ta.uuid][0] == 5
    assert _clash(new).resolved_utc is not None
