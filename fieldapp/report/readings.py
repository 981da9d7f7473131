"""The report's appendix of instrument readings: the sentences the caliper and the rangefinder
sent for each tree and station recorded from them (store schema 5,
:class:`fieldapp.survey.features.DeviceReading`), so a DBH or a station's slope in a verdict can
be read back to what the instrument sent. No section when the visit kept none (typed values
only, or a visit recorded before schema 5).
"""

from __future__ import annotations

from typing import Any

from .content import ReportContent
from .layout import esc, heading, para, table
from .sections import feature_words

__all__ = ["readings_section", "raw_words", "reading_records"]


def raw_words(raw: bytes) -> str:
    """The sentences of ``raw`` as text, one a line; a byte that is not printable ASCII shown
    as ``\\xNN`` (nothing the instrument sent is dropped or changed).

    >>> raw_words(b"$PHGF,SPC,3,RO*49\\n$PHGF,DIA,M,312,*5D")
    '$PHGF,SPC,3,RO*49\\n$PHGF,DIA,M,312,*5D'
    >>> raw_words(b"$X,\\xb0*00")
    '$X,\\\\xb0*00'
    """
    return "\n".join("".join(chr(b) if 32 <= b < 127 else f"\\x{b:02x}" for b in line)
                     for line in raw.split(b"\n"))


def reading_records(visit: Any) -> dict[str, str]:
    """Reading uuid -> the record made from it, in field words ("Tree 12", "Transect T1
    station at 30.0 ft"): the trees by ``caliper_reading_id``, the stations by ``reading_id``."""
    from fieldapp.survey.features import Layer

    out: dict[str, str] = {}
    for t in visit.features(Layer.TREE):
        if t.caliper_reading_id:
            out[t.caliper_reading_id] = feature_words(visit, Layer.TREE.value, t.uuid)
    for s in visit.features(Layer.STATION):
        if s.reading_id:
            out[s.reading_id] = feature_words(visit, Layer.STATION.value, s.uuid)
    return out


def readings_section(c: ReportContent, w: float) -> list[Any]:
    """"Instrument readings": per kept reading, the record it made, the instrument and its
    protocol, the receive time (UTC) and the sentences as received; [] when none was kept."""
    from fieldapp.survey.features import Layer

    kept = sorted(c.visit.features(Layer.DEVICE_READING), key=lambda r: r.received_utc)
    if not kept:
        return []
    made = reading_records(c.visit)
    rows = []
    for r in kept:
        record = made.get(r.uuid, "(record deleted)")
        device = f"{r.device.value} ({r.protocol})" if r.protocol else r.device.value
        rows.append([esc(record), esc(device), esc(f"{r.received_utc:%Y-%m-%d %H:%M:%S} UTC"),
                     esc(raw_words(r.raw)).replace("\n", "<br/>"), esc(r.uuid[:8])])
    n = f"{len(kept)} reading{'' if len(kept) == 1 else 's'}"
    intro = para(esc("The sentences the caliper and the rangefinder sent for the trees and stations "
                     f"recorded from them, as received ({n}; the reading id begins the tree's "
                     "caliper_reading_id or the station's reading_id in the visit file and its "
                     "exports)."))
    return heading("Instrument readings", 1, intro) + [
        table(["Record", "Instrument", "Received", "Sentences as received", "Reading id"], rows, w)]
