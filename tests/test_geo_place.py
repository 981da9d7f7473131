"""Issue 35 item 16: which county a site is in, for the rule sets' sentence (the state sections
are Wisconsin's): from PROJ's WISCRS areas of use, worked through the positions below."""

from __future__ import annotations

import pytest

from fieldapp.geo import wisconsin_counties, wisconsin_place_words
from fieldapp.rules.rulesets import OUTSIDE_WISCONSIN, rule_sets_words
from fieldapp.survey.place import place_of


@pytest.mark.parametrize(("lat", "lon", "counties", "words"), [
    (43.592, -90.642, ("Vernon",), "Vernon County, Wisconsin"),          # the demo, La Farge
    (43.80, -91.20, ("La Crosse",), "La Crosse County, Wisconsin"),
    (43.07, -89.40, ("Dane",), "Dane County, Wisconsin"),                 # Madison
    # one WISCRS zone serves two counties: both named
    (43.97, -89.77, ("Adams", "Juneau"), "Adams or Juneau County, Wisconsin"),
    (43.3035, -91.786, (), None),                                         # Decorah, Iowa
    (41.90, -87.60, (), None),                                            # Chicago
])
def test_county_from_the_position(lat, lon, counties, words):
    assert wisconsin_counties(lat, lon) == counties
    assert wisconsin_place_words(lat, lon) == words
    assert place_of(lat, lon) == (words or OUTSIDE_WISCONSIN)


def test_rule_sets_say_whether_the_state_sections_apply_here_and_whose_local_chapter_it_is():
    here = rule_sets_words("Vernon County, Wisconsin")
    assert "protective areas. They apply: the site is in Vernon County, Wisconsin. Local (City of Decorah" in here
    away = rule_sets_words(OUTSIDE_WISCONSIN)
    assert ("The site lies outside Wisconsin: they are checked as the app's state sections, not as the"
            " law there.") in away
    unknown = rule_sets_words(None)
    assert "They apply in Wisconsin; the site's county is named from its first fix." in unknown
    for text in (here, away, unknown):      # never the Decorah chapter as the law elsewhere
        assert text.endswith("(chosen for the app; it is the law only inside the City of Decorah).")
