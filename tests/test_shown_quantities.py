"""One rounding per quantity (issue 31, item 11): a 17.99 % slope reads "17.99" in the window's
record list, the live profile's labels, the report's table and figure and the verdict's inputs;
the exports carry the stored number; "not set" where nothing was entered."""

from __future__ import annotations

from types import SimpleNamespace as S

from fieldapp.rules.shown import NOT_SET, declination_text, slope_pct_text
from fieldapp.survey.features import Layer


def test_the_window_lists_a_station_with_the_slope_as_shown_everywhere():
    from fieldapp.app.editing import _details

    rec = S(distance_ft=90.0, slope_pct=17.99, interruption=False)
    assert _details(S(model=None), Layer.STATION, rec) == "90.0 ft from the OHWM, 17.99 %"
    assert slope_pct_text(17.99) == "17.99" and slope_pct_text(17.999) == "18.00"


def test_not_set_where_nothing_was_entered():
    assert declination_text(0.0, None) == NOT_SET == "not set"
    assert declination_text(0.0, "entered") == "+0.00°"     # the crew typed 0: it is set
    assert slope_pct_text(None) == NOT_SET
