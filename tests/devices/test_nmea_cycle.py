"""The cycle ender: an epoch's fix is delivered on the line that ends the receiver's cycle, once
that line is learned (devices.nmea.EpochAssembler). Pure: bytes in, no threads, no clock.

The learning rule (EpochAssembler's class notes): a sentence that ended at least
CYCLE_LEARN_EPOCHS (2) epochs and has not been followed by another sentence of its epoch for
CYCLE_LEARN_S (10) seconds of epoch times becomes an ender. Epochs are closed (and learnt from) when
the next epoch's first line arrives, so with 1 Hz epochs 0, 1, 2, ... the epoch at second k is
learnt from with k seconds watched: a sentence that ended every epoch is learned when epoch 10 is
closed, and epoch 11 is the first delivered on its own last line. Every expected index below is
worked out that way, by hand.

Each fix delivered early must equal (all fields; same receive time) the fix of the same lines
closed the old way, by a flush: the reference.
"""

from __future__ import annotations

import pynmea2
import pytest

from devices.nmea import CYCLE_LEARN_EPOCHS, CYCLE_LEARN_S, EpochAssembler

assert (CYCLE_LEARN_EPOCHS, CYCLE_LEARN_S) == (2, 10.0)  # the hand-worked indices below assume these


def sentence(body: str) -> bytes:
    """``$body*hh`` with the checksum computed by pynmea2 (not by the code under test)."""
    return f"${body}*{pynmea2.NMEASentence.checksum(body):02X}".encode()


GSV1 = sentence("GPGSV,2,1,06,01,40,083,46,02,17,308,41,12,07,344,39,14,22,228,45")
GSV2 = sentence("GPGSV,2,2,06,15,50,120,44,24,35,200,40")


def epoch_lines(second: int, zda: bool = True, gsv: bool = True, extra: tuple[bytes, ...] = ()) -> list[bytes]:
    """One 1 Hz epoch at 12:00:<second> on 1 Jul 2024, as a u-blox sends it: GGA RMC GSA GSV GSV
    GST ZDA (ZDA last: the cycle ender), then ``extra``."""
    t = f"1200{second:02d}.00"
    lat = f"4807.{100 + second:03d}"
    lines = [
        sentence(f"GNGGA,{t},{lat},N,01131.000,E,1,09,0.8,545.4,M,46.9,M,,"),
        sentence(f"GNRMC,{t},A,{lat},N,01131.000,E,0.5,45.0,010724,,,A,V"),
        sentence("GNGSA,A,3,01,02,12,14,15,24,,,,,,,1.5,0.8,1.2,1"),
    ]
    if gsv:
        lines += [GSV1, GSV2]
    lines.append(sentence(f"GNGST,{t},0.9,1.2,0.8,45.0,1.1,1.0,2.1"))
    if zda:
        lines.append(sentence(f"GNZDA,{t},01,07,2024,00,00"))
    return lines + list(extra)


def reference(lines: list[bytes], t: float):
    """The fix of one epoch's lines closed by a flush, as before the cycle ender existed."""
    a = EpochAssembler()
    out = a.feed_many(lines, t) + a.flush()
    assert len(out) == 1
    return out[0]


class Stream:
    """Feeds epochs line by line (epoch k received at t = k s); records where each fix came out."""

    def __init__(self):
        self.a = EpochAssembler()
        self.delivered: dict[int, tuple[int, int]] = {}  # fix second -> (epoch, line index) it came out on
        self.fixes = []
        self.lines_of: dict[int, list[bytes]] = {}

    def feed(self, second: int, lines: list[bytes]) -> None:
        self.lines_of[second] = lines
        for i, line in enumerate(lines):
            for fix in self.a.feed(line, float(second)):
                self.delivered[fix.time_of_day_utc.second] = (second, i)
                self.fixes.append(fix)


