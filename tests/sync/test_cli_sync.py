"""``fieldapp sync --list``, ``--checkout`` by name and its 'no site' message, ``--conflicts`` with none."""

from __future__ import annotations

import json

import pytest

from fieldapp.store import create_visit
from fieldapp.survey.visit import Visit
from fieldapp.sync import FolderOffice, sync
from fieldapp.sync.cli import main as sync_main


@pytest.fixture
def office(tmp_path):
    """An office with two real visits' sites, 'Mill Creek lot' and 'Oak Hill', each synced once
    (head 1)."""
    office = FolderOffice(tmp_path / "office", create=True)
    ids = {}
    for name in ("Mill Creek lot", "Oak Hill"):
        visit = Visit.new(name, crs="EPSG:32616", who="a@laptop-a")
        path = tmp_path / f"{name.split()[0].lower()}.gpkg"
        create_visit(path, visit).close()
        ids[name] = sync(path, office).site_id
    return office, ids


def test_list_prints_id_name_and_head(office, capsys):
    off, ids = office
    assert sync_main(["--office", str(off.root), "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    by_id = {line.split("\t")[0]: line.split("\t")[1:] for line in lines}
    assert set(by_id) == set(ids.values())
    for name, site_id in ids.items():
        assert by_id[site_id] == [name, f"head {off.head(site_id)}"]
        assert off.head(site_id) == 1  # each site was synced once: one changeset


def test_list_empty_office_and_not_an_office(tmp_path, capsys):
    from fieldapp.sync.office import OFFICE_FORMAT, OFFICE_MARKER

    root = tmp_path / "office"
    root.mkdir()
    assert sync_main(["--office", str(root), "--list"]) == 1  # no marker: not an office
    assert "is not a fieldapp office folder" in capsys.readouterr().err
    (root / OFFICE_MARKER).write_text(json.dumps(OFFICE_FORMAT))
    assert sync_main(["--office", str(root), "--list"]) == 0
    assert capsys.readouterr().out == f"office folder {root} has no sites yet\n"


def test_checkout_unknown_site_names_the_sites(office, tmp_path, capsys):
    off, ids = office
    assert sync_main(["--office", str(off.root), "--checkout", "demo", str(tmp_path / "d.gpkg")]) == 1
    err = capsys.readouterr().err
    assert "has no site demo" in err
    for name, site_id in ids.items():
        assert f"{site_id} ({name})" in err
    assert not (tmp_path / "d.gpkg").exists()


def test_checkout_by_unique_name_then_no_conflicts(office, tmp_path, capsys):
    off, ids = office
    d = tmp_path / "d.gpkg"
    assert sync_main(["--office", str(off.root), "--checkout", "Oak Hill", str(d)]) == 0
    assert f"checked out site {ids['Oak Hill']} to" in capsys.readouterr().out
    assert d.exists()
    assert sync_main(["--office", str(off.root), "--conflicts", str(d)]) == 0
    assert capsys.readouterr().out == "no conflicts\n"


def test_checkout_over_an_existing_file_is_refused_first(office, tmp_path, capsys):
    off, _ids = office
    existing = tmp_path / "mill.gpkg"  # the visit made by the fixture
    assert sync_main(["--office", str(off.root), "--checkout", "demo", str(existing)]) == 1
    assert "already exists" in capsys.readouterr().err


def test_checkout_unsafe_site_id_names_the_sites(office, tmp_path, capsys):
    off, ids = office
    assert sync_main(["--office", str(off.root), "--checkout", "../etc", str(tmp_path / "d.gpkg")]) == 1
    err = capsys.readouterr().err
    assert "has no site ../etc" in err and ids["Oak Hill"] in err


def test_a_web_address_is_not_taken_as_an_office_folder(tmp_path, capsys):
    # "http://server/office" was looked for as the folder ./http:/server/office
    rc = sync_main(["--office", "http://crew:S3cretPW@example.org/office", "--list"])
    err = capsys.readouterr().err
    assert rc == 1
    assert ("an office is a folder (a path, or a mounted share) or a postgresql:// URL, not a"
            " http:// address") in err
    assert "S3cretPW" not in err
