"""Hostile casters on loopback: one that streams text after ``ICY 200 OK`` leaks no thread
however often the client reconnects; one whose source table never ends is cut off in words;
a caster's own bytes reach the status line printable, short and free of markup."""

from __future__ import annotations

import threading
import time

import pytest

from devices.ntrip import (
    ANSWER_MAX_BYTES,
    CASTER_TEXT_CHARS,
    Caster,
    NtripClient,
    NtripState,
    caster_text,
    fetch_sourcetable,
)
from tests.devices.ntripcaster import ScriptedCaster, answer, endless_sourcetable, endless_text
from tests.devices.test_ntrip import Recorder, client, wait_for


def _ours(baseline: set[threading.Thread]) -> list[threading.Thread]:
    """Threads started since ``baseline`` that are not the test caster's."""
    return [t for t in threading.enumerate()
            if t not in baseline and not t.name.startswith("test-") and t.is_alive()]


def test_caster_streaming_text_after_icy_leaks_no_thread_per_reconnect():
    with ScriptedCaster(endless_text) as caster:
        baseline = set(threading.enumerate())
        rec = Recorder()
        extra_at_connect: list[int] = []  # threads beside the client's own, at each new attempt

        def status(s) -> None:
            rec.status(s)
            if s.state is NtripState.CONNECTING:
                extra_at_connect.append(len(_ours(baseline)) - 1)

        c = NtripClient(Caster.parse(caster.url()), rec.write, on_status=status, gga_interval_s=None,
                        backoff_min_s=0.2, backoff_max_s=1.0, inactivity_s=3.0).start()
        try:
            # each attempt is cut after 16 kB of text; 10 reconnects within a bounded wait
            assert wait_for(lambda: len(extra_at_connect) >= 10, timeout_s=120)
        finally:
            assert c.stop(), "the client or its reader did not end"
        # every attempt began with the last one's reader ended (before the fix: 0, 1, 2, ...)
        assert extra_at_connect[:10] == [0] * 10
        assert wait_for(lambda: not _ours(baseline), timeout_s=10), [t.name for t in _ours(baseline)]
        # (a reader slow to end on a loaded machine is waited for and said so: not counted)
        said = [m for m in rec.messages(NtripState.DISCONNECTED) if not m.startswith("waiting")]
        assert len(said) >= 9
        assert all(f"caster 127.0.0.1:{caster.port} sent " in m and "bytes that are not RTCM 3 "
                   "corrections on 'MOUNT'" in m for m in said[:9]), said[:9]
        assert not rec.frames


def test_stop_cuts_a_read_from_a_silent_caster_short():
    # the caster answers and then says nothing: pygnssutils' reader sits in recv for its whole
    # 30 s timeout unless stopping shuts its socket
    def silent(conn, _request) -> None:
        conn.sendall(b"ICY 200 OK\r\n\r\n")
        time.sleep(40)

    with ScriptedCaster(silent) as caster:
        baseline = set(threading.enumerate())
        c = NtripClient(Caster.parse(caster.url()), lambda b: len(b), gga_interval_s=None,
                        inactivity_s=30.0).start()
        assert wait_for(lambda: caster.connections >= 1)
        t0 = time.monotonic()
        assert c.stop(timeout_s=10.0)
        assert not c.reader_running
        assert wait_for(lambda: not _ours(baseline), timeout_s=3.0), [t.name for t in _ours(baseline)]
        assert time.monotonic() - t0 < 10.0


def test_endless_source_table_is_cut_off_in_words():
    with ScriptedCaster(endless_sourcetable) as caster:
        baseline = set(threading.enumerate())
        got: list[object] = []
        done = threading.Event()
        thread = fetch_sourcetable(Caster.parse(f"ntrip://u:p@127.0.0.1:{caster.port}/"),
                                   lambda m: (got.append(m), done.set()),
                                   lambda e: (got.append(e), done.set()), timeout_s=60)
        assert done.wait(90)
        thread.join(10)
        assert got == [f"caster 127.0.0.1:{caster.port} sent more than "
                       f"{ANSWER_MAX_BYTES // 2**20} MB without starting corrections (not an NTRIP "
                       "caster?); it answered 'SOURCETABLE 200 OK'"]
        assert wait_for(lambda: not _ours(baseline), timeout_s=10), [t.name for t in _ours(baseline)]


HOSTILE = [
    # not an HTTP status: pygnssutils' error quotes the bytes (escape codes, markup, 5 kB)
    (b"HTTP/1.1 \x1b[2J<img src=file:///etc/passwd>" + b"A" * 5000 + b"\r\n\r\n",
     "does not answer like an NTRIP caster (it answered 'HTTP/1.1 ?[2J\u2039img src=file:///etc/passwd\u203a"),
    # a status code padded to 3000 digits: pygnssutils takes the digits as its description
    (b"HTTP/1.1 " + b"0" * 3000 + b"299 \x07\r\n\r\n", "answered 299 000"),
    # the mountpoint is not there: the source table's names are the caster's text
    (b"SOURCETABLE 200 OK\r\nContent-Type: gnss/sourcetable\r\n\r\n"
     b"STR;<b>BIG</b>\x1b[31m" + b"Z" * 300 + b";x;RTCM 3.3;;2;GPS;NET;USA;43;-89;0;0\r\n"
     b"ENDSOURCETABLE\r\n",
     "is not on caster 127.0.0.1:{port} (it sent its source table instead: \u2039b\u203aBIG\u2039/b\u203a?[31mZZ"),
]


@pytest.mark.parametrize(("raw", "words"), HOSTILE, ids=["garbled-status", "long-status", "table-names"])
def test_caster_bytes_reach_the_status_line_sanitized(raw, words):
    with ScriptedCaster(answer(raw)) as caster:
        rec = Recorder()
        with client(caster.url(), rec):
            assert wait_for(lambda: rec.messages(NtripState.DISCONNECTED))
        msg = rec.messages(NtripState.DISCONNECTED)[0]
    assert words.format(port=caster.port) in msg, msg
    assert msg.isprintable() and "<" not in msg and ">" not in msg and "\x1b" not in msg, msg
    # the caster's piece is cut to CASTER_TEXT_CHARS; the rest is our own words
    assert len(msg) <= 160 + CASTER_TEXT_CHARS, (len(msg), msg)
    assert "…" in msg


def test_caster_text_rules():
    assert caster_text(b"\xff\xfeok\tthen\r\n\x00x") == "\ufffd\ufffdok then ?x"
    assert caster_text("\u202eevil") == "?evil"  # a right-to-left override is not printable
    assert caster_text("a" * 61) == "a" * 59 + "…"
    assert len(caster_text(b"<" * 10_000)) == CASTER_TEXT_CHARS
