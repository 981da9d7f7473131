"""The installable app (issue 9): the PyInstaller bundle, its entry script, the Linux install script.

The slow tests build the one-folder bundle from ``packaging/fieldapp.spec`` into a temporary
folder (a few minutes on two cores) and run it headless, as a crew laptop would, with a
throw-away HOME so that settings and visits go to the temporary folder. They need PyInstaller in
the running environment (the ``test`` extra lists it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGING = REPO / "packaging"
EXE_NAME = "fieldapp.exe" if sys.platform.startswith("win") else "fieldapp"
# On Windows fieldapp.exe is windowed (no stdout); the office subcommands run with its console twin.
CLI_NAME = "fieldapp-cli.exe" if sys.platform.startswith("win") else "fieldapp"
BUILD_TIMEOUT_S = 1800  # generous: two cores shared with other work
RUN_TIMEOUT_S = 300


def headless_env(root: Path) -> dict[str, str]:
    """An environment for the app with Qt offscreen and every per-user folder under ``root``.

    platformdirs then puts the settings (user_config_dir) and the default visit folder under
    ``root``; ``FIELDAPP_*`` settings of the developer running the tests are dropped.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIELDAPP_")}
    home = root / "home"
    folders = {
        "HOME": home,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_STATE_HOME": home / ".local" / "state",
        "XDG_RUNTIME_DIR": root / "runtime",
        "XDG_DOCUMENTS_DIR": home / "Documents",
    }
    for name, folder in folders.items():
        folder.mkdir(parents=True, exist_ok=True)
        env[name] = str(folder)
    os.chmod(folders["XDG_RUNTIME_DIR"], 0o700)  # Qt refuses a runtime folder others can read
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


# ---------------------------------------------------------------------------- fast tests
def test_entry_script_runs_own_modules_only(tmp_path):
    """``fieldapp -m MODULE`` (for helper processes of the frozen app) runs this project's modules
    and refuses any other, so the bundle is not a general Python interpreter."""
    script = str(PACKAGING / "fieldapp_main.py")
    env = headless_env(tmp_path)
    refused = subprocess.run([sys.executable, script, "-m", "os"], env=env,
                             capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert refused.returncode == 2
    assert "only its own modules" in refused.stderr and "'os'" in refused.stderr

    # `-m fieldapp --help` goes through fieldapp/__main__.py to the app's argument parser,
    # which prints its usage and exits 0 without starting Qt.
    helped = subprocess.run([sys.executable, script, "-m", "fieldapp", "--help"], env=env,
                            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: fieldapp")
    assert "--simulate" in helped.stdout


@pytest.mark.skipif(sys.platform.startswith("win"), reason="install.sh is for Linux desktops")
def test_install_script_adds_and_removes_menu_entry(tmp_path):
    """install.sh on an unpacked bundle (here a stand-in executable, in a folder whose name has
    a space and an ampersand) writes a menu entry whose Exec lines run that executable by
    absolute path, the two icons and a ~/.local/bin link; --uninstall removes them again and
    keeps the bundle."""
    bundle = tmp_path / "my apps & tools" / "fieldapp"
    bundle.mkdir(parents=True)
    for source in (PACKAGING / "linux" / "install.sh", PACKAGING / "linux" / "fieldapp.desktop",
                   PACKAGING / "fieldapp.svg", PACKAGING / "fieldapp.png"):
        shutil.copy2(source, bundle / source.name)
    exe = bundle / "fieldapp"
    exe.write_text("#!/bin/sh\necho stand-in\n")
    exe.chmod(0o755)
    env = headless_env(tmp_path)
    env.pop("PREFIX", None)
    home = Path(env["HOME"])

    subprocess.run(["sh", str(bundle / "install.sh")], env=env, check=True, timeout=60,
                   capture_output=True)

    desktop = home / ".local/share/applications/fieldapp.desktop"
    lines = desktop.read_text().splitlines()
    assert f'Exec="{exe}"' in lines
    assert f'Exec="{exe}" --simulate' in lines
    assert f"TryExec={exe}" in lines
    assert "Icon=fieldapp" in lines
    icons = home / ".local/share/icons/hicolor"
    assert (icons / "scalable/apps/fieldapp.svg").read_bytes() == (PACKAGING / "fieldapp.svg").read_bytes()
    assert (icons / "256x256/apps/fieldapp.png").read_bytes() == (PACKAGING / "fieldapp.png").read_bytes()
    link = home / ".local/bin/fieldapp"
    assert link.is_symlink() and link.resolve() == exe.resolve()

    subprocess.run(["sh", str(bundle / "install.sh"), "--uninstall"], env=env, check=True,
                   timeout=60, capture_output=True)
    assert not desktop.exists()
    assert not (icons / "scalable/apps/fieldapp.svg").exists()
    assert not link.exists() and not link.is_symlink()
    assert exe.is_file()


# ---------------------------------------------------------------------------- the bundle
@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """Build the bundle once for this module; return the path of its executable."""
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip("PyInstaller is not installed here: pip install -e '.[test]'")
    root = tmp_path_factory.mktemp("bundle")
    build = subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
         "--distpath", str(root / "dist"), "--workpath", str(root / "work"),
         str(PACKAGING / "fieldapp.spec")],
        cwd=REPO, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
    )
    assert build.returncode == 0, build.stdout[-5000:] + build.stderr[-5000:]
    shutil.rmtree(root / "work", ignore_errors=True)  # the build's intermediate files
    exe = root / "dist" / "fieldapp" / EXE_NAME
    assert exe.is_file()
    return exe