def test_fix_is_delivered_on_the_learned_ender_line_and_equals_the_old_close():
    s = Stream()
    for k in range(14):
        s.feed(k, epoch_lines(k))
    last = len(epoch_lines(0)) - 1  # the ZDA, line 7 of each epoch
    # epochs 0..10 close on the next epoch's first line (learning); 11..13 on their own ZDA
    assert s.delivered == {**{k: (k + 1, 0) for k in range(11)}, **{k: (k, last) for k in (11, 12, 13)}}
    assert s.a.cycle_enders == ("GNZDA",)
    assert s.a.pending_since_s is None  # epoch 13 is out: nothing waits for the next epoch
    stats = s.a.stats
    assert stats.fixes == 14 and stats.early_closes == 3 and stats.late_lines == 0 and stats.total_bad == 0
    # every fix, early or not, is the fix of its lines closed the old way (all fields equal)
    for fix in s.fixes:
        k = fix.time_of_day_utc.second
        assert fix == reference(s.lines_of[k], float(k))
        assert fix.sentences == ("GNGGA", "GNRMC", "GNGSA", "GPGSV", "GPGSV", "GNGST", "GNZDA")
        assert fix.sats_in_view == 6 and fix.sigma_alt_m == 2.1


def test_a_sentence_after_the_ender_is_counted_late_never_a_second_fix():
    # the receiver is set up to send VTG after ZDA from epoch 12 on: epoch 12 is already out at
    # its ZDA; its VTG is late (counted, not used), ZDA is never trusted again, and VTG, which
    # then ends every epoch, is learned after it ended epochs 12 and 13 (10 s watched long
    # since, never followed): epoch 14 is delivered on its VTG.
    vtg = sentence("GNVTG,45.0,T,,M,0.5,N,0.9,K,A")
    s = Stream()
    for k in range(12):
        s.feed(k, epoch_lines(k))
    for k in range(12, 16):
        s.feed(k, epoch_lines(k, extra=(vtg,)))
    zda, after = len(epoch_lines(0)) - 1, len(epoch_lines(0))
    assert s.delivered[11] == (11, zda) and s.delivered[12] == (12, zda)
    assert s.delivered[13] == (14, 0)  # fallback: no ender trusted
    assert s.delivered[14] == (14, after) and s.delivered[15] == (15, after)
    assert s.a.cycle_enders == ("GNVTG",)
    stats = s.a.stats
    assert stats.late_lines == 1 and stats.fixes == 16 and stats.bad["time_backwards"] == 0
    assert [f.time_of_day_utc.second for f in s.fixes] == list(range(16))  # one fix per epoch
    assert "GNVTG" not in s.fixes[12].sentences and s.fixes[12] == reference(epoch_lines(12), 12.0)
    assert s.fixes[14] == reference(s.lines_of[14], 14.0) and s.fixes[14].sentences[-1] == "GNVTG"


def test_an_ender_that_stops_coming_falls_back_then_the_new_last_sentence_is_learned():
    # ZDA stops after epoch 11. Epochs 12.. close on the next epoch's first line. GST was last
    # followed (by ZDA) in epoch 11, closed with 11 s watched; it is learned when epoch 21 is
    # closed (21 - 11 = 10 s), so epoch 22 is delivered on its GST.
    s = Stream()
    for k in range(12):
        s.feed(k, epoch_lines(k))
    for k in range(12, 24):
        s.feed(k, epoch_lines(k, zda=False))
    gst = len(epoch_lines(0, zda=False)) - 1
    assert s.delivered[11] == (11, gst + 1)
    assert all(s.delivered[k] == (k + 1, 0) for k in range(12, 22))
    assert s.delivered[22] == (22, gst) and s.delivered[23] == (23, gst)
    # ZDA stays an ender too: it was never followed by anything, and if it comes back it ends the cycle
    assert s.a.cycle_enders == ("GNGST", "GNZDA")
    assert all(f == reference(s.lines_of[f.time_of_day_utc.second], float(f.time_of_day_utc.second))
               for f in s.fixes)


def test_a_sentence_sent_every_fifth_epoch_after_the_ender_keeps_it_from_being_learned():
    # SiRF style: GSV only every 5 s (epochs 4, 9, 14, ...), after the ZDA. ZDA is followed every
    # 5 s, so it is never 10 s unfollowed: never an ender, no epoch is cut short. The last GSV
    # page ends epochs 4, 9, 14 and is never followed: learned when epoch 14 is closed
    # (14 s watched, 3 epochs); epochs 19, 24 are delivered on it.
    s = Stream()
    for k in range(26):
        s.feed(k, epoch_lines(k, gsv=False) + ([GSV1, GSV2] if k % 5 == 4 else []))
    on_own_line = sorted(k for k, (at, _) in s.delivered.items() if at == k)
    assert on_own_line == [19, 24]
    assert s.a.cycle_enders == ("GPGSV last page",)
    assert s.a.stats.late_lines == 0
    for fix in s.fixes:
        k = fix.time_of_day_utc.second
        assert fix == reference(s.lines_of[k], float(k))
        assert (fix.sats_in_view == 6) == (k % 5 == 4)


