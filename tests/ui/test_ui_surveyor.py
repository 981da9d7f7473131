"""The simulated surveyor reads only the app layer (the Recording, the DeviceFeed) and finds the
panels through its narrow interface (fieldapp.ui.simsupport.PanelShelf / SurveyedPanel): no
window, a fake visit, shelf and panel suffice."""

from __future__ import annotations

import datetime as dt

import pytest

from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.recording import Recording
from fieldapp.ui.simsupport import SimulatedSurveyor


class FakePanel:
    def __init__(self, title):
        self.title = title
        self.said, self.walkers, self.azimuths = [], [], []
        self.busy_averaging = False

    def surveyor_says(self, text):
        self.said.append(text)

    def walker_changed(self, walker):
        self.walkers.append((walker.busy, walker.mode))

    def averaging(self):
        return self.busy_averaging

    def type_azimuth(self, azimuth_deg):
        self.azimuths.append(azimuth_deg)

    def expect_crown(self, crown_radius_ft):
        pass


class FakeVisit:
    current_transect = None

    def __init__(self):
        self.points = []

    def ohwm_points(self):
        return self.points


class FakeShelf:
    """The workflow tabs: the panel shown, every panel, a tab change."""

    def __init__(self, panels):
        self.panels = {p.title.lower(): p for p in panels}
        self.shown = panels[0]
        self.listeners = []

    def current(self):
        return self.shown

    def every(self):
        return self.panels.values()

    def on_shown(self, fn):
        self.listeners.append(fn)

    def show(self, title):
        self.shown = self.panels[title.lower()]
        for fn in self.listeners:
            fn(self.shown)


class Scene:
    """What the surveyor reads (the visit, the fixes) and where it finds the panels."""

    def __init__(self, panels):
        self.shelf = FakeShelf(panels)
        self.recording = Recording(FakeVisit())
        self.feed = DeviceFeed()
        self.feed.problem = None        # every fix usable: the newest one is the fix

    @property
    def visit(self):
        return self.recording.visit

    @property
    def fix(self):
        return self.feed.usable_fix()

    @fix.setter
    def fix(self, fix):
        self.feed.latest_fix = fix

    def show(self, title):
        self.shelf.show(title)


class FakeGnss:
    arrival_utc = dt.datetime(2026, 6, 1, 15, 0, 0, tzinfo=dt.UTC)

    def __init__(self):
        self.walks, self.arrived = [], False

    def walk_to(self, lat, lon, speed_m_s):
        self.walks.append((lat, lon, speed_m_s))
        self.arrived = False

    def hold(self):
        pass


class Fix:
    def __init__(self, time_utc):
        self.time_utc = time_utc


SCENARIO = {"devices": {"gnss": {"speed_m_s": 1.2}},
            "transect": {"start": [43.0, -91.0], "azimuth_deg": 350.0},
            "ohwm": [[43.0, -91.0], [43.0002, -91.0]]}


@pytest.fixture
def surveyed(qapp):
    """(surveyor, window, receiver, OHWM panel, Transect panel): fakes around a real
    SimulatedSurveyor over :data:`SCENARIO`; its poll timer stopped after the test."""
    ohwm, transect = FakePanel("OHWM"), FakePanel("Transect")
    w = Scene([ohwm, transect])
    gnss = FakeGnss()
    s = SimulatedSurveyor(w.recording, w.feed, w.shelf, gnss, SCENARIO, poll_ms=10_000)
    yield s, w, gnss, ohwm, transect
    s.timer.stop()


