"""The new-user pass (tryout5) on ``--adopt-copy`` and ``--resolve``: a tag clash is not
"resolved" with a tag another tree has, a second adoption of one copy does not duplicate the
office's open conflict records, bad NEW paths are refused in field words before anything is
made, stale working folders of killed runs are cleared, and the suggested commands and the
conflict lines are pasteable and in the crew's words."""

from __future__ import annotations

import shutil

from fieldapp.store import create_visit, open_visit
from fieldapp.survey.visit import Visit
from fieldapp.sync import ConflictKind, FolderOffice, read_conflicts, sync
from fieldapp.sync.adopt import adopt_copy
from fieldapp.sync.cli import main as cli_main
from tests.sync.test_sync_adopt import _day, _sha, _sql, _trees


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


def _open_same_field(path):
    return sorted((k.feature_uuid, k.field, k.theirs, k.ours) for k in read_conflicts(path)
                  if k.kind is ConflictKind.SAME_FIELD and k.resolved_utc is None)


def test_a_copy_adopted_again_after_its_first_adoption_synced_repeats_no_record(tmp_path):
    """dayB adopted to new1 and synced; adopted again to new2: T1's DBH and T3's species differ
    as the office's two open records already say, so new2 writes none; syncing new2 leaves the
    office with the two records, once each."""
    office = FolderOffice(tmp_path / "office", create=True)
    site, a, b, t, *_ = _day(tmp_path, office)
    want = sorted([(t[0].uuid, "dbh_in", 20.0, 21.0), (t[2].uuid, "species_code", "ACSA", "QURU")])
    new1, new2 = tmp_path / "new1.gpkg", tmp_path / "new2.gpkg"
    adopt_copy(office, b, new1)
    sync(new1, office)
    report = adopt_copy(office, b, new2)
    assert report.already_open == 2 and [k.kind for k in report.conflicts] == []
    assert "2 value(s) differ as the office's open conflict records already say" in report.format()
    assert _open_same_field(new2) == want
    sync(new2, office)
    assert _open_same_field(office.master_path(site)) == want


def _two_plain_copies(tmp_path, office):
    """day.gpkg (trees tags 1-2, DBH 10, 11 in) copied to a and b; a synced (creates the site);
    b sets tree 1's DBH to 21 in (sqlite3): a copy with a difference and nothing new."""
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    day = tmp_path / "day.gpkg"
    with create_visit(day, visit):
        t = [visit.add_tree(x=500000.0 + 5 * i, y=4983000.0, dbh_in=10.0 + i, species_code="ACSA")
             for i in range(2)]
    a, b = tmp_path / "a.gpkg", tmp_path / "b.gpkg"
    shutil.copyfile(day, a)
    shutil.copyfile(day, b)
    site = sync(a, office).site_id
    _sql(b, ("UPDATE tree SET dbh_in = 21.0 WHERE uuid = ?", (t[0].uuid,)))
    return site, t, b


def test_two_adoptions_of_one_copy_synced_one_after_the_other_say_each_difference_once(tmp_path):
    """b adopted to new1 and new2 before either syncs (two crew members, one USB stick): new1's
    sync sends the record; new2's sync pulls it and drops its own, which says the same; the
    office, new1 and new2 end with the difference once."""
    office = FolderOffice(tmp_path / "office", create=True)
    site, t, b = _two_plain_copies(tmp_path, office)
    new1, new2 = tmp_path / "new1.gpkg", tmp_path / "new2.gpkg"
    adopt_copy(office, b, new1)
    adopt_copy(office, b, new2)
    assert _open_same_field(new2) == [(t[0].uuid, "dbh_in", 10.0, 21.0)]
    sync(new1, office)
    report = sync(new2, office)
    assert report.conflict_records is None or report.conflict_records.sent == 0, report.conflict_records
    sync(new1, office)
    for path in (office.master_path(site), new1, new2):
        assert _open_same_field(path) == [(t[0].uuid, "dbh_in", 10.0, 21.0)], path


def test_a_new_copy_in_a_missing_folder_or_in_the_office_folder_is_refused_first(tmp_path, capsys):
    """NEW in a folder that is not there: refused in words, not `[Errno 2]`; NEW in the office
    folder or beside a site's master.gpkg: refused; nothing made, no tag block handed out."""
    office = FolderOffice(tmp_path / "office", create=True)
    site, t, b = _two_plain_copies(tmp_path, office)
    blocks = sorted(p.name for p in office.root.rglob("*"))
    missing = tmp_path / "nonexistent" / "dir" / "new7.gpkg"
    assert cli_main(["--office", str(office.root), "--adopt-copy", str(b), str(missing)]) == 1
    err = capsys.readouterr().err
    assert f"the folder {missing.parent} for new7.gpkg does not exist" in err and "Errno" not in err, err
    for inside in (office.root / "inoffice.gpkg", office.master_path(site).parent / "inoffice.gpkg"):
        assert cli_main(["--office", str(office.root), "--adopt-copy", str(b), str(inside)]) == 1
        err = capsys.readouterr().err
        assert f"{inside} is inside the office folder {office.root.resolve()}" in err, err
        assert not inside.exists() and not list(inside.parent.glob(".*adopting"))
    assert sorted(p.name for p in office.root.rglob("*")) == blocks
    assert not (tmp_path / "nonexistent").exists()


