"""NMEA 0183 framing for instrument sentences: our own checksum check and field split.

pynmea2 knows the standard talker sentences but not the instrument vendors' proprietary ones
(``$PLTIT``, ``$PTNLA``, ``$PMDLA``, ``$PHGF``), so those are split here. The checksum is the
XOR of every byte between ``$`` and ``*``, sent as two hex digits (NMEA 0183 section 5.2.1).

Raises :class:`devices.errors.ChecksumError` for a checksum mismatch and :class:`ValueError`
for anything else malformed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import reduce

from devices.errors import ChecksumError

_CHECKSUM_RE = re.compile(rb"\*([0-9A-Fa-f]{2})\s*$")


def nmea_checksum(body: bytes) -> int:
    """XOR of the bytes of ``body`` (the text between ``$`` and ``*``).

    >>> f"{nmea_checksum(b'PLTIT,HT,15.70,F'):02X}"
    '0E'
    """
    return reduce(lambda a, b: a ^ b, body, 0)


def with_checksum(body: str) -> bytes:
    """Frame ``body`` as a full sentence ``$body*HH\\r\\n`` (used by the simulators).

    >>> with_checksum("PLTIT,HT,15.70,F")
    b'$PLTIT,HT,15.70,F*0E\\r\\n'
    """
    data = body.encode("ascii")
    return b"$" + data + b"*" + f"{nmea_checksum(data):02X}".encode() + b"\r\n"


@dataclass(frozen=True, slots=True)
class Sentence:
    """A checked sentence: address (``PLTIT``, ``APXDR``, ``OK``) and the fields after it."""

    address: str
    fields: tuple[str, ...]
    text: str
    """The sentence from ``$`` through the checksum, without line end (for pynmea2)."""
    has_checksum: bool


def split_sentence(line: bytes, *, require_checksum: bool = True) -> Sentence:
    """Check and split one NMEA-style sentence.

    Bytes before the first ``$`` (a BLE notify prefix, line noise) are ignored; trailing
    CR/LF and spaces are ignored.

    Parameters
    ----------
    line : bytes
        One sentence, e.g. ``b"$PLTIT,HV,16.00,F,0.00,D,-1.20,D,16.00,F*49\\r\\n"``.
    require_checksum : bool
        Refuse a sentence without ``*HH`` (default). ``$OK`` replies are always accepted bare.

    Returns
    -------
    Sentence

    Raises
    ------
    ChecksumError
        The ``*HH`` checksum does not match the XOR of the body.
    ValueError
        No ``$``, non-ASCII bytes, or a missing checksum when one is required.

    Examples
    --------
    >>> s = split_sentence(b"$PLTIT,HT,15.70,F*0E\\r\\n")
    >>> s.address, s.fields
    ('PLTIT', ('HT', '15.70', 'F'))
    """
    start = line.find(b"$")
    if start < 0:
        raise ValueError(f"no '$' in {line[:40]!r}")
    data = line[start:].rstrip(b"\r\n \t")
    m = _CHECKSUM_RE.search(data)
    if m:
        body = data[1 : m.start()]
        sent = int(m.group(1), 16)
        actual = nmea_checksum(body)
        if sent != actual:
            raise ChecksumError(data, f"checksum *{sent:02X} does not match {actual:02X}")
    else:
        body = data[1:]
        if require_checksum and body.split(b",", 1)[0] != b"OK":
            raise ValueError(f"no checksum in {data[:60]!r}")
    try:
        text_body = body.decode("ascii")
    except UnicodeDecodeError as exc:
        raise ValueError(f"non-ASCII bytes in {data[:60]!r}") from exc
    if "$" in text_body:
        raise ValueError(f"two sentence starts in {data[:60]!r}")
    parts = text_body.split(",")
    return Sentence(
        address=parts[0],
        fields=tuple(parts[1:]),
        text=data.decode("ascii", "replace"),
        has_checksum=m is not None,
    )


def opt_float(value: str, name: str) -> float | None:
    """A numeric field, ``None`` when empty.

    Raises
    ------
    ValueError
        Naming the field when the text is not a number.
    """
    value = value.strip()
    if not value:
        return None
    try:
        return float(value)
    except ValueError as exc:
        raise ValueError(f"{name} {value!r} is not a number") from exc
