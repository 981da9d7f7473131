"""Sentence scanner: a framer for byte streams whose line ends cannot be trusted.

Over Bluetooth LE a Vertex Laser Geo delivers a sentence in notify fragments (20-byte MTU
chunks), sometimes with other bytes glued in front (``22  22  15  182614$PHGF,HVV,...``) and
no CR/LF between messages. Instead of splitting on line ends this scanner looks for complete
``$...*HH`` sentences whose checksum matches and drops everything else (counted).
"""

from __future__ import annotations

import re

from devices.instruments.sentence import nmea_checksum
from devices.transport import Framer

_TAIL_RE = re.compile(rb"\*([0-9A-Fa-f]{2})")


class SentenceScanner(Framer):
    """Feed bytes, get back complete checksummed sentences (``b"$...*HH"``, no line end).

    Same shape as a line framer (``feed(bytes) -> list[bytes]``), so a reader can use it as
    its ``framer_factory``.

    Parameters
    ----------
    max_sentence : int
        Longest sentence kept while waiting for its checksum (NMEA allows 82; vendors exceed
        it, so 256 by default). A longer candidate is dropped.

    Attributes
    ----------
    dropped_bytes : int
        Bytes that were not part of a valid sentence (prefixes, noise, bad sentences).
    dropped_frames : int
        Candidate sentences dropped (bad checksum, cut off by a new ``$``, too long).

    Examples
    --------
    >>> s = SentenceScanner()
    >>> s.feed(b"junk$PLTIT,HT,15.") + s.feed(b"70,F*0E$PLT")
    [b'$PLTIT,HT,15.70,F*0E']
    """

    def __init__(self, max_sentence: int = 256) -> None:
        self.max_sentence = max_sentence
        self._buf = bytearray()
        self.dropped_bytes = 0
        self.dropped_frames = 0

    def _drop(self, n: int, fragment: bool) -> None:
        if n > 0:
            self.dropped_bytes += n
            if fragment:
                self.dropped_frames += 1
            del self._buf[:n]

    def feed(self, data: bytes) -> list[bytes]:
        """Add ``data``; return the sentences now complete, in order."""
        self._buf.extend(data)
        out: list[bytes] = []
        while True:
            start = self._buf.find(b"$")
            if start < 0:
                self._drop(len(self._buf), False)
                return out
            self._drop(start, False)
            nxt = self._buf.find(b"$", 1)
            m = _TAIL_RE.search(self._buf, 1, nxt if nxt > 0 else len(self._buf))
            if m is None:
                if nxt > 0:  # a new sentence began before this one ended: lost fragment
                    self._drop(nxt, True)
                    continue
                if len(self._buf) > self.max_sentence:
                    self._drop(len(self._buf), True)
                return out
            end = m.end()
            body = bytes(self._buf[1 : m.start()])
            if nmea_checksum(body) == int(m.group(1), 16) and b"\n" not in body:
                out.append(bytes(self._buf[:end]))
                del self._buf[:end]
            else:
                self._drop(end, True)

    def reset(self) -> None:
        """Forget a partial sentence (after a reconnect); it is not counted as dropped."""
        self._buf.clear()

    def flush(self) -> list[bytes]:
        """Drop what is left (an unfinished sentence at end of stream); returns ``[]``."""
        if self._buf:
            self._drop(len(self._buf), b"$" in self._buf)
        return []