def test_zda_first_receiver_is_not_split():
    # ZDA opens each cycle (ZDA GGA RMC): the old grouping puts it with the GGA and RMC after it,
    # the learned ender is RMC, and every fix still holds its own ZDA.
    s = Stream()
    for k in range(14):
        t = f"1200{k:02d}.00"
        s.feed(k, [sentence(f"GPZDA,{t},01,07,2024,00,00"),
                   sentence(f"GPGGA,{t},4807.{100 + k:03d},N,01131.000,E,1,09,0.8,545.4,M,46.9,M,,"),
                   sentence(f"GPRMC,{t},A,4807.{100 + k:03d},N,01131.000,E,0.5,45.0,010724,,,A")])
    assert s.a.cycle_enders == ("GPRMC",)
    assert s.delivered[11] == (11, 2) and s.delivered[10] == (11, 0)
    assert all(f.sentences == ("GPZDA", "GPGGA", "GPRMC") for f in s.fixes)


@pytest.mark.parametrize("last", ["GNGSA", "GNGNS", "GPGSV page"])
def test_gsa_gns_and_gsv_pages_but_the_last_are_never_enders(last):
    # one GSA / GNS per constellation used: their number changes with the solution, so the last
    # of them may be followed by another later; a GSV page that is not the last is followed by
    # more pages. Epochs ending with any of them close the old way only.
    tail = {
        "GNGSA": sentence("GNGSA,A,3,01,02,12,14,15,24,,,,,,,1.5,0.8,1.2,1"),
        "GPGSV page": GSV1,  # page 1 of 2, as a truncated group would end an epoch
    }
    s = Stream()
    for k in range(20):
        t = f"1200{k:02d}.00"
        gns = sentence(f"GNGNS,{t},4807.{100 + k:03d},N,01131.000,E,AA,09,0.8,545.4,46.9,,")
        lines = [sentence(f"GNGGA,{t},4807.{100 + k:03d},N,01131.000,E,1,09,0.8,545.4,M,46.9,M,,")]
        s.feed(k, lines + [gns if last == "GNGNS" else tail[last]])
    assert s.a.cycle_enders == () and s.a.stats.early_closes == 0
    assert all(at == k + 1 for k, (at, _) in s.delivered.items())


def test_forget_cycle_starts_learning_again():
    s = Stream()
    for k in range(12):
        s.feed(k, epoch_lines(k))
    assert s.a.cycle_enders == ("GNZDA",)
    s.a.forget_cycle()  # a receiver connected again: maybe another one
    for k in range(12, 15):
        s.feed(k, epoch_lines(k))
    assert s.a.cycle_enders == ()
    assert s.delivered[12] == (13, 0) and s.delivered[13] == (14, 0)


def test_learning_needs_epoch_time_not_lines():
    # 10 s of epochs, not 10 epochs: at 10 Hz the ZDA is learned when the epoch at 10.0 s closes
    # (epoch 100), so epoch 101 is the first delivered on its ZDA.
    a = EpochAssembler()
    delivered = {}
    for k in range(103):
        hh, rem = divmod(k, 10)
        t = f"1200{hh:02d}.{rem}0"
        for i, line in enumerate([sentence(f"GNGGA,{t},4807.100,N,01131.000,E,1,09,0.8,545.4,M,46.9,M,,"),
                                  sentence(f"GNZDA,{t},01,07,2024,00,00")]):
            for fix in a.feed(line, k / 10):
                delivered[fix.time_of_day_utc.second * 10 + fix.time_of_day_utc.microsecond // 100000] = (k, i)
    assert delivered[100] == (101, 0) and delivered[101] == (101, 1) and delivered[102] == (102, 1)
    assert a.stats.early_closes == 2

