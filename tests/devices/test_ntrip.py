"""The NTRIP client against real casters on loopback (pygnssutils' caster, scripted ones):
corrections reach the writer; each failure is a clear message; the caster URL and the source
table."""

from __future__ import annotations

import re
import threading
import time
from types import SimpleNamespace

import pytest
from pyrtcm import RTCMReader

from devices.ntrip import Caster, NtripClient, NtripState, fetch_sourcetable, parse_sourcetable
from tests.devices.ntripcaster import MOUNT, LoopbackCaster, ScriptedCaster, drop_after_frames, garbage, self_signed_pem

FIX = SimpleNamespace(lat_deg=43.07, lon_deg=-89.40, alt_msl_m=260.0, geoid_sep_m=-33.0,
                      quality=2, sats_used=10, hdop=0.9, dgps_age_s=None)


def wait_for(cond, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


class Recorder:
    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.statuses = []
        self.lock = threading.Lock()

    def write(self, data: bytes) -> int:
        with self.lock:
            self.frames.append(data)
        return len(data)

    def status(self, s) -> None:
        with self.lock:
            self.statuses.append(s)

    def messages(self, state=None) -> list[str]:
        with self.lock:
            return [s.message for s in self.statuses if state is None or s.state is state]


def client(url: str, rec: Recorder, **kw) -> NtripClient:
    kw.setdefault("gga_interval_s", None)
    return NtripClient(Caster.parse(url), rec.write, on_status=rec.status, backoff_min_s=0.2,
                       backoff_max_s=1.0, inactivity_s=3.0, **kw)


def test_caster_url_gpsd_form():
    c = Caster.parse("ntrip://bob%40dot:p%3Ass@caster.example.org:2102/WI%20DOT")
    assert (c.user, c.password, c.host, c.port, c.mountpoint) == ("bob@dot", "p:ss",
                                                                 "caster.example.org", 2102, "WI DOT")
    assert c.url() == "ntrip://bob%40dot@caster.example.org:2102/WI%20DOT"
    assert Caster.parse(c.url(with_password=True)) == c
    assert "p:ss" not in repr(c)
    assert Caster.parse("ntrip://h/M", password="kept").password == "kept"
    for bad, words in (("http://h:2101/M", "not an NTRIP URL"), ("ntrip://:2101/M", "names no host"),
                       ("ntrip://h:99999/M", "ntrip://user:password@host:port/MOUNT"),
                       ("ntrip://h/M?v=3", "version '3'")):
        with pytest.raises(ValueError, match=words):
            Caster.parse(bad)


@pytest.mark.parametrize("version", ["2.0", "1.0"])
def test_corrections_reach_the_writer_as_whole_rtcm3_frames(version):
    with LoopbackCaster(version=version) as caster:
        rec = Recorder()
        with client(caster.url(), rec, position=lambda: FIX, gga_interval_s=1):
            assert wait_for(lambda: len(rec.frames) >= 6)
        types = [int(RTCMReader.parse(f).identity) for f in rec.frames[:6]]
        assert set(types) == {1005, 1004}  # every frame passes pyrtcm's CRC check
        assert rec.messages(NtripState.STREAMING) == [f"corrections from {MOUNT} at 127.0.0.1:{caster.port}"]


def test_status_counts_bytes_and_rate():
    with LoopbackCaster(rate_hz=5) as caster:
        rec = Recorder()
        c = client(caster.url(), rec).start()
        try:
            assert wait_for(lambda: c.status().messages >= 10)
            st = c.status()
            assert st.bytes_total == sum(len(f) for f in rec.frames[:st.messages]) or st.bytes_total > 0
            assert st.bytes_per_s > 0 and st.age_s() is not None and st.mountpoint == MOUNT
        finally:
            c.stop()
        assert c.status().state is NtripState.STOPPED


def test_wrong_password_is_said_and_retried_with_backoff():
    with LoopbackCaster() as caster:
        rec = Recorder()
        with client(caster.url(password="wrong"), rec):
            assert wait_for(lambda: len(rec.messages(NtripState.DISCONNECTED)) >= 3)
        msgs = rec.messages(NtripState.DISCONNECTED)
        assert msgs[0] == (f"caster 127.0.0.1:{caster.port} refused user 'surveyor': wrong user name "
                           "or password (HTTP 401); retrying in 0.2 s")
        assert [m.rsplit("retrying in ", 1)[1] for m in msgs[:4]] == ["0.2 s", "0.4 s", "0.8 s", "1 s"][:len(msgs[:4])]
        assert not rec.frames


def test_unknown_mountpoint_names_the_ones_there():
    with LoopbackCaster() as caster:
        rec = Recorder()
        with client(caster.url(mount="NOSUCH"), rec):
            assert wait_for(lambda: rec.messages(NtripState.DISCONNECTED))
        assert rec.messages(NtripState.DISCONNECTED)[0].startswith(
            f"mountpoint 'NOSUCH' is not on caster 127.0.0.1:{caster.port} (it sent its source "
            f"table instead: {MOUNT})")


def test_caster_dropping_the_connection_is_said_and_reconnected():
    with ScriptedCaster(drop_after_frames(3)) as caster:
        rec = Recorder()
        with client(caster.url(), rec):
            assert wait_for(lambda: caster.connections >= 2 and rec.messages(NtripState.DISCONNECTED))
        msg = rec.messages(NtripState.DISCONNECTED)[0]
        got = re.match(rf"caster 127\.0\.0\.1:{caster.port} closed the connection after (\d+) bytes "
                       r"of corrections; retrying in 0\.2 s$", msg)
        assert got, msg
        # whole pairs of 1005 (25 bytes) + 1004 (139 bytes); pygnssutils drops frames that come in
        # the same packet as the answer's header, so 1 to 3 of the 3 pairs sent
        assert int(got[1]) in (164, 328, 492)
        assert len(rec.frames) >= 2


def test_caster_sending_garbage_is_said():
    with ScriptedCaster(garbage) as caster:
        rec = Recorder()
        with client(caster.url(), rec):
            assert wait_for(lambda: rec.messages(NtripState.DISCONNECTED))
        assert "bytes that are not RTCM 3 corrections on 'MOUNT'" in rec.messages(NtripState.DISCONNECTED)[0]
        assert not rec.frames


def test_nothing_listening_is_said():
    with ScriptedCaster(garbage) as caster:
        port = caster.port
    rec = Recorder()
    with client(f"ntrip://u:p@127.0.0.1:{port}/M", rec):
        assert wait_for(lambda: rec.messages(NtripState.DISCONNECTED))
    assert rec.messages(NtripState.DISCONNECTED)[0].startswith(
        f"caster 127.0.0.1:{port} refused the connection (no caster listening on that port)")


def test_waits_for_a_fix_before_sending_gga():
    with LoopbackCaster() as caster:
        rec = Recorder()
        fix = {"now": None}
        with client(caster.url(), rec, position=lambda: fix["now"], gga_interval_s=1) as c:
            assert wait_for(lambda: rec.messages(NtripState.WAITING))
            assert c.attempts == 0
            fix["now"] = FIX
            assert wait_for(lambda: rec.frames)


def test_start_and_stop_return_at_once_even_to_an_unreachable_caster():
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): nothing answers; the connect happens on the thread
    c = NtripClient(Caster.parse("ntrip://u:p@192.0.2.1:2101/M"), lambda b: len(b), gga_interval_s=None)
    t0 = time.monotonic()
    c.start()
    started = time.monotonic() - t0
    assert c.stop(timeout_s=10.0)
    assert started < 1.0


