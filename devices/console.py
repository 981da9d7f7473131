"""The console of the command-line tools (``fieldapp``, ``fieldapp-nmea``, ``fieldapp-sim``).

On Windows standard output and error piped or redirected to a file (an office script, ``> log``)
are encoded in the ANSI (cp1252) or OEM (cp437) code page, which has no "Ł" nor "≥": printing a
site named "Łąka – Wisła" there raised ``UnicodeEncodeError`` after the work was done, and the
command died with a traceback. :func:`tolerant_console` makes such characters print as ``?``
(standard output) or as ``\\u0141`` (standard error, Python's own choice for it) instead.
"""

from __future__ import annotations

import io
import sys

__all__ = ["tolerant_console"]

#: how each stream shows a character its encoding lacks: "?" in output another program reads;
#: the code point (``\u0141``) in messages, so the name in an error can still be worked out
ERRORS = {"stdout": "replace", "stderr": "backslashreplace"}
#: error handlers that never raise on a character the encoding lacks: a stream with one is kept
TOLERANT = frozenset({"replace", "backslashreplace", "xmlcharrefreplace", "namereplace", "ignore"})


def tolerant_console() -> None:
    """Reconfigure ``sys.stdout`` and ``sys.stderr`` so that a character their encoding cannot
    show is replaced (:data:`ERRORS`) instead of raising; their encoding is kept (a program
    reading our output decodes it as before). A stream that is ``None`` (the windowed app has
    none) or not a :class:`io.TextIOWrapper` (a test's capture) is left as it is. Never raises."""
    for name, errors in ERRORS.items():
        stream = getattr(sys, name, None)
        # "strict", or "surrogateescape" (what Python takes under a C/POSIX locale, and under
        # wine's): both raise on a character the code page lacks
        if isinstance(stream, io.TextIOWrapper) and stream.errors not in TOLERANT:
            try:
                stream.reconfigure(errors=errors)
            except (ValueError, OSError):   # closed, or its encoder cannot be changed now
                pass