@pytest.mark.slow
def test_bundle_contents(bundle):
    """What the app needs offline is inside: the Qt platform plugins for a desktop (xcb) and
    for unattended runs (offscreen), PROJ's database for pyproj and for GDAL, GDAL's data, the
    demo scenario; and on Linux the desktop entry and icons beside the executable."""
    top = bundle.parent
    internal = top / "_internal"
    plugins = next(internal.glob("PySide6/Qt/plugins/platforms"))
    names = {p.name for p in plugins.iterdir()}
    assert any("offscreen" in n for n in names), names
    if sys.platform.startswith("linux"):
        assert "libqxcb.so" in names
        for name in ("fieldapp.desktop", "install.sh", "fieldapp.svg", "fieldapp.png"):
            assert (top / name).is_file(), name
    assert (internal / "pyproj" / "proj_dir" / "share" / "proj" / "proj.db").is_file()
    assert (internal / "pyogrio" / "proj_data" / "proj.db").is_file()
    assert (internal / "pyogrio" / "gdal_data" / "gdalvrt.xsd").is_file()
    # the basemap reader (rasterio, imported inside functions) with its own GDAL and PROJ data
    assert (internal / "rasterio" / "proj_data" / "proj.db").is_file()
    assert (internal / "rasterio" / "gdal_data" / "gdalvrt.xsd").is_file()
    # Links PyInstaller makes for the libraries must all lead somewhere after the spec's pruning.
    dangling = [str(p) for p in top.rglob("*") if p.is_symlink() and not p.exists()]
    assert dangling == []
    scenario = REPO / "devices" / "sim" / "scenarios" / "demo.json"
    if scenario.is_file():
        assert (internal / "devices" / "sim" / "scenarios" / "demo.json").read_bytes() == scenario.read_bytes()


