"""``fieldapp rules ...``: re-run rule requests from the office.

Usage::

    fieldapp rules evaluate FILE.json [--indent N]   # FILE '-' reads standard input (UTF-8)
    fieldapp rules list                              # the rule ids

``FILE.json`` holds one request or a list of them; the command prints one result per request
as a JSON list. Exit 0; 1 if any request errored (the others are still evaluated); 2 when the
file cannot be read, is not JSON, or is an empty list.
"""

from __future__ import annotations

import argparse
import codecs
import errno
import json
import os
import sys
from collections.abc import Sequence

from fieldapp.rules.contract import RULES, evaluate, json_bytes
from fieldapp.rules.results import error_result

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fieldapp rules",
                                description="Evaluate rule requests: the request and result format, with examples, is"
                                            " in the README section 'Rule requests (fieldapp rules)';"
                                            " sample requests are in examples/rules/.")
    sub = p.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="evaluate the requests in FILE.json and print the results")
    ev.add_argument("file", metavar="FILE.json", help="one request or a list of them; '-' for standard input")
    ev.add_argument("--indent", type=int, default=2, help="JSON indent (default 2; -1 for one line)")
    sub.add_parser("list", help="print the rule ids")
    return p


def _text(raw: bytes) -> str:
    """A request file's bytes as text: UTF-8, with or without the byte-order mark Windows
    Notepad writes, or UTF-16 with its byte-order mark (what Windows PowerShell 5's ``>`` and
    ``Out-File`` write).

    >>> _text(b'\\xef\\xbb\\xbf{"rule": "x"}'), _text('{"a": "Łąka"}'.encode("utf-16"))
    ('{"rule": "x"}', '{"a": "Łąka"}')
    >>> _text('{"crew": "Müller"}'.encode("cp1252"))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    ValueError: not UTF-8 text (byte 0xfc at position 11: saved as ANSI / cp1252?):
    save it as UTF-8 (Notepad: File › Save as, Encoding UTF-8)

    Raises
    ------
    ValueError
        Neither: the byte and its position, and how to save the file as UTF-8.
    """
    if raw[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as err:
            raise ValueError(f"damaged UTF-16 text at byte {err.start}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"not UTF-8 text (byte 0x{raw[err.start]:02x} at position {err.start}: saved as ANSI /"
            " cp1252?): save it as UTF-8 (Notepad: File › Save as, Encoding UTF-8)"
        ) from None


def _write(data: bytes) -> None:
    """``data`` to standard output as bytes: ``\\n`` stays ``\\n`` on Windows too (a text
    stream there writes ``\\r\\n``), so the output is the same bytes on every platform."""
    sys.stdout.flush()
    out = getattr(sys.stdout, "buffer", None)
    if out is None:   # a stream without bytes (a test's StringIO)
        sys.stdout.write(data.decode("ascii"))
        sys.stdout.flush()
        return
    out.write(data)
    out.flush()


def read_input(file: str) -> str:
    """The text of request file ``file`` (``"-"``: standard input, its bytes, so UTF-8 is read
    as a file is, not in the console's code page, cp1252/cp437 on Windows), decoded by
    :func:`_text`.

    Raises
    ------
    OSError
        The file cannot be read (:func:`unreadable_words` says why in words).
    ValueError
        Not UTF-8 / UTF-16 text.
    """
    if file == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        return _text(stdin.read()) if stdin is not None else sys.stdin.read()
    with open(file, "rb") as fh:
        return _text(fh.read())


def unreadable_words(file: str, err: OSError) -> str:
    """Why ``file`` could not be read, in words ("no such file", "it is a folder, not a file"
    -- which Windows reports as EACCES --, "permission denied", else the system's words)."""
    words: dict[int | None, str] = {errno.ENOENT: "no such file", errno.EISDIR: "it is a folder, not a file",
                                    errno.EACCES: "permission denied"}
    why = words.get(err.errno, err.strerror or str(err))
    if err.errno == errno.EACCES and os.path.isdir(file):
        why = "it is a folder, not a file"  # Windows refuses to open a folder as EACCES
    return why


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fieldapp rules`` with ``argv`` (the arguments after ``rules``); return the exit status."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.command == "list":
        print("\n".join(sorted(RULES)))
        return 0
    try:
        data = json.loads(read_input(args.file))
    except RecursionError:
        print(f"fieldapp rules evaluate: cannot read {args.file}: JSON nested too deeply", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"fieldapp rules evaluate: cannot read {args.file}: too large to hold in memory", file=sys.stderr)
        return 2
    except OSError as err:      # "[Errno 2] No such file or directory: 'x.json'" in words
        print(f"fieldapp rules evaluate: cannot read {args.file}: {unreadable_words(args.file, err)}",
              file=sys.stderr)
        return 2
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError, int too long
        print(f"fieldapp rules evaluate: cannot read {args.file}: {err}", file=sys.stderr)
        return 2
    requests = data if isinstance(data, list) else [data]
    if not requests:
        # an empty list evaluates nothing: saying "0 results, exit 0" would pass a broken
        # office script that lost its requests
        print(f"fieldapp rules evaluate: {args.file} holds an empty list: no request to evaluate",
              file=sys.stderr)
        return 2
    results = []
    for request in requests:
        result = evaluate(request)  # never raises: a failure is that request's error result
        try:
            json.dumps(result, allow_nan=False)
        except (ValueError, TypeError, RecursionError) as err:  # evaluate() guards this; belt and braces
            key = "input" if isinstance(request, dict) and isinstance(request.get("input"), dict) else "request"
            result = error_result(result.get("rule"), key, f"internal error: result not JSON: {err}")
        results.append(result)
    indent = None if args.indent < 0 else args.indent
    try:
        _write(json_bytes(results, indent))
    except OSError as err:
        if not isinstance(err, BrokenPipeError) and err.errno != errno.EINVAL:
            raise
        # the reader went away (``... | head -1``): no traceback now, nor when Python flushes at
        # exit; exit 1, as fieldapp-nmea does. POSIX says EPIPE (BrokenPipeError); Windows says
        # EINVAL for a write to a pipe whose reader has closed it.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 1 if any(r.get("status") == "error" for r in results) else 0
