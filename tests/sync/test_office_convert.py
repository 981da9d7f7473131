"""Converting a folder office of format 1 (site folders named by the id) to format 2 (named by
the site, the id inside): ``fieldapp sync --office PATH --upgrade-office`` (issue 35 item 15).

Real folders and real syncs through the CLI: every site renamed under its locks, the marker
written last, a rename Windows refuses (a file open on the share) reported and finished by the
next run, a run killed half-way finished by the next one, a site name Windows cannot take, and
a laptop on a fieldapp that knows only format 1 refused in words instead of making the site
again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from fieldapp.store import create_visit
from fieldapp.survey.visit import Visit
from fieldapp.sync import FolderOffice, officeconvert
from fieldapp.sync import office as office_module
from fieldapp.sync.cli import main as sync_main
from fieldapp.sync.office import OFFICE_MARKER
from fieldapp.sync.sitefolders import SITE_ID_FILE

NAMES = ("Mill Creek", "Mill Creek", "CON: north/bank?")


def new_visit(tmp_path, name: str, file: str):
    path = tmp_path / file
    create_visit(path, Visit.new(name, crs="EPSG:32616", who="a@laptop-a")).close()
    return path


def cli(office, *args) -> int:
    return sync_main(["--office", str(office), *map(str, args)])


def marker(office) -> dict:
    return json.loads((office / OFFICE_MARKER).read_text(encoding="utf-8"))


@pytest.fixture
def old_office(tmp_path, capsys):
    """A format-1 office with three synced sites (two of one name, one no Windows folder can be
    called); returns (office, {site id: visit path})."""
    office = tmp_path / "office"
    office.mkdir()
    (office / OFFICE_MARKER).write_text(json.dumps({"format": "fieldapp-office", "version": 1}),
                                        encoding="utf-8")
    visits = {}
    for n, name in enumerate(NAMES):
        visit = new_visit(tmp_path, name, f"v{n}.gpkg")
        before = set((office / "sites").iterdir()) if (office / "sites").exists() else set()
        assert cli(office, visit) == 0, capsys.readouterr().err
        (folder,) = set((office / "sites").iterdir()) - before
        visits[folder.name] = visit
    capsys.readouterr()
    return office, visits


def folders(office) -> set[str]:
    return {p.name for p in (office / "sites").iterdir()}


def ids_inside(office) -> dict[str, str]:
    return {p.name: (p / SITE_ID_FILE).read_text(encoding="utf-8").strip()
            for p in (office / "sites").iterdir() if (p / SITE_ID_FILE).exists()}


def test_upgrade_renames_every_site_after_its_name_and_laptops_sync_on(old_office, capsys):
    office, visits = old_office
    assert folders(office) == set(visits)                       # named by the id
    assert cli(office, "--upgrade-office") == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "is up to date" in out and "moved to sites/Mill Creek (2)" in out
    # named by the site, a Windows-safe name for "CON: north/bank?", each id kept inside
    assert folders(office) == {"Mill Creek", "Mill Creek (2)", "CON_ north_bank_"}
    assert sorted(ids_inside(office).values()) == sorted(visits)
    assert marker(office) == {"format": "fieldapp-office", "version": 2}   # written last, final
    assert not (office / "locks").exists()
    assert not any((office / "sites" / f / "lock").exists() for f in folders(office))
    # every site's history and master went along; the laptops sync on into the named folders
    off = FolderOffice(office)
    for site_id, visit in visits.items():
        assert off.head(site_id) == 1
        assert cli(office, visit) == 0, capsys.readouterr().err
        assert off.master_path(site_id).parent.name in {"Mill Creek", "Mill Creek (2)", "CON_ north_bank_"}
    assert len(folders(office)) == 3
    # a second run finds nothing to do and changes nothing
    assert cli(office, "--upgrade-office") == 0
    assert "is up to date" in capsys.readouterr().out and len(folders(office)) == 3
    listed = off.list_sites()
    assert {i for i, _, _ in listed} == set(visits)
    assert {n for _, n, _ in listed} == {"Mill Creek", "CON: north/bank?"}


def test_a_rename_refused_on_windows_is_reported_and_the_next_run_finishes(
        old_office, capsys, monkeypatch):
    office, visits = old_office
    refused = sorted(visits)[1]
    real_rename = os.rename

    def rename(src, dst):
        if os.path.basename(src) == refused:    # Windows: a file in the folder is open on the share
            raise PermissionError(13, "The process cannot access the file because it is being"
                                      " used by another process", str(src))
        real_rename(src, dst)

    monkeypatch.setattr(officeconvert.os, "rename", rename)
    assert cli(office, "--upgrade-office", "-q") == 1
    err = capsys.readouterr().err
    assert f"stays in sites/{refused}: a file in its folder is open" in err
    assert "Run fieldapp sync --office PATH --upgrade-office again to finish" in err
    assert "Traceback" not in err
    # not half moved, not in two folders: the refused site is whole in its old folder, its id
    # inside; the others renamed; the marker says format 2, conversion not finished
    assert refused in folders(office) and len(folders(office)) == 3
    assert (office / "sites" / refused / "master.gpkg").is_file()
    assert ids_inside(office)[refused] == refused
    assert marker(office) == {"format": "fieldapp-office", "version": 2, "converting_from": 1}
    assert not (office / "locks").exists() and not (office / "sites" / refused / "lock").exists()
    # meanwhile the site syncs where it is: no second folder is made for it
    assert cli(office, visits[refused]) == 0, capsys.readouterr().err
    assert FolderOffice(office).master_path(refused).parent.name == refused
    assert len(folders(office)) == 3
    # the file closed, the next run finishes, the marker written last
    monkeypatch.setattr(officeconvert.os, "rename", real_rename)
    assert cli(office, "--upgrade-office", "-q") == 0, capsys.readouterr().err
    assert refused not in folders(office) and len(folders(office)) == 3
    assert marker(office) == {"format": "fieldapp-office", "version": 2}
    assert FolderOffice(office).head(refused) == 1     # an unchanged visit sends nothing


def test_a_conversion_killed_half_way_is_finished_by_the_next_run(old_office, capsys):
    """The process dies (``os._exit``, as a kill) right after the second site's folder was
    renamed, still holding its locks: the next run finds its own dead locks, renames the rest,
    removes what it left, and writes the marker."""
    office, visits = old_office
    script = textwrap.dedent(f"""
        import os
        from fieldapp.sync import officeconvert
        from fieldapp.sync.office import FolderOffice
        real = officeconvert._rename_to_free_name
        done = []
        def rename(*a):
            done.append(real(*a))
            if len(done) == 2:
                os._exit(9)
            return done[-1]
        officeconvert._rename_to_free_name = rename
        officeconvert.convert_office(FolderOffice({str(office)!r}))
        """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 9, run.stderr
    assert marker(office)["converting_from"] == 1
    assert len(folders(office)) == 3
    assert sum(name in visits for name in folders(office)) == 1         # one left to rename
    assert any((office / "sites" / f / "lock").exists() for f in folders(office))   # the dead one's
    assert list((office / "locks").iterdir())
    # a laptop syncing before the next run: every site found by its id, none made again
    for visit in visits.values():
        assert cli(office, visit) == 0, capsys.readouterr().err
    assert len(folders(office)) == 3
    assert cli(office, "--upgrade-office", "-q") == 0, capsys.readouterr().err
    assert folders(office) == {"Mill Creek", "Mill Creek (2)", "CON_ north_bank_"}
    assert marker(office) == {"format": "fieldapp-office", "version": 2}
    assert not (office / "locks").exists()
    assert not any((office / "sites" / f / "lock").exists() for f in folders(office))
    assert all(FolderOffice(office).head(i) == 1 for i in visits)


def test_a_site_a_format_1_laptop_made_mid_conversion_is_found_and_converted(old_office, capsys):
    """A folder named by the id without ``site-id`` (made by a format-1 laptop between step 1
    and the marker) in an office marked format 2: found by its name, synced there, renamed."""
    office, visits = old_office
    lone = sorted(visits)[0]
    (office / OFFICE_MARKER).write_text(
        json.dumps({"format": "fieldapp-office", "version": 2, "converting_from": 1}), encoding="utf-8")
    assert not (office / "sites" / lone / SITE_ID_FILE).exists()
    assert lone in {i for i, _, _ in FolderOffice(office).list_sites()}
    assert cli(office, visits[lone]) == 0, capsys.readouterr().err
    assert len(folders(office)) == 3 and FolderOffice(office).head(lone) == 1
    assert cli(office, "--upgrade-office", "-q") == 0, capsys.readouterr().err
    assert sorted(ids_inside(office).values()) == sorted(visits) and lone not in folders(office)


def test_a_laptop_on_format_1_meets_the_converted_office_and_is_refused_in_words(
        old_office, capsys, monkeypatch):
    """What a fieldapp that knows format 1 only does (its marker check, the same code as today's
    with version 1): refused before it locks or writes anything, saying to update."""
    office, visits = old_office
    assert cli(office, "--upgrade-office", "-q") == 0
    before = {p.relative_to(office): p.stat().st_mtime_ns for p in office.rglob("*")}
    site_id, visit = sorted(visits.items())[0]
    visit_bytes = visit.read_bytes()
    monkeypatch.setattr(office_module, "OFFICE_FORMAT", {"format": "fieldapp-office", "version": 1})
    monkeypatch.setattr(office_module, "NAMED_FOLDERS_VERSION", 99)
    capsys.readouterr()
    assert cli(office, visit) == 1
    err = capsys.readouterr().err
    assert "has format version 2, newer than this fieldapp understands (1)" in err
    assert "update fieldapp on this laptop" in err
    assert {p.relative_to(office): p.stat().st_mtime_ns for p in office.rglob("*")} == before
    assert not (office / "sites" / site_id).exists()                   # not made again
    assert visit.read_bytes() == visit_bytes


def test_an_office_of_a_newer_format_is_refused_and_not_converted(tmp_path, capsys):
    office = tmp_path / "office"
    office.mkdir()
    (office / OFFICE_MARKER).write_text(json.dumps({"format": "fieldapp-office", "version": 3}),
                                        encoding="utf-8")
    visit = new_visit(tmp_path, "Oak Hill", "oak.gpkg")
    assert cli(office, visit) == 1
    assert "format version 3, newer than this fieldapp understands (2)" in capsys.readouterr().err
    assert cli(office, "--upgrade-office") == 1
    assert "newer than this fieldapp understands" in capsys.readouterr().err
    assert sorted(p.name for p in office.iterdir()) == [OFFICE_MARKER]


def test_a_folder_another_run_renamed_is_never_made_again(old_office, monkeypatch):
    """Two runs at once (two office computers): a site folder listed by one and renamed by the
    other before the first locks it is skipped, not made again empty beside the renamed one."""
    office, visits = old_office
    listed = [office / "sites" / i for i in sorted(visits)]      # as the slower run listed them
    assert sync_main(["--office", str(office), "--upgrade-office", "-q"]) == 0    # the other run
    real = officeconvert._id_folders
    calls = []

    def stale(sites):
        calls.append(sites)
        return listed if len(calls) == 1 else real(sites)

    monkeypatch.setattr(officeconvert, "_id_folders", stale)
    report = officeconvert.convert_office(FolderOffice(office))
    assert report.done and not report.moved
    assert folders(office) == {"Mill Creek", "Mill Creek (2)", "CON_ north_bank_"}
    assert not (office / "locks").exists()
