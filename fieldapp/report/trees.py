"""The report's list of individual trees (issue 35 item 14: only the 2-inch classes were
printed, so the office could not find a tree in the field): each tree's tag, species, DBH,
leaf habit, crown radius, status and position in the site CRS, in tag order."""

from __future__ import annotations

from typing import Any

from reportlab.platypus import Flowable

from .layout import esc, fmt, heading, para, table


def tree_rows(c: Any) -> list[list[str]]:
    """One row per tree of the visit (``c``: a :class:`fieldapp.report.content.ReportContent`):
    tag, species, DBH (in), leaf habit, crown radius (ft), status, x and y (grid feet of the
    site's foot in the site CRS; "–" before the site CRS is known)."""
    visit = c.visit
    frame = c.frame
    rows = []
    for t in sorted(visit.trees(), key=lambda t: (t.tag, t.uuid)):
        x = fmt(frame.to_ft(t.x), 1) if frame is not None else "–"
        y = fmt(frame.to_ft(t.y), 1) if frame is not None else "–"
        rows.append([str(t.tag), esc(t.species_name or t.species_code or "–"), fmt(t.dbh_in, 1),
                     esc(getattr(t.leaf_habit, "value", str(t.leaf_habit))),
                     fmt(t.crown_radius_ft, 1) if t.crown_radius_ft is not None else "–",
                     esc(getattr(t.status, "value", str(t.status))), x, y])
    return rows


def trees_section(c: Any, w: float) -> list[Flowable]:
    """The heading and the table of every tree (nothing when none was tallied)."""
    rows = tree_rows(c)
    if not rows:
        return []
    foot = c.frame.foot.label if c.frame is not None else "ft"
    crs = c.frame.crs.name if c.frame is not None else "site CRS"
    return heading("Trees", 2, para(
        f"Every tree tallied, by tag: position in {esc(crs)}, grid {esc(foot)}.")) + [
        table(["Tag", "Species", "DBH (in)", "Leaf habit", "Crown radius (ft)", "Status",
               f"Easting ({esc(foot)})", f"Northing ({esc(foot)})"], rows, w, {0, 2, 4, 6, 7})]


__all__ = ["tree_rows", "trees_section"]


def devices_words(c: Any) -> str:
    """The instruments of the visit for the site block: the crew's own names and serial numbers
    when recorded (``Site.device_ids``), else what the kept readings and the fixes show (issue
    35 item 14: "Devices –" was printed although a caliper, a rangefinder and a receiver were
    used): each instrument with its protocol and how many of its readings made records, the
    receiver with how many fixes it logged, and that their names and serials were not recorded."""
    from fieldapp.survey.features import Layer

    site = c.visit.site
    if site.device_ids:                 # in words: "GNSS receiver: R12i 6012", not "gnss: ..."
        from fieldapp.store.devicewords import role_words

        return "; ".join(f"{role_words(k)}: {v}" for k, v in site.device_ids)
    kept: dict[tuple[str, str], int] = {}
    for r in c.visit.features(Layer.DEVICE_READING):
        key = (getattr(r.device, "value", str(r.device)), r.protocol)
        kept[key] = kept.get(key, 0) + 1
    parts = [f"{device} ({protocol} protocol, {n} reading{'s' if n != 1 else ''} kept)"
             for (device, protocol), n in sorted(kept.items())]
    fixes = int(c.track_summary.get("fixes", 0) or 0)
    averaged = sum(1 for p in c.visit.features(Layer.OHWM_POINT)
                   if getattr(p.method, "value", p.method) == "averaged")
    if fixes or averaged:
        parts.insert(0, "GNSS receiver (NMEA 0183; " + ", ".join(
            w for w in (f"{fixes:,} fixes logged" if fixes else "",
                        f"{averaged} averaged OHWM point{'s' if averaged != 1 else ''}"
                        if averaged else "") if w) + ")")
    if not parts:
        return "–"
    return ("; ".join(parts) + ". Their names and serial numbers were not recorded (the site's"
            " form: Records tab, Site, F4).")
