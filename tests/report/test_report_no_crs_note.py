"""A note placed before the site CRS is known (``Visit.add_note(x=, y=)`` accepts a position with
no frame yet): the report's notes table lists it with its position and no latitude / longitude,
instead of failing on the missing frame (found by mypy: ``SiteFrame | None``)."""

from __future__ import annotations

from datetime import UTC, datetime

from fieldapp.report.content import gather
from fieldapp.report.sections import notes_section
from fieldapp.survey.visit import Visit


def test_a_positioned_note_without_a_site_crs_is_listed_without_lat_lon(tmp_path):
    visit = Visit.new("Mill Creek lot", who="tester@laptop")
    assert not visit.has_frame
    visit.add_note("flagged oak at the fence", x=10.0, y=20.0)
    visit.add_note("no position")
    content = gather(visit, tmp_path / "visit.gpkg", conflicts=[], now=datetime(2026, 6, 1, tzinfo=UTC))
    table = notes_section(content, 500.0)[-1]
    cells = [[p.text for p in row] for row in table._cellvalues]
    assert cells[0][:3] == ["Map #", "Note", "Position (site CRS; lat, lon)"]
    assert cells[1][:3] == ["1", "flagged oak at the fence", "10.00 E, 20.00 N (no site CRS yet)"]
    assert cells[2][:3] == ["–", "no position", "no position"]
