"""The demo scenario's content, start_scenario, and the `python -m devices.sim` CLI."""

from __future__ import annotations

import os

import pytest
from pyproj import Geod

from devices.sim.demo_scenario import build_demo
from devices.sim.rangefinder import TerrainProfile
from devices.sim.scenario import load_scenario, scenario_names, start_scenario

FT2_PER_M2 = 1 / 0.3048**2


def test_shipped_demo_is_what_the_generator_builds():
    assert "demo" in scenario_names()
    assert load_scenario("demo") == build_demo()


def test_demo_site_on_a_wisconsin_stream_with_the_steep_pitch():
    from fieldapp.geo import utm_zone, wisconsin_counties

    demo = load_scenario("demo")
    lat, lon = demo["transect"]["start"]
    assert 43.55 < lat < 43.65 and -90.70 < lon < -90.60  # Kickapoo River north of La Farge
    # the state sections are Wisconsin's: the demo lies in Vernon County, still UTM zone 15
    assert wisconsin_counties(lat, lon) == ("Vernon",) and utm_zone(lat, lon) == (15, True)
    assert demo["site"]["name"] == "Kickapoo River, La Farge, Vernon County, Wisconsin"
    profile = TerrainProfile(demo["transect"]["profile_ft"])
    st = demo["transect"]["stations_ft"]
    slopes = [round(profile.slope_pct(a, b), 6) for a, b in zip(st, st[1:], strict=False)]
    # 4 % to 40 ft, 18-20 % from 40 to 120 ft, 3-5 % beyond to 250 ft
    assert slopes == [4, 4, 18, 18, 20, 20, 5, 5, 3, 3]
    # NR 341.035(1)(a): steep (>= 12 %) starting at 40 ft <= 75 ft extends the bank to where
    # the first run of more than 50 ft below 12 % begins: 120 ft (130 ft of 3-5 % follow).
    assert demo["transect"]["expected_nr341_bank"]["bank_ft"] == 120


def test_demo_wetland_is_about_12000_sq_ft():
    wet = load_scenario("demo")["wetland"]["boundary"]
    area_m2, _ = Geod(ellps="WGS84").polygon_area_perimeter([p[1] for p in wet],
                                                          [p[0] for p in wet])
    # 16-gon inscribed in a 72 x 55 ft ellipse: 8 * 72 * 55 * sin(22.5 deg) = 12,122 sq ft
    assert abs(area_m2) * FT2_PER_M2 == pytest.approx(12122, rel=0.01)


def test_demo_stand_is_a_mature_woodland_by_grove():
    trees = load_scenario("demo")["stand"]["trees"]
    assert len(trees) == 25
    grove = [t for t in trees if t["leaf_habit"] == "deciduous" and t["dbh_in"] >= 18.0]
    assert len(grove) == 10  # city chapter: a grove needs 8+ deciduous trees >= 18 in caliper


def test_start_scenario_gives_ports_and_configs():
    with start_scenario("demo") as run:
        ports = run.ports
        assert set(ports) == {"gnss", "rangefinder", "caliper"}
        assert all(os.path.exists(p) for p in ports.values())
        configs = run.device_configs()
        assert (configs["rangefinder"].kind, configs["rangefinder"].protocol) == (
            "rangefinder", "trupulse")
        assert configs["gnss"].url == ports["gnss"]
    assert not any(os.path.exists(p) and p.startswith("/tmp") for p in ports.values())


def test_cli_lists_and_runs(capsys, tmp_path):
    from devices.sim.__main__ import main

    assert main(["--list"]) == 0
    assert "demo" in capsys.readouterr().out
    assert main(["--only", "rangefinder,caliper", "--link-dir", str(tmp_path),
                 "--duration", "0.2"]) == 0
    out = capsys.readouterr().out
    assert f"rangefinder  {tmp_path}/rangefinder" in out
    assert "protocol digitech" in out
    assert main(["--scenario", "no-such-scenario"]) == 2