def test_sourcetable_listed_off_thread_nearest_first():
    with LoopbackCaster() as caster:
        got = []
        done = threading.Event()
        thread = fetch_sourcetable(Caster.parse(caster.url()), lambda m: (got.append(m), done.set()),
                                   lambda e: (got.append(e), done.set()), near=(43.0, -89.4))
        assert thread.name == "fieldapp-ntrip-table"
        assert done.wait(30)
        assert [m.name for m in got[0]] == [MOUNT]
        assert got[0][0].format == "RTCM 3.3"
    rows = [["A", "", "", "", "", "", "", "", "44.0", "-89.4"], ["B", "", "", "", "", "", "", "", "43.1", "-89.4"],
            ["C", "", "", "", "", "", "", "", "", ""]]
    # 1 degree of latitude is 111.2 km on pygnssutils' haversine sphere (R 6378.137 km: 111.3)
    ordered = parse_sourcetable(rows, near=(43.0, -89.4))
    assert [m.name for m in ordered] == ["B", "A", "C"]
    assert round(ordered[0].distance_km, 1) == 11.1 and ordered[2].distance_km is None


def test_sourcetable_wrong_password_is_said():
    with LoopbackCaster() as caster:
        got = []
        fetch_sourcetable(Caster.parse(caster.url(password="x")), got.append, got.append).join(30)
        assert got == [f"caster 127.0.0.1:{caster.port} refused user 'surveyor': wrong user name or "
                       "password (HTTP 401)"]


@pytest.mark.filterwarnings("ignore:ssl.PROTOCOL_TLS is deprecated:DeprecationWarning")  # the caster's
def test_https_caster(tmp_path, monkeypatch):
    import pygnssutils.gnssntripclient as pgc

    pem, crt = self_signed_pem(tmp_path)
    with LoopbackCaster(tls_pem=pem) as caster:
        assert caster.url().startswith("ntrips://")
        # not signed by a CA the client knows: refused, and said so
        rec = Recorder()
        with client(caster.url(), rec):
            assert wait_for(lambda: rec.messages(NtripState.DISCONNECTED))
        msg = rec.messages(NtripState.DISCONNECTED)[0]
        assert msg.startswith(f"caster 127.0.0.1:{caster.port}: the HTTPS connection failed (")
        assert "certificate verify failed" in msg
        # trusted (as certifi's bundle would trust a public caster's): corrections over TLS
        monkeypatch.setattr(pgc, "findcacerts", lambda: crt)
        rec = Recorder()
        with client(caster.url(), rec):
            assert wait_for(lambda: len(rec.frames) >= 4)
        assert {int(RTCMReader.parse(f).identity) for f in rec.frames} == {1005, 1004}
