"""The report's track summary and map line read from the track's columns."""

from __future__ import annotations

import pytest

from fieldapp.report.content import gather, load_visit
from tests.track_sample import visit_with_track


def test_track_summary_and_map_line_from_the_columns(tmp_path):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    visit = load_visit(path)
    content = gather(visit, path, conflicts=[])
    # by hand: 12 fixes; fix 4 autonomous, fid 6 without a quality, the rest RTK fixed, in the
    # order first seen; HDOP 0.70 + i/100 except fixes 2 and 8 (none): 10 values, the 6th of
    # them sorted is 0.76, the largest 0.81
    assert content.track_summary["fixes"] == 12
    assert content.track_summary["qualities"] == {"RTK fixed": 10, "autonomous": 1, "–": 1}
    assert list(content.track_summary["qualities"]) == ["RTK fixed", "autonomous", "–"]
    assert content.track_summary["median_hdop"] == pytest.approx(0.76)
    assert content.track_summary["max_hdop"] == pytest.approx(0.81)
    line = content.map.track
    frame = visit.frame
    first = visit.track_log.record(0)
    assert len(line.coords) == 12
    assert line.coords[0] == pytest.approx((frame.to_ft(first.x), frame.to_ft(first.y)))
