"""Corrections in the app layer: the caster setting and its password (keyring or a user-only
file, never the settings file), and the whole chain with a real caster on loopback: caster ->
NtripClient -> the receiver's port -> simulated receiver -> NMEA -> fix quality -> stored
correction age and mountpoint of an averaged OHWM point, a walk vertex and a transect origin."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time

import keyring
import pytest
from keyring.backend import KeyringBackend

from devices.nmea import FixQuality
from devices.sim.gnss import GnssPath, GnssSim
from devices.sim.rtk import RtkTimes
from fieldapp.app import config as C
from fieldapp.app import secrets
from fieldapp.app.session import DeviceSession
from fieldapp.store import create_visit, open_visit
from fieldapp.survey import Layer, Visit
from tests.devices.ntripcaster import MOUNT, LoopbackCaster


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("FIELDAPP_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("FIELDAPP_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "cfg"


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.store: dict = {}

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def get_password(self, service, username):
        return self.store.get((service, username))

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


@pytest.fixture
def memory_keyring():
    before = keyring.get_keyring()
    kr = MemoryKeyring()
    keyring.set_keyring(kr)
    yield kr
    keyring.set_keyring(before)


def test_settings_file_never_holds_the_password(config_home):
    cfg = C.build({"ntrip_caster": "ntrip://bob:hunter2@caster.example.org:2101/WIDOT1"}, use_file=False)
    assert cfg.ntrip_caster == "ntrip://bob:hunter2@caster.example.org:2101/WIDOT1"  # this run's
    path = C.save(cfg)
    text = path.read_text(encoding="utf-8")
    assert "hunter2" not in text
    assert json.loads(text)["ntrip_caster"] == "ntrip://bob@caster.example.org:2101/WIDOT1"


def test_bad_caster_setting_is_said():
    with pytest.raises(ValueError, match="is not an NTRIP URL"):
        C.build({"ntrip_caster": "caster.example.org:2101"}, use_file=False)
    with pytest.raises(ValueError, match="ntrip_gga_interval_s must be 1..3600 s"):
        C.build({"ntrip_gga_interval_s": 0.0}, use_file=False)


def test_password_in_the_os_keyring_when_there_is_one(memory_keyring, config_home):
    where = secrets.store_password("ntrip://bob@h:2101/M", "hunter2")
    assert where == "OS keyring (MemoryKeyring)" == secrets.where_kept()
    assert memory_keyring.store == {("fieldapp-ntrip", "ntrip://bob@h:2101/M"): "hunter2"}
    assert secrets.load_password("ntrip://bob@h:2101/M") == "hunter2"
    assert not secrets.fallback_file().exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_password_in_a_user_only_file_without_a_keyring(monkeypatch, config_home):
    monkeypatch.setenv("FIELDAPP_NO_KEYRING", "1")
    where = secrets.store_password("ntrip://bob@h:2101/M", "hunter2")
    path = config_home / "secrets.json"
    assert where == f"{path} (readable by this user only)" == secrets.where_kept()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert secrets.load_password("ntrip://bob@h:2101/M") == "hunter2"
    assert secrets.load_password("ntrip://other@h:2101/M") is None


class Bridge:
    def __init__(self) -> None:
        self.fixes = []
        self.statuses = []
        self.cond = threading.Condition()

    def on_fix(self, fix) -> None:
        with self.cond:
            self.fixes.append(fix)
            self.cond.notify_all()

    def status_callback(self, kind):
        return self.statuses.append

    def reading_callback(self, kind):
        return lambda r: None

    def close(self) -> None:
        pass

    def wait(self, cond, timeout_s: float = 60.0):
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while True:
                hit = [f for f in self.fixes if cond(f)]
                if hit:
                    return hit[0]
                left = deadline - time.monotonic()
                if left <= 0:
                    pytest.fail(f"no such fix in {timeout_s} s; last {self.fixes[-1:] }")
                self.cond.wait(left)


def test_caster_to_stored_correction_age(tmp_path, memory_keyring):
    fast = RtkTimes(float_after_s=0.5, fixed_after_s=1.0, fixed_max_age_s=2.0, float_max_age_s=4.0)
    sim = GnssSim(GnssPath([(43.07, -89.40)]), rate_hz=5, quality="autonomous", rtk=fast, seed=3,
                  link=tmp_path / "gnss").start()
    with LoopbackCaster(rate_hz=5) as caster:
        url = caster.url().replace(f":{caster.password}@", "@")  # the password from the keyring
        secrets.store_password(url, caster.password)
        cfg = C.build({"gnss_url": sim.port, "ntrip_caster": url, "ntrip_gga_interval_s": 1.0},
                      use_file=False)
        bridge = Bridge()
        session = DeviceSession(cfg, bridge)
        session.start()
        try:
            assert session.errors == []
            first = bridge.wait(lambda f: f.has_position)
            assert first.quality is FixQuality.AUTONOMOUS
            fixed = bridge.wait(lambda f: f.quality is FixQuality.RTK_FIXED)
            st = session.corrections_status()
            assert st.state.value == "streaming" and st.mountpoint == MOUNT and st.bytes_total > 0
            assert fixed.correction_mount == MOUNT
            assert 0.0 <= fixed.dgps_age_s <= fast.fixed_max_age_s  # the receiver's own age
            epochs = [f for f in bridge.fixes if f.quality is FixQuality.RTK_FIXED][:3]
        finally:
            session.stop()
            sim.stop()
    visit_path = tmp_path / "v.gpkg"
    with create_visit(visit_path, Visit.new("x", crs="EPSG:32616", who="t")) as store:
        v = store.visit
        line = v.add_ohwm_line(label="L")
        point = v.add_ohwm_point(v.average(epochs), line.uuid)
        v.add_transect(90.0, ohwm_point_uuid=point.uuid)
        walk = v.start_walk("wetland", spacing_ft=1.0)
        walk.feed(epochs[0])
    worst = max(f.dgps_age_s for f in epochs)
    with open_visit(visit_path, readonly=True) as store:
        (p,) = store.visit.features(Layer.OHWM_POINT)
        assert (p.correction_age_s, p.correction_mount) == (worst, MOUNT)
        (t,) = store.visit.features(Layer.TRANSECT)
        assert (t.correction_age_s, t.correction_mount) == (worst, MOUNT)
        (vx,) = store.visit.features(Layer.WALK_VERTEX)
        assert (vx.correction_age_s, vx.correction_mount) == (epochs[0].dgps_age_s, MOUNT)
