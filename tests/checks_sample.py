"""The checks tests' sample: an empty visit in UTM zone 16N (EPSG:32616, metres) at the central
meridian (x = 500,000 m), where the grid scale factor is 0.9996, and the shapes drawn on it in
ground feet (:func:`g`: a ground length of L ft is ``from_ft(L) * k`` grid metres)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from shapely.geometry import box

from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit

X0, Y0 = 500_000.0, 4_983_000.0


def clock():
    t = [datetime(2024, 6, 3, 14, 0, tzinfo=UTC)]

    def now():
        t[0] += timedelta(seconds=1)
        return t[0]
    return now


def new_visit() -> Visit:
    """An empty visit at (X0, Y0)'s zone, its clock one second a call from 2024-06-03 14:00 UTC."""
    return Visit.new("Mill Creek lot", crs="EPSG:32616", who="tester@laptop", clock=clock())


def g(visit, ft):
    """Grid metres for ``ft`` ground feet at the site (scale factor k at X0, Y0)."""
    frame = visit.frame
    return frame.from_ft(ft) * frame.scale_factor(X0, Y0)


def square(visit, x_ft, y_ft, w_ft, h_ft):
    """A box ``w_ft`` x ``h_ft`` (ground ft) with its south-west corner at (x_ft, y_ft)."""
    return box(X0 + g(visit, x_ft), Y0 + g(visit, y_ft),
               X0 + g(visit, x_ft + w_ft), Y0 + g(visit, y_ft + h_ft))


def two_crown_stand(visit):
    """A 100 x 100 ft stand with two 12 in deciduous trees 20 ft apart, crown radius 30 ft."""
    stand = visit.add_area("woodland_stand", square(visit, 0, 0, 100, 100), label="Stand 1")
    for x_ft in (40.0, 60.0):
        visit.add_tree(x=X0 + g(visit, x_ft), y=Y0 + g(visit, 50.0), dbh_in=12.0,
                       leaf_habit="deciduous", crown_radius_ft=30.0)
    # every tree of the stand is recorded: its verdicts are no longer provisional
    return visit.update_feature(Layer.AREA, stand.uuid, tally_complete=True)
