"""The one simulator factory (devices.sim.factory): one builder per simulator name, and the
app's --simulate devices built through it with the scenario's defaults."""

from __future__ import annotations

import pytest

from devices.sim import factory
from devices.sim.scenario import boundary_for, load_scenario, ohwm_tour, start_position


def test_one_builder_per_simulator_name():
    assert list(factory.SIMULATORS) == ["gnss", "replay", "rangefinder", "caliper",
                                        "inclinometer"]
    assert factory.SIMULATOR_KINDS["replay"] == ("gnss", "nmea")
    assert factory.SIMULATOR_KINDS["caliper"] == ("caliper", "digitech")
    with pytest.raises(ValueError, match="already registered"):
        factory.register_simulator("gnss", "gnss", "nmea")(lambda *a: None)
    with pytest.raises(ValueError, match="'sonar' not one of"):
        factory.build_simulator("depth", {"simulator": "sonar"}, {})


def test_rangefinder_defaults_come_from_the_transect():
    scenario = {"transect": {"profile_ft": [[0, 100.0], [50, 95.0], [100, 90.0]],
                             "stations_ft": [0, 50, 100]}}
    sim = factory.build_simulator("rangefinder", {}, scenario)
    assert sim.targets_ft == [50, 100]        # the stations beyond the OHWM
    assert sim.azimuth_deg == 0.0             # no transect azimuth: due north


def test_app_gnss_spec_stands_at_the_transect_origin_with_a_steady_fix():
    demo = load_scenario()
    spec = factory.app_gnss_spec(demo, rate_hz=5.0, time_scale=10.0, scripted_events=False)
    assert spec["waypoints"] == [demo["transect"]["start"]] == [start_position(demo)]
    assert (spec["rate_hz"], spec["time_scale"]) == (5.0, 10.0)
    assert spec["quality_schedule"] == [] and spec["dropouts"] == []
    assert demo["devices"]["gnss"]["quality_schedule"]          # the scenario is not changed
    scripted = factory.app_gnss_spec(demo)
    assert scripted["rate_hz"] == 1 and len(scripted["quality_schedule"]) == 2


def test_where_things_are_in_a_scenario():
    scenario = {"transect": {"start": [43.0, -91.0]},
                "ohwm": [[43.1, -91.0], [43.0001, -91.0], [43.2, -91.0]],
                "wetland": {"boundary": [[1, 1], [1, 2], [2, 2]]}}
    # from the OHWM point nearest the transect origin along the bank to the end with more
    # points (never back over the line: the line joins the points in the order taken)
    assert ohwm_tour(scenario) == [[43.0001, -91.0], [43.2, -91.0]]
    west = {**scenario, "ohwm": [[43.3, -91.0], [43.1, -91.0], [43.0001, -91.0], [43.2, -91.0]]}
    assert ohwm_tour(west) == [[43.0001, -91.0], [43.1, -91.0], [43.3, -91.0]]
    assert boundary_for(scenario, "wetland") == [[1, 1], [1, 2], [2, 2], [1, 1]]
    assert boundary_for(scenario, "grove") is None and boundary_for(scenario, "drive") is None


def test_shoot_fires_at_the_next_target_beyond_the_station():
    class Rangefinder:
        targets_ft = [20.0, 40.0, 60.0]

        def set_station(self, station_ft):
            self.station_ft = station_ft

        def shoot(self, target_ft):
            return target_ft

    r = Rangefinder()
    assert factory.shoot(r, 20.0) == 40.0 and r.station_ft == 20.0
    assert factory.shoot(r, 60.0) is None
