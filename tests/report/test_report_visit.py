"""What the report gathers from the sample visit (``tests/report/sample_visit.py``; no Qt).

Site: Wisconsin Transverse Mercator (EPSG:3070, metres, international foot for lengths), on the
central meridian (90° W), where the grid scale factor is k0 = 0.9996 exactly (WTM definition), so
ground areas are grid areas / 0.9996² — the figures below are worked by hand from that.
"""

from __future__ import annotations

import pytest

from tests.report.sample_visit import FT, K0, build_sample_visit


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = tmp_path_factory.mktemp("visit") / "mill-creek.gpkg"
    info = build_sample_visit(path)
    info["path"] = path
    return info


def test_gathered_checks_match_the_hand_worked_examples(sample):
    from fieldapp.report.content import gather, load_visit

    c = gather(load_visit(sample["path"]), sample["path"])
    by_title = {k.title: k.result for k in c.checks}
    # rules-contract examples: 30 @ 4 %, 60 @ 18 %, 120 @ 5 % -> bank 90 ft (slope)
    assert by_title["Bank T1 (NR 341.035)"]["bank_ft"] == pytest.approx(90.0)
    assert by_title["Bank T1 (NR 341.035)"]["citation"] == "NR 341.035(1)(a)"
    # ... 45 @ 5 % -> at least 90 ft, walk more than 5 ft further
    assert by_title["Bank T2 (NR 341.035)"]["bank_ft_at_least"] == pytest.approx(90.0)
    assert by_title["Bank T2 (NR 341.035)"]["walk_further_ft"] == pytest.approx(5.0)
    # wetland 260 x 520 ft: average width = area / long axis = 260 ft; less susceptible -> 26 ft
    pa = by_title["Protective area W1 (NR 151.125)"]
    assert pa["average_width_ft"] == pytest.approx(260.0)
    assert pa["width_ft"] == pytest.approx(26.0)
    # 30 x 30 ft foundation: 900 + 4*30*20 + pi*20^2 = 4556.64 sq ft
    assert by_title["Development area (city)"]["envelope_area_sqft"] == pytest.approx(4556.64, abs=0.01)
    # ground area of the wetland: 260*520 / 0.9996^2
    assert c.wetlands[0].area_sqft == pytest.approx(260 * 520 / K0**2, rel=1e-6)
    # verdicts are ordered bank first, T1 before T2
    assert [k.title for k in c.checks][:2] == ["Bank T1 (NR 341.035)", "Bank T2 (NR 341.035)"]


def test_gathered_gnss_profiles_and_conflicts(sample):
    from fieldapp.report.content import gather, load_visit

    c = gather(load_visit(sample["path"]), sample["path"])
    assert len(c.gnss) == 3
    g = c.gnss[0]
    # 10 RTK-fixed epochs used, the 2 no-fix epochs rejected; antenna height from the site
    assert (g.sample_count, g.rejected_count, g.worst_fix_quality) == (10, 2, 4)
    assert g.antenna_height_m == 1.8 and g.quality_words == "RTK fixed"
    # the largest correction age of the 10 epochs used: 0.5 + 0.9 = 1.4 s
    assert (g.correction_age_s, g.correction_mount) == (pytest.approx(1.4), "WIDOT1")
    assert g.corrections_words == "WIDOT1, 1.4 s"
    t1 = c.transects[0]
    # relative elevations carried by slope: 30*0.04 = 1.2, + 60*0.18 = 12.0, + 120*0.05 = 18.0
    assert [round(s[1], 6) for s in t1.stations] == [0.0, 1.2, 12.0, 18.0]
    assert (t1.base_ft, t1.threshold_pct) == (75.0, 12.0)
    assert len(c.conflicts) == 1 and c.conflicts[0].field == "dbh_in"
    # the bank point of T1 lies 90 ft (27.432 m) north of its origin (azimuth 0, grid ~ true here)
    name, bx, by, known = c.map.bank_points[0]
    assert name == "T1" and known
    # grid length = k0 x ground length (geodesic 90 ft solved on the ellipsoid)
    assert by - sample["y0"] / FT == pytest.approx(90.0 * K0, abs=0.01)
