"""The command-line tools' console: a character the code page lacks is replaced, never fatal."""

from __future__ import annotations

import io
import sys

import pytest

from devices.console import tolerant_console


def _console(encoding: str, errors: str = "strict") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors=errors, newline="\n",
                            write_through=True)   # "\n" as written, on Windows too


@pytest.mark.parametrize("encoding, shown, errors", [("cp1252", "??ka – Wis?a ? ? ?", "strict"),
                                                     ("cp437", "??ka ? Wis?a ≥ ? σ", "strict"),
                                                     # a C/POSIX locale's (wine's, with LANG=C.UTF-8)
                                                     ("cp1252", "??ka – Wis?a ? ? ?", "surrogateescape")])
def test_output_replaces_what_the_code_page_lacks_and_keeps_its_encoding(monkeypatch, encoding, shown,
                                                                         errors):
    out, err = _console(encoding, errors), _console(encoding, errors)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with pytest.raises(UnicodeEncodeError):
        print("Łąka – Wisła ≥ − σ")   # as the command died before
    tolerant_console()
    print("Łąka – Wisła ≥ − σ")
    print("Łąka", file=sys.stderr)
    assert out.encoding == encoding and out.errors == "replace"
    assert out.buffer.getvalue().decode(encoding) == shown + "\n"
    assert err.buffer.getvalue().decode(encoding) == "\\u0141\\u0105ka\n"


def test_no_console_or_a_capture_is_left_alone(monkeypatch):
    monkeypatch.setattr(sys, "stdout", None)      # the windowed app
    capture = io.StringIO()
    monkeypatch.setattr(sys, "stderr", capture)
    tolerant_console()
    assert sys.stdout is None and sys.stderr is capture
    already = _console("cp1252", "backslashreplace")
    monkeypatch.setattr(sys, "stdout", already)
    tolerant_console()
    assert already.errors == "backslashreplace"


def test_a_closed_or_detached_stream_never_makes_it_raise(monkeypatch):
    """A tool whose stdout was closed (a pipe's reader gone) or detached by a library still
    starts: tolerant_console never raises."""
    closed = _console("cp1252")
    closed.close()
    detached = _console("cp437")
    detached.detach()
    monkeypatch.setattr(sys, "stdout", closed)
    monkeypatch.setattr(sys, "stderr", detached)
    tolerant_console()
    assert sys.stdout is closed and sys.stderr is detached
