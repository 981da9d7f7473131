"""The report's Sync conflicts table in the crew's words: a tag clash names the other tree
(no Python dict), HDOP reads HDOP (fieldapp.sync.conflictwords, the CLI's words too)."""

from __future__ import annotations

from types import SimpleNamespace

from fieldapp.report.sections import conflicts_section
from fieldapp.survey.visit import Visit
from fieldapp.sync.conflicts import Conflict, ConflictKind


def _cells(flowables) -> list[list[str]]:
    table = flowables[-1]
    return [[getattr(p, "text", str(p)) for p in row] for row in table._cellvalues]


def test_tag_clash_and_hdop_conflicts_read_in_crew_words():
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    other = "aaaaaaaa-0000-4000-8000-0000000000a1"
    records = [
        Conflict("1" * 32, "tree", "bbbbbbbb-0000-4000-8000-0000000000b1", 2, "tag", ConflictKind.TAG_CLASH, None,
                 {"uuid": other, "tag": 1}, 1, "both", "last-sync-wins", "c", 1),
        Conflict("2" * 32, "track_point", "cccccccc-0000-4000-8000-0000000000c1", 3, "hdop",
                 ConflictKind.SAME_FIELD, 0.9, 1.1, 1.3, "ours", "last-sync-wins", "c", 1),
    ]
    header, clash, hdop = _cells(conflicts_section(SimpleNamespace(conflicts=records, visit=visit), 500))
    assert header[3:6] == ["Before both edits", "Office copy", "This laptop"]
    assert clash[1:6] == ["Tag", "tag-clash", "–", f"tag 1 is also on tree {other}", "tag 1"]
    assert hdop[1] == "HDOP" and hdop[3:6] == ["0.900", "1.100", "1.300"]