@pytest.mark.slow
def test_bundle_rules_evaluate_matches_source(bundle, tmp_path):
    """An office subcommand, imported lazily by fieldapp.cli, works from the bundle and gives
    the same JSON as the source install."""
    if importlib.util.find_spec("fieldapp.rules.cli") is None:
        pytest.skip("fieldapp.rules.cli is not there yet")
    requests = tmp_path / "requests.json"
    # 8,000 sq ft graded at 75 % slope: surface = 8000 * sqrt(1 + 0.75**2) = 8000 * 1.25
    # = 10,000 sq ft exactly, which is not "more than 10,000", so no permit (NR 341.035 graded area).
    requests.write_text(json.dumps([
        {"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": 8000.0, "slope_pct": 75.0}},
    ]))
    env = headless_env(tmp_path)
    frozen = subprocess.run([str(bundle.parent / CLI_NAME), "rules", "evaluate", str(requests)], env=env,
                            capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    source = subprocess.run([sys.executable, "-m", "fieldapp", "rules", "evaluate", str(requests)],
                            env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert source.returncode == 0, source.stderr
    assert frozen.returncode == 0, frozen.stderr
    result = json.loads(frozen.stdout)
    assert result == json.loads(source.stdout)
    assert result[0]["surface_area_sqft"] == pytest.approx(10000.0)
    assert result[0]["permit_required"] is False


@pytest.mark.slow
def test_bundle_basemap_fetch_from_a_loopback_tile_server(bundle, tmp_path):
    """``fieldapp basemap fetch`` (mercantile, Pillow: imported inside functions) works from the
    bundle: every tile of the box, from generated tiles served on 127.0.0.1."""
    import sqlite3

    from fieldapp.basemap.fetch import tiles_for
    from tests.basemap.test_basemap_fetch import BBOX, TileServer

    server = TileServer()
    try:
        out = tmp_path / "site.mbtiles"
        run = subprocess.run([str(bundle.parent / CLI_NAME), "basemap", "fetch",
                              "--bbox=" + ",".join(map(str, BBOX)), "--zoom", "14", "--url", server.url,
                              "-o", str(out), "--rate", "10", "-q"],
                             env=headless_env(tmp_path), capture_output=True, text=True,
                             timeout=RUN_TIMEOUT_S)
    finally:
        server.close()
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(out) as conn:
        assert conn.execute("SELECT count(*) FROM tiles").fetchone()[0] == len(tiles_for(BBOX, (14, 14)))


@pytest.fixture(scope="module")
def smoke_run(bundle, tmp_path_factory):
    """One unattended run of the bundle: ``fieldapp --simulate --quit-after 8 --visit PATH``."""
    root = tmp_path_factory.mktemp("smoke")
    visit = root / "visits" / "smoke.gpkg"
    run = subprocess.run([str(bundle), "--simulate", "--quit-after", "8", "--visit", str(visit)],
                         env=headless_env(root), capture_output=True, text=True,
                         timeout=RUN_TIMEOUT_S)
    return run, visit


@pytest.mark.slow
def test_bundle_smoke_run_stores_a_visit_gdal_can_open(smoke_run):
    """`fieldapp --simulate --quit-after 8` from the bundle, headless: the simulated devices on
    ptys deliver fixes, a record is stored, the app exits 0, and the visit GeoPackage it wrote
    opens with GDAL (pyogrio) with at least one feature in it."""
    import pyogrio

    run, visit = smoke_run
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-5000:]
    assert visit.is_file(), run.stderr[-5000:]
    layers = pyogrio.list_layers(visit)
    assert len(layers) > 0
    features = {str(name): pyogrio.read_info(visit, layer=str(name))["features"] for name, _ in layers}
    assert any(count > 0 for count in features.values()), features


@pytest.mark.slow
def test_bundle_exports_with_gdal_and_ezdxf(bundle, smoke_run, tmp_path):
    """`fieldapp export` from the bundle uses the bundled GDAL with its PROJ data (a Shapefile
    with a .prj of the site's projected CRS) and ezdxf on its pure-Python modules (a DXF): the
    track of the smoke run comes out with as many points as the visit holds (in the DXF, the
    vertices of the one polyline through them)."""
    import ezdxf
    import pyogrio

    if importlib.util.find_spec("fieldapp.export") is None:
        pytest.skip("fieldapp.export is not there yet")
    run, visit = smoke_run
    if run.returncode != 0 or not visit.is_file():
        pytest.skip("the smoke run wrote no visit (see the smoke test)")
    track_points = pyogrio.read_info(visit, layer="track_point")["features"]
    assert track_points > 0
    env = headless_env(tmp_path)
    shp_dir, dxf_file = tmp_path / "shp", tmp_path / "visit.dxf"
    for fmt, out in (("shp", shp_dir), ("dxf", dxf_file)):
        done = subprocess.run([str(bundle.parent / CLI_NAME), "export", str(visit), "--format", fmt,
                               "-o", str(out)],
                              env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert pyogrio.read_info(shp_dir / "track_point.shp")["features"] == track_points
    prj = (shp_dir / "track_point.prj").read_text()
    # the demo site is in Vernon County, Wisconsin: Automatic gave it the county's WISCRS (ftUS)
    assert prj.startswith('PROJCS["NAD_1983_2011_WISCRS_Vernon_Feet"') and 'UNIT["US survey foot"' in prj, prj[:200]
    doc = ezdxf.readfile(dxf_file)
    (line,) = doc.modelspace().query('LWPOLYLINE[layer=="track_point"]')
    assert len(line) == track_points


@pytest.mark.slow
def test_bundle_report_matches_source(bundle, smoke_run, tmp_path):
    """`fieldapp report` from the bundle (Qt's PDF writer offscreen, pypdf for the attached rule
    requests) writes a PDF with as many pages and the same attachments as the source install."""
    from pypdf import PdfReader

    if importlib.util.find_spec("fieldapp.report") is None:
        pytest.skip("fieldapp.report is not there yet")
    run, visit = smoke_run
    if run.returncode != 0 or not visit.is_file():
        pytest.skip("the smoke run wrote no visit (see the smoke test)")
    env = headless_env(tmp_path)
    frozen_pdf, source_pdf = tmp_path / "bundle.pdf", tmp_path / "source.pdf"
    for command, out in (([str(bundle.parent / CLI_NAME)], frozen_pdf),
                         ([sys.executable, "-m", "fieldapp"], source_pdf)):
        done = subprocess.run([*command, "report", str(visit), "-o", str(out)], env=env,
                              capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    frozen, source = PdfReader(frozen_pdf), PdfReader(source_pdf)
    assert len(frozen.pages) == len(source.pages) > 0
    assert sorted(frozen.attachments) == sorted(source.attachments)
