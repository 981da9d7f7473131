"""Issue 33 (the first fix on screen): the visit opens and the devices start on the turn after
the window's first frame, the workflow panels not shown at start are built after that, one per
turn. A panel, the Records and the Photos tabs built after the visit was shown or the devices
started work as if built before them; a device reading that comes first builds every panel."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, close_window, make_window

X0, Y0 = 500000.0, 4800000.0       # UTM 16N (m), as tests/ui/test_ui_editing.py


@pytest.fixture
def fresh(qtbot, private_dirs):
    """Make the window just shown, in the test itself: the event loop has not turned yet."""
    made = []

    def make(**cli):
        made.append(make_window(qtbot, private_dirs, **cli))
        return made[-1]

    yield make
    for w in made:
        qtbot.waitUntil(lambda w=w: w.startup_done, timeout=WAIT_MS)
        close_window(w)


def watch_builds(monkeypatch, window) -> list[tuple[str, bool, bool]]:
    """(panel, devices started, visit shown) as each workflow panel is built."""
    import fieldapp.ui.workflows as wf

    seen: list[tuple[str, bool, bool]] = []
    make = wf._make_panel

    def making(w, name):
        seen.append((name, w.devices.has_started, w.visit is not None))
        return make(w, name)

    monkeypatch.setattr(wf, "_make_panel", making)
    return seen


def test_the_visit_opens_and_the_devices_start_before_the_other_panels(fresh, qtbot,
                                                                      monkeypatch):
    w = fresh()
    seen = watch_builds(monkeypatch, w)
    editor_when_shown = []
    w.recording.on_shown(lambda _v: editor_when_shown.append(w.editor))
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    assert [name for name, _s, _v in seen] == ["transect", "tally", "boundary", "lines",
                                                "stake-out", "plot"]
    assert all(started and shown for _n, started, shown in seen)
    assert editor_when_shown == [None]              # Records and Photos came after the visit
    assert w.devices_starting_s is not None and w.devices_starting_s >= w.visit_open_started_s


def test_panels_built_after_the_devices_started_show_the_simulators_buttons(fresh, qtbot,
                                                                          monkeypatch):
    w = fresh(simulate=True)
    seen = watch_builds(monkeypatch, w)
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    assert ("tally", True, True) in seen and ("transect", True, True) in seen
    # told the devices started although built after: the simulated caliper and rangefinder
    # have their buttons (hidden until the devices start), as when built before them
    assert w.devices.simulator("caliper") is not None
    assert not w.panels["tally"].squeeze_button.isHidden()
    assert not w.panels["transect"].shoot_button.isHidden()


def test_the_records_built_after_the_visit_was_shown_follow_its_changes(fresh, qtbot):
    w = fresh()
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    records = w.editor.records
    w.lower_tabs.setCurrentWidget(records)          # the Records tab in view
    w.lower_fold.unfold()
    qtbot.waitUntil(records.isVisible, timeout=WAIT_MS)
    assert [sel.layer.value for sel in records.rows] == ["site"]    # a new visit: the site
    w.visit.model.set_crs("EPSG:32616")
    w.visit.model.add_ohwm_offset_point((X0, Y0), 90.0, horizontal_ft=5.0)
    # the editor heard the visit's change (it listens from the visit shown, told it late)
    qtbot.waitUntil(lambda: len(records.rows) > 1, timeout=WAIT_MS)
    assert sorted(sel.layer.value for sel in records.rows) == ["ohwm_line", "ohwm_point", "site"]
    words = [records.table.item(r, 0).text() for r in range(len(records.rows))]
    assert any("OHWM point 1" in t for t in words), words


def test_a_caliper_reading_before_the_panels_are_built_reaches_the_tally(fresh, qtbot):
    w = fresh()
    assert "tally" not in dict(w.panels)
    w.on_reading("caliper", "12.3 in")              # as the bridge's signal hands it over
    assert sorted(dict(w.panels)) == sorted(["ohwm", "transect", "tally", "boundary", "lines",
                                             "stake-out", "plot"])
    tally = w.panels["tally"]
    assert tally.pending == ["12.3 in"]              # no fix yet: it waits for one
    assert tally.state.text().startswith("1 caliper reading waiting for a usable fix")
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    assert w.panels["tally"] is tally                # built once


def test_the_window_is_built_without_the_store_shapely_or_pyproj(private_dirs):
    """They come with the visit, on the turn after the first frame: a fresh process that builds
    the window (as fieldapp.ui.app.main does, the devices not started) has not imported them."""
    import os
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from fieldapp.app import config as C\n"
        "from fieldapp.ui import app as appmod, theme\n"
        "theme.apply(app)\n"
        "w = appmod.create_window(C.build({'visit': sys.argv[1]}, use_file=False),"
        " start_devices=False)\n"
        "print(' '.join(m for m in ('fieldapp.store', 'shapely', 'pyproj', 'fieldapp.survey.visit')"
        " if m in sys.modules))\n"
        "appmod.dispose(w)\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FIELDAPP_CONFIG_DIR=str(private_dirs),
               FIELDAPP_DATA_DIR=str(private_dirs))
    out = subprocess.run([sys.executable, "-c", code, str(private_dirs / "v.gpkg")], env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == ""


def test_the_wheel_guard_installed_at_the_first_frame_still_sets_every_field(
        private_dirs):
    """The wheel guard comes as the window's first frame is painted (its filter does not see
    the events of building and showing it): a fresh process's window has the guard then, and
    no field of it, polished before or after, takes the focus from the wheel alone."""
    import os
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from PySide6.QtCore import Qt\n"
        "from PySide6.QtWidgets import QApplication, QWidget\n"
        "app = QApplication([])\n"
        "from fieldapp.app import config as C\n"
        "from fieldapp.ui import app as appmod, theme, wheelguard\n"
        "theme.apply(app)\n"
        "w = appmod.create_window(C.build({'visit': sys.argv[1]}, use_file=False),"
        " start_devices=False)\n"
        "print(app.findChild(wheelguard.WheelGuard) is None)\n"
        "w.show()\n"
        "while app.findChild(wheelguard.WheelGuard) is None:   # painted (or ready(): 1 s)\n"
        "    app.processEvents()\n"
        "fields = [f for f in app.allWidgets() if wheelguard.is_field(f)]\n"
        "polished = [f for f in fields if f.testAttribute(Qt.WidgetAttribute.WA_WState_Polished)]\n"
        "print(app.findChild(wheelguard.WheelGuard) is not None, len(fields) > 0,"
        " len(polished) > 0,"
        " sum(f.focusPolicy() == Qt.FocusPolicy.WheelFocus for f in fields))\n"
        "while not w.startup_done:\n"
        "    app.processEvents()\n"
        "later = [f for f in app.allWidgets() if wheelguard.is_field(f)]\n"
        "print(len(later) > len(fields),"
        " sum(f.focusPolicy() == Qt.FocusPolicy.WheelFocus for f in later))\n"
        "w.session.stop(); appmod.dispose(w)\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FIELDAPP_CONFIG_DIR=str(private_dirs),
               FIELDAPP_DATA_DIR=str(private_dirs))
    out = subprocess.run([sys.executable, "-c", code, str(private_dirs / "v.gpkg")], env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    before, shown, started = out.stdout.splitlines()
    assert before == "True"         # not yet when the window is built, before it is shown
    # painted: the guard is there, the window has fields (polished while it was built and
    # shown), none of them is focused by the wheel; nor any of the panels' built after
    assert shown == "True True True 0"
    assert started == "True 0"
