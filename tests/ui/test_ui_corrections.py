"""Corrections on screen: the status strip's badge and fix quality follow a real caster on
loopback feeding the simulated receiver; the Devices dialog lists the caster's mountpoints off
the UI thread and keeps the password out of the settings file."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt

from devices.sim.gnss import GnssPath, GnssSim
from devices.sim.rtk import RtkTimes
from fieldapp.ui import status as status_mod
from fieldapp.ui import theme
from tests.devices.ntripcaster import MOUNT, LoopbackCaster
from tests.ui.ui_support import WAIT_MS, close_window, make_window

FAST = RtkTimes(float_after_s=0.5, fixed_after_s=1.5, fixed_max_age_s=1.5, float_max_age_s=3.0)


@pytest.fixture
def rtk_receiver(tmp_path):
    sim = GnssSim(GnssPath([(43.07, -89.40)]), rate_hz=5, quality="dgps", rtk=FAST, seed=5,
                  link=tmp_path / "gnss").start()
    yield sim
    sim.stop()


def test_strip_shows_corrections_and_rtk_as_the_receiver_reports_it(qtbot, private_dirs, rtk_receiver):
    with LoopbackCaster(rate_hz=5) as caster:
        w = make_window(qtbot, private_dirs, gnss_url=rtk_receiver.port, ntrip_caster=caster.url(),
                        ntrip_gga_interval_s=1.0)
        try:
            strip = w.status_strip
            badge = strip.corrections_label
            qtbot.waitUntil(lambda: strip.quality_label.text() == "RTK fixed", timeout=WAIT_MS)
            qtbot.waitUntil(lambda: badge.isVisible() and ", age " in badge.text()
                            and "B/s" in badge.text(), timeout=WAIT_MS)
            assert badge.text().startswith(f"Corrections {MOUNT}: ")
            assert w.width() <= 1366 or w.minimumSizeHint().width() <= 1366
            assert "from the receiver (GGA)" in badge.toolTip()
            assert badge.property("_css") == theme.badge_css(theme.GOOD)
            caster.pause()  # corrections stop: fixed -> float -> DGPS on screen
            qtbot.waitUntil(lambda: strip.quality_label.text() == "RTK float", timeout=WAIT_MS)
            qtbot.waitUntil(lambda: strip.quality_label.text() == "DGPS", timeout=WAIT_MS)
        finally:
            close_window(w)


def test_badge_words_and_colours():
    from devices.ntrip import CorrectionStatus, NtripState

    st = CorrectionStatus(NtripState.STREAMING, "corrections from WIDOT1", "WIDOT1", 5000, 1250.0,
                          40, last_rtcm_monotonic_s=100.0)

    class Fix:
        dgps_age_s = None

    text, colours, tip = status_mod.corrections_words(st, Fix(), now_s=102.0)
    assert (text, colours) == ("Corrections WIDOT1: 1.2 kB/s, age 2.0 s", theme.GOOD)
    assert tip.endswith("correction age 2.0 s from the client")
    Fix.dgps_age_s = 12.0  # the receiver's own age wins
    assert status_mod.corrections_words(st, Fix(), now_s=102.0)[:2] == (
        "Corrections WIDOT1: 1.2 kB/s, age 12.0 s", theme.FAIR)
    Fix.dgps_age_s = 45.0
    assert status_mod.corrections_words(st, Fix(), now_s=102.0)[1] == theme.BAD
    down = CorrectionStatus(NtripState.DISCONNECTED, "caster refused user 'bob'", "WIDOT1")
    text, colours, tip = status_mod.corrections_words(down, None)
    assert (text, colours) == ("Corrections WIDOT1: caster refused user 'bob'", theme.BAD)
    assert "caster refused user 'bob'" in tip


def test_devices_dialog_lists_mountpoints_and_keeps_the_password_apart(qtbot, private_dirs, monkeypatch):
    from fieldapp.app import config as C
    from fieldapp.ui.devicedialog import DeviceDialog

    monkeypatch.setenv("FIELDAPP_NO_KEYRING", "1")  # the user-only file: checkable here
    with LoopbackCaster() as caster:
        cfg = C.build({}, use_file=False)
        dlg = DeviceDialog(cfg, near=(43.07, -89.40))
        qtbot.addWidget(dlg)
        box = dlg.ntrip
        assert box.kept.text() == (f"Password kept in: {private_dirs / 'cfg' / 'secrets.json'} "
                                   "(readable by this user only)")
        box.caster.setText(f"ntrip://{caster.user}@127.0.0.1:{caster.port}/")
        box.password.setText(caster.password)
        qtbot.mouseClick(box.list_button, Qt.LeftButton)
        assert not box.list_button.isEnabled()  # asked on a thread; the dialog stays live
        qtbot.waitUntil(lambda: box.mountpoints.count() == 1, timeout=WAIT_MS)
        assert box.mountpoints.item(0).text().startswith(f"{MOUNT} — distance unknown, RTCM 3.3")
        box._choose(box.mountpoints.item(0))
        assert box.caster.text() == f"ntrip://{caster.user}@127.0.0.1:{caster.port}/{MOUNT}"
        dlg.save()
        saved = json.loads((private_dirs / "cfg" / "config.json").read_text(encoding="utf-8"))
        assert saved["ntrip_caster"] == box.caster.text()
        assert caster.password not in (private_dirs / "cfg" / "config.json").read_text(encoding="utf-8")
        kept = json.loads((private_dirs / "cfg" / "secrets.json").read_text(encoding="utf-8"))
        assert kept == {box.caster.text(): caster.password}


def test_devices_dialog_says_a_wrong_password_and_a_bad_url(qtbot, private_dirs):
    from fieldapp.app import config as C
    from fieldapp.ui.devicedialog import DeviceDialog

    with LoopbackCaster() as caster:
        dlg = DeviceDialog(C.build({}, use_file=False))
        qtbot.addWidget(dlg)
        box = dlg.ntrip
        box.caster.setText(f"ntrip://{caster.user}:nope@127.0.0.1:{caster.port}/")
        qtbot.mouseClick(box.list_button, Qt.LeftButton)
        qtbot.waitUntil(lambda: box.list_button.isEnabled(), timeout=WAIT_MS)
        assert box.table_label.text() == (f"caster 127.0.0.1:{caster.port} refused user "
                                          f"'{caster.user}': wrong user name or password (HTTP 401)")
        box.caster.setText("caster.example.org:2101/M")
        dlg.save()
        assert dlg.error_label.text().startswith("Not saved: caster 'caster.example.org:2101/M' is "
                                                 "not an NTRIP URL")
        assert dlg.saved_config is None
        assert not (private_dirs / "cfg" / "config.json").exists()
