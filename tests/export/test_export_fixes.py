"""The new-user pass's export faults: a killed export's temporary folder cleared by the next,
the command's summary in the crew's words, DBH at the caliper's resolution."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pyogrio.raw import read

from fieldapp.export import export_layer_words, export_visit, main
from fieldapp.export.workers import STALE_HOURS, clear_stale
from fieldapp.survey import Layer
from tests.links import symlink_or_skip

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def visit(tmp_path):
    from tests.report.sample_visit import build_sample_visit

    path = tmp_path / "v.gpkg"
    build_sample_visit(path, conflict=False)
    return path


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


# -- 1. a killed export's temporary folder ------------------------------------------------

def test_a_stale_folder_of_a_dead_process_is_cleared_and_a_live_ones_kept(tmp_path):
    dead = tmp_path / f".out.{_dead_pid()}.abcd_123.tmp"
    (dead / "csv").mkdir(parents=True)
    (dead / "csv" / "tree.csv").write_text("x")
    live_proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        live = tmp_path / f".out.{live_proc.pid}.zzzz9999.tmp"
        live.mkdir()
        old = tmp_path / ".out.q1w2e3r4.tmp"          # an older version's name: no pid, hours old
        old.mkdir()
        t = time.time() - (STALE_HOURS + 1) * 3600
        os.utime(old, (t, t))
        young = tmp_path / ".out.a1s2d3f4.tmp"        # no pid and recent: may be in use
        young.mkdir()
        other = [tmp_path / f".outer.{_dead_pid()}.abcd_123.tmp", tmp_path / f".out.{_dead_pid()}.abc.tmp",
                 tmp_path / "out"]                      # another OUT's, not our pattern, OUT itself
        for p in other:
            p.mkdir()
        removed = clear_stale(tmp_path, "out")
        assert sorted(removed) == sorted([dead, old])
        assert not dead.exists() and not old.exists()
        assert live.is_dir() and young.is_dir() and all(p.is_dir() for p in other)
    finally:
        live_proc.kill()
        live_proc.wait()


def test_a_link_named_like_a_stale_folder_is_left(tmp_path):
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "data.txt").write_text("mine")
    link = tmp_path / f".out.{_dead_pid()}.abcd_123.tmp"
    symlink_or_skip(keep, link, target_is_directory=True)
    assert clear_stale(tmp_path, "out") == []
    assert link.is_symlink() and (keep / "data.txt").read_text() == "mine"


_KILLED = """
import sys, time
from pathlib import Path
import fieldapp.export.gdal as g
real = g._write_layers
def slow(layers, target, fmt, *a, **k):
    real(layers, target, fmt, *a, **k)
    Path(sys.argv[3]).write_text("written")
    time.sleep(600)            # killed here, mid-export, its temporary folder full
g._write_layers = slow
from fieldapp.export import main
main([sys.argv[1], "--format", "csv", "-o", sys.argv[2]])
"""


def test_an_export_killed_mid_write_is_cleared_by_the_next(visit, tmp_path):
    out, flag = tmp_path / "out", tmp_path / "flag"
    # the repository first, then what the run already had (the Windows stage's harness shims)
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    errors = tmp_path.parent / f"{tmp_path.name}-child-stderr.txt"  # outside the folder compared below
    with open(errors, "wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(visit), str(out), str(flag)],
                                env={**os.environ, "PYTHONPATH": path}, stderr=stderr)
    try:
        deadline = time.monotonic() + 300
        while not flag.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert flag.exists(), (f"the export did not get to writing (exit {proc.poll()}): "
                               f"{errors.read_text(encoding='utf-8', errors='replace')[-2000:]}")
    finally:
        proc.kill()  # SIGKILL; TerminateProcess on Windows
        proc.wait()
    stale = [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]
    assert len(stale) == 1 and (stale[0] / "tree.csv").is_file()   # what a killed export leaves
    assert not out.exists()
    export_visit(visit, out, "csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flag", "out", "v.gpkg"]


# -- 2. the command's summary in the crew's words -------------------------------------

def test_layer_words():
    assert export_layer_words("tree") == "Trees"
    assert export_layer_words("track_point") == "GNSS track"
    assert export_layer_words("bank_point") == "Bank points"
    assert export_layer_words("woodland_stand") == "Woodland stand"
    assert export_layer_words("swale_line") == "Swale line"


def test_cli_summary_names_layers_in_words(visit, tmp_path, capsys):
    assert main([str(visit), "--format", "geojson", "-o", str(tmp_path / "g")]) == 0
    out = capsys.readouterr().out
    assert "Trees (tree) 4" in out and "OHWM points (ohwm_point) 3" in out
    assert "Transect stations (station) 6" in out and "Bank points (bank_point) 2" in out
    assert "Woodland stand (woodland_stand) 1" in out


# -- 3. DBH at the caliper's resolution ------------------------------------------------

@pytest.fixture
def dbh_visit(tmp_path):
    from devices.caliper import reading_from_mm
    from fieldapp.store import open_visit

    path = tmp_path / "d.gpkg"
    from tests.report.sample_visit import build_sample_visit

    build_sample_visit(path, conflict=False)
    store = open_visit(path)
    v = store.visit
    try:
        tree = v.features(Layer.TREE)[0]
        mm = [312, 313]
        v.add_tree(x=tree.x + 1.0, y=tree.y, dbh_in=reading_from_mm(mm[0], 1, "x").dbh_in, crown_radius_ft=5.0)
        v.add_tree(x=tree.x + 2.0, y=tree.y, dbh_in=reading_from_mm(mm[1], 1, "x").dbh_in, crown_radius_ft=5.0)
        v.add_tree(x=tree.x + 3.0, y=tree.y, dbh_in=12.299999999, crown_radius_ft=5.0)  # a typed 12.3
        # a crown radius from a rangefinder shot: 2.7 m slope at 0 degrees is 8.8582677... ft
        v.add_tree(x=tree.x + 4.0, y=tree.y, dbh_in=10.0, crown_radius_ft=2.7 / 0.3048)
    finally:
        store.close()
    return path


def test_dbh_at_the_calipers_resolution_in_geojson_and_csv(dbh_visit, tmp_path):
    export_visit(dbh_visit, tmp_path / "g", "geojson")
    export_visit(dbh_visit, tmp_path / "c", "csv")
    feats = json.loads((tmp_path / "g" / "tree.geojson").read_text())["features"]
    dbh = [f["properties"]["dbh_in"] for f in feats][-4:-1]
    assert dbh == [12.28, 12.32, 12.3]          # 312 mm / 25.4 = 12.283..., 313 mm = 12.322...
    assert feats[-1]["properties"]["crown_radius_ft"] == 8.86    # to 0.01 ft
    assert [round(d * 25.4) for d in dbh[:2]] == [312, 313]    # the caliper's millimetres survive
    text = (tmp_path / "c" / "tree.csv").read_text()
    assert "12.299999" not in text and "12.2834" not in text
    meta, _, _, values = read(str(tmp_path / "c" / "tree.csv"))   # typed by its .csvt
    assert list(values[list(meta["fields"]).index("dbh_in")][-4:-1]) == [12.28, 12.32, 12.3]
    assert "8.8582" not in text