def test_walks_to_the_ohwm_point_and_says_so_through_the_panel(surveyed):
    s, w, gnss, ohwm, transect = surveyed
    assert s.speed_m_s == 6.0                      # 5 x the scenario's 1.2 m/s
    s.to_next_ohwm()
    assert gnss.walks == [(43.0, -91.0, 6.0)]
    assert ohwm.said == ["walking to OHWM point 1…"]
    assert ohwm.walkers == transect.walkers == [(True, "ohwm")]   # every panel told
    # arrived, but the app's fix is older than the arrival: still waiting
    gnss.arrived = True
    w.fix = Fix(gnss.arrival_utc - dt.timedelta(seconds=1))
    s._poll()
    assert s.busy
    w.fix = Fix(gnss.arrival_utc)
    s._poll()
    assert not s.busy and s.mode is None
    assert ohwm.said[-1] == "on the OHWM at point 1 of the scenario: press Average point [A]."
    # a point recorded while averaging: the surveyor waits for the averaging to end
    w.visit.points.append(object())
    ohwm.busy_averaging = True
    s._poll()
    assert len(gnss.walks) == 1
    ohwm.busy_averaging = False
    s._poll()
    assert gnss.walks[-1][:2] == (43.0002, -91.0)


def test_types_the_landward_azimuth_at_the_transect_origin(surveyed):
    s, w, gnss, ohwm, transect = surveyed
    w.show("Transect")                               # the panel-shown hook walks there
    assert gnss.walks == [(43.0, -91.0, 6.0)] and s.mode == "transect"
    gnss.arrived, w.fix = True, Fix(gnss.arrival_utc)
    s._poll()
    assert transect.azimuths == [350.0]
    assert "landward azimuth 350.0°" in transect.said[-1]


def test_arriving_after_the_transect_was_started_leaves_the_panel_alone(surveyed):
    # The crew pressed Start transect before the surveyor reached the origin (a loaded machine,
    # or a quick crew): the panel's status line shows the transect's state (e.g. the bank
    # verdict) and must not be overwritten by "press Start transect", nor the azimuth retyped.
    s, w, gnss, ohwm, transect = surveyed
    w.show("Transect")
    said_while_walking = list(transect.said)
    w.visit.current_transect = object()              # started while the surveyor walks
    gnss.arrived, w.fix = True, Fix(gnss.arrival_utc)
    s._poll()
    assert not s.busy
    assert transect.said == said_while_walking       # nothing said over the verdict
    assert transect.azimuths == []
    assert s.words == "at the transect origin: shoot the stations."


def test_after_the_scenarios_last_ohwm_point_the_surveyor_stays_put(surveyed):
    # the demo has its OHWM points: once each is recorded the surveyor does not start the
    # tour again (a 9th "point 1" would join the OHWM line back to its start)
    s, w, gnss, ohwm, transect = surveyed
    w.visit.points = ["point 1"]
    s.to_next_ohwm()
    assert gnss.walks == [(43.0002, -91.0, 6.0)] and ohwm.said[-1] == "walking to OHWM point 2…"
    w.visit.points = ["point 1", "point 2"]
    s.to_next_ohwm()
    assert gnss.walks == [(43.0002, -91.0, 6.0)] and not s.busy and s.walking_to is None
    assert ohwm.said[-1] == ("every OHWM point of the scenario is recorded (2): the Transect"
                             " tab (Ctrl+2) is next.")


def test_a_fix_without_a_comparable_time_counts_the_fixes_the_feed_received(surveyed):
    # a receiver's naive time cannot be compared with the simulator's aware arrival: the
    # surveyor counts the fixes the DeviceFeed told its listeners since the arrival instead
    s, w, gnss, ohwm, transect = surveyed
    s.to_next_ohwm()
    gnss.arrived = True
    naive = Fix(dt.datetime(2026, 6, 1, 15, 0, 0))
    w.feed.fix(naive)
    w.fix = naive
    s._poll()                                        # the arrival's count taken: 1 fix
    assert s.busy and s._arrival_count == 1
    w.feed.fix(naive)
    s._poll()
    assert s.busy                                    # one fix since the arrival: not yet
    w.feed.fix(naive)
    s._poll()
    assert not s.busy and w.feed.fix_count == 3
    assert ohwm.said[-1] == "on the OHWM at point 1 of the scenario: press Average point [A]."


def test_no_surveyor_without_a_simulated_receiver(qapp):
    from fieldapp.ui.simsupport import surveyor

    panel = FakePanel("OHWM")
    w = Scene([panel])
    assert surveyor(None, w.recording, w.feed, w.shelf) is None     # no devices started yet
