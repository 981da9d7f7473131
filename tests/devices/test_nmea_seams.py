"""The seams of the devices.nmea package and of the device readers' base, on hand-worked values:
one reader of GSV bodies, one of the GSA system id, the receiver-cycle learner alone, and
DeviceReader's lifecycle hooks."""

from __future__ import annotations

import threading
import time

import pynmea2

from devices.device_reader import DeviceReader
from devices.nmea import CYCLE_LEARN_S, CycleLearner, parse_sentence
from devices.nmea.cycle import _cycle_key
from devices.nmea.epoch import _Epoch
from devices.nmea.sentences import _gsa_system_id, _gsa_used_ids, _gsv_body, _gsv_sats, _time_of_day
from devices.transport import LinkState, SerialSettings


def msg(body: str) -> pynmea2.NMEASentence:
    return parse_sentence(f"${body}*{pynmea2.NMEASentence.checksum(body):02X}".encode())


def test_gsv_body_splits_header_satellite_groups_and_signal_id():
    # 3 header fields, 2 satellites (8 fields), 1 left over: the NMEA 4.10 signal id
    head, sats, signal = _gsv_body(["3", "3", "10", "01", "45", "120", "40", "02", "30", "200", "35", " 7"])
    assert head == ["3", "3", "10"]
    assert sats == ["01", "45", "120", "40", "02", "30", "200", "35"]
    assert signal == "7"
    # two or three fields left over are neither a satellite nor a signal id
    assert _gsv_body(["1", "1", "01", "05", "45", "120", "40", "x", "y"]) == (
        ["1", "1", "01"], ["05", "45", "120", "40"], "")
    assert _gsv_body(["1", "1"]) == (["1", "1"], [], "")


def test_gsv_cycle_key_and_satellites_in_view_read_the_same_body():
    last = msg("GLGSV,2,2,05,70,40,083,46,1")
    first = msg("GLGSV,2,1,05,68,12,300,20,69,55,040,41,70,40,083,46,71,02,190,,1")
    assert _cycle_key(last, "GLGSV", "GSV") == "GLGSV signal 1 last page"
    assert _cycle_key(first, "GLGSV", "GSV") == "GLGSV signal 1 page"
    # PRN 70 is on both pages: 4 distinct satellites, and the signal id 1 is not one
    assert _gsv_sats([first, last]) == {("GL", "68"), ("GL", "69"), ("GL", "70"), ("GL", "71")}


def test_gsa_system_id_is_read_in_one_place():
    v410 = msg("GNGSA,A,3,01,02,,,,,,,,,,,1.8,0.9,1.5,1")
    old = msg("GPGSA,A,3,01,02,03,,,,,,,,,,1.8,0.9,1.5")
    assert _gsa_system_id(v410.data) == "1" and _gsa_system_id(old.data) is None
    assert _cycle_key(v410, "GNGSA", "GSA") == "GNGSA system 1"
    assert _cycle_key(old, "GPGSA", "GSA") == "GPGSA"
    # satellites used: by system id where sent, else by talker
    assert _gsa_used_ids([v410, old]) == {("1", "01"), ("1", "02"), ("GP", "01"), ("GP", "02"), ("GP", "03")}


def _epoch(second: int) -> _Epoch:
    """A closed epoch of a GGA then an RMC at 12:00:<second>, as the assembler leaves it."""
    ep = _Epoch()
    ep.tod = _time_of_day(f"1200{second:02d}.00")
    ep.has_position = True
    ep.seen = {"GPGGA": 1, "GPRMC": 1}
    ep.last = "GPRMC"
    return ep


def test_cycle_learner_learns_the_last_sentence_after_cycle_learn_s_of_epochs():
    assert CYCLE_LEARN_S == 10.0
    learner = CycleLearner()
    for second in range(10):  # 12:00:00 .. 12:00:09: 9 s watched
        learner.learn(_epoch(second))
    assert learner.words == ()
    learner.learn(_epoch(10))  # 10 s watched, RMC never followed: it ends the cycle
    assert learner.words == ("GPRMC",)
    assert learner.enders == {"GPRMC": {1}}
    learner.ban(("GPRMC", 1), "GPGSV")  # followed after an early close: never again
    assert learner.words == ()
    learner.learn(_epoch(11))
    assert learner.words == ()
    learner.forget()
    for second in range(20, 31):
        learner.learn(_epoch(second))
    assert learner.words == ("GPRMC",)


class _Probe(DeviceReader):
    def __init__(self, settings, on_status):
        self.stopped = 0
        super().__init__(settings, on_status, name="probe")

    def _on_line(self, line, t):
        pass

    def _on_stopped(self):
        self.stopped += 1


def test_device_reader_lifecycle_and_hooks():
    states = []
    connected = threading.Event()

    def on_status(status):
        states.append(status.state)
        if status.state is LinkState.CONNECTED:
            connected.set()

    probe = _Probe(SerialSettings("loop://"), on_status)
    assert probe.settings.url == "loop://" and not probe.running
    with probe:
        assert connected.wait(5.0)
        assert probe.running
    assert probe.stopped == 1 and not probe.running
    deadline = time.monotonic() + 5.0
    while LinkState.STOPPED not in states and time.monotonic() < deadline:
        time.sleep(0.01)
    assert states[:2] == [LinkState.CONNECTING, LinkState.CONNECTED] and states[-1] is LinkState.STOPPED
