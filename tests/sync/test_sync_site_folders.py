"""Office site folders named by the site, the id kept inside (issue 35 item 15), through the
sync CLI: ``sites/<site name>/site-id``, Windows-safe unique names, the lock apart
(``locks/<id>``), and offices laid out the old way (format 1: ``sites/<id>/``) still synced."""

from __future__ import annotations

import json

import pytest

from fieldapp.store import create_visit
from fieldapp.survey.visit import Visit
from fieldapp.sync import FolderOffice
from fieldapp.sync.cli import main as sync_main
from fieldapp.sync.errors import InvalidOfficeData
from fieldapp.sync.office import OFFICE_MARKER
from fieldapp.sync.sitefolders import MAX_NAME_CHARS, SITE_ID_FILE, folder_name


def new_visit(tmp_path, name: str, file: str):
    path = tmp_path / file
    create_visit(path, Visit.new(name, crs="EPSG:32616", who="a@laptop-a")).close()
    return path


def cli_sync(office, visit, *extra) -> int:
    return sync_main(["--office", str(office), *extra, str(visit)])


def test_sites_are_named_by_the_site_with_the_id_inside(tmp_path, capsys):
    office = tmp_path / "office"
    visits = [new_visit(tmp_path, name, f"v{n}.gpkg") for n, name in enumerate(
        ("Mill Creek lot", "Mill Creek lot", "CON", "Stand 4 / north: bank.", "x" * 90))]
    for v in visits:
        assert cli_sync(office, v, "--init-office") == 0, capsys.readouterr().err
    capsys.readouterr()
    folders = sorted(p.name for p in (office / "sites").iterdir())
    assert folders == sorted(["Mill Creek lot", "Mill Creek lot (2)", "_CON",
                              "Stand 4 _ north_ bank", "x" * MAX_NAME_CHARS])
    assert json.loads((office / OFFICE_MARKER).read_text())["version"] == 2
    # each folder keeps its site's id; --list reads the ids from inside
    ids = {p.name: (p / SITE_ID_FILE).read_text(encoding="utf-8").strip()
           for p in (office / "sites").iterdir()}
    assert len(set(ids.values())) == 5
    assert sync_main(["--office", str(office), "--list"]) == 0
    listed = {line.split("\t")[0]: line.split("\t")[1] for line in capsys.readouterr().out.splitlines()}
    assert listed[ids["Mill Creek lot (2)"]] == "Mill Creek lot" and listed[ids["_CON"]] == "CON"
    # the second sync of a site finds its folder by the id inside: nothing new made, no lock
    # left (its edits would go there: head and history of that folder)
    assert cli_sync(office, visits[1]) == 0
    off = FolderOffice(office)
    assert off.head(ids["Mill Creek lot (2)"]) == 1
    assert off.master_path(ids["Mill Creek lot (2)"]).parent.name == "Mill Creek lot (2)"
    assert len(list((office / "sites").iterdir())) == 5
    assert not (office / "locks").exists()
    assert len(list((office / "sites" / "Mill Creek lot (2)" / "history").iterdir())) == 1


def test_folder_names_are_windows_safe():
    assert folder_name("lpt1") == "_lpt1"
    assert folder_name("a. ") == "a"
    assert folder_name("...hidden") == "hidden"
    assert folder_name("a<b>c|d?") == "a_b_c_d_"
    assert folder_name("y" * 200) == "y" * MAX_NAME_CHARS


def test_an_office_laid_out_by_id_is_still_synced_that_way(tmp_path, capsys):
    office = tmp_path / "office"
    office.mkdir()
    (office / OFFICE_MARKER).write_text(json.dumps({"format": "fieldapp-office", "version": 1}))
    visit = new_visit(tmp_path, "Oak Hill", "oak.gpkg")
    assert cli_sync(office, visit) == 0
    (folder,) = (office / "sites").iterdir()          # named by the id, lock inside as before
    assert (folder / "master.gpkg").is_file() and not (folder / SITE_ID_FILE).exists()
    assert folder.name == FolderOffice(office).list_sites()[0][0]
    assert cli_sync(office, visit) == 0
    assert FolderOffice(office).head(folder.name) == 1 and len(list((office / "sites").iterdir())) == 1
    assert not (office / "locks").exists() and not (folder / "lock").exists()
    assert json.loads((office / OFFICE_MARKER).read_text())["version"] == 1
    # checked out by name from the old layout
    capsys.readouterr()
    assert sync_main(["--office", str(office), "--checkout", "Oak Hill", str(tmp_path / "c.gpkg")]) == 0


def test_a_copied_site_folder_is_refused_not_guessed(tmp_path, capsys):
    import shutil

    office = tmp_path / "office"
    visit = new_visit(tmp_path, "Oak Hill", "oak.gpkg")
    assert cli_sync(office, visit, "--init-office") == 0
    shutil.copytree(office / "sites" / "Oak Hill", office / "sites" / "Oak Hill - Copy")
    capsys.readouterr()
    assert cli_sync(office, visit) == 1
    err = capsys.readouterr().err
    assert "is in 2 folders of the office (Oak Hill, Oak Hill - Copy)" in err
    site_id = (office / "sites" / "Oak Hill" / SITE_ID_FILE).read_text(encoding="utf-8").strip()
    with pytest.raises(InvalidOfficeData):
        FolderOffice(office).head(site_id)