def test_working_folders_of_dead_adoptions_are_cleared_by_the_next_adoption_there(tmp_path):
    """Left in the folder: a dead run's (this host, a pid that has ended), a live run's (this
    host, a running process), another laptop's of a minute ago (a shared folder), an old
    fieldapp's of yesterday. The next adoption there, under another NEW name, removes the dead
    and the day-old ones and leaves the live and the other laptop's."""
    import os
    import subprocess
    import sys
    import time

    from fieldapp.sync import adoptwork

    office = FolderOffice(tmp_path / "office", create=True)
    site, t, b = _two_plain_copies(tmp_path, office)
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    host = adoptwork._host()
    try:
        names = {"dead": f".n1.gpkg.{host}.{ended.stdout.strip()}.adopting",
                 "live": f".n2.gpkg.{host}.{live.pid}.adopting",
                 "laptop": ".n3.gpkg.otherlaptop.42.adopting", "old": ".n4.gpkg.adopting"}
        for name in names.values():
            (tmp_path / name).mkdir()
            (tmp_path / name / "copy.gpkg").write_bytes(b"x" * 1000)
        day_ago = time.time() - 24 * 3600
        os.utime(tmp_path / names["old"], (day_ago, day_ago))
        adopt_copy(office, b, tmp_path / "n5.gpkg")
        assert sorted(p.name for p in tmp_path.glob(".*adopting")) == sorted([names["live"], names["laptop"]])
    finally:
        live.stdin.close()
        live.wait(timeout=60)


def _backticked(text: str) -> list[str]:
    return text.split("`")[1::2]


def test_the_suggested_commands_name_the_real_office_and_files_and_can_be_pasted(tmp_path, capsys):
    """Office and crew folders with spaces: the plain-copy refusal suggests `fieldapp sync
    --office "<office>" --adopt-copy "<copy>" "<copy stem>-office.gpkg"`; pasted (split as a
    shell does) it runs, and the summary's next command, pasted, sends the records."""
    import shlex

    office = FolderOffice(tmp_path / "the office", create=True)
    site, t, b = _two_plain_copies(tmp_path, office)
    copy = tmp_path / "crew B" / "day B.gpkg"
    copy.parent.mkdir()
    shutil.copyfile(b, copy)
    assert cli_main(["--office", str(office.root), str(copy)]) == 1
    err = capsys.readouterr().err
    new = copy.with_name("day B-office.gpkg")
    (cmd,) = [c for c in _backticked(err) if "--adopt-copy" in c]
    assert cmd == f'fieldapp sync --office "{office.root}" --adopt-copy "{copy}" "{new}"'
    assert cli_main(shlex.split(cmd)[2:]) == 0
    out = capsys.readouterr().out
    suggested = _backticked(out)
    assert f'fieldapp sync --office "{office.root}" --conflicts "{new}"' in suggested
    (nxt,) = [c for c in suggested if c.endswith(f'"{new}"') and "--conflicts" not in c and "--resolve" not in c]
    assert cli_main(shlex.split(nxt)[2:]) == 0
    assert _open_same_field(office.master_path(site)) == [(t[0].uuid, "dbh_in", 10.0, 21.0)]


def test_conflict_lines_are_in_crew_words(tmp_path, capsys):
    """A tag clash in `--conflicts` names the other tree in words (no Python dict); a
    delete-vs-edit line of the sync summary shows the note's text; HDOP reads HDOP."""
    from fieldapp.sync import checkout
    from fieldapp.sync.conflictwords import conflict_line, field_words

    office = FolderOffice(tmp_path / "office", create=True)
    site, a, b, t, ta, tb1, tb2, photo = _day(tmp_path, office)
    new = tmp_path / "new.gpkg"
    adopt_copy(office, b, new)
    assert cli_main(["--office", str(office.root), "--conflicts", str(new)]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if "tag-clash" in x]
    assert f"Trees (tree) {tb1.uuid} Tag: office tag 5 is also on tree {ta.uuid}; this laptop tag 5;" \
           " kept both trees; id=" in line and "{" not in line, line
    # a note A edits and C deletes: C's sync keeps the delete and says what the office had
    with open_visit(a, who="a@laptop-a") as store:
        note = store.visit.add_note("Beaver dam across the outlet, 40 ft upstream of the culvert",
                                    x=500010.0, y=4983010.0)
    sync(a, office)
    c = checkout(office, site, tmp_path / "c.gpkg")
    _sql(a, ("UPDATE note SET text = ? WHERE uuid = ?",
             ("Beaver dam across the outlet, 40 ft upstream of the culvert; water 2 ft over the road", note.uuid)))
    _sql(c, ("DELETE FROM note WHERE uuid = ?", (note.uuid,)))
    sync(a, office)
    out = sync(c, office).format()
    (line,) = [x for x in out.splitlines() if "delete-vs-edit" in x]
    assert f"Notes (note) {note.uuid}: whole feature: before Text 'Beaver dam across the outlet, 40 ft" in line
    assert "office Text 'Beaver dam across the outlet, 40 ft upstream of the culvert; water 2 ft" in line
    assert line.endswith("this laptop deleted; kept the delete"), line
    assert field_words("hdop") == "HDOP" and field_words("sats_used") == "Sats used"
    (k,) = [k for k in read_conflicts(c) if k.kind is ConflictKind.DELETE_VS_EDIT]
    assert conflict_line(k, None).count("water 2 ft over the road") == 1
