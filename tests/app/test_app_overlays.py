"""The map's tree crowns kept between refreshes (fieldapp.app.overlays.TreeCrowns): a squeeze
works out the new tree only, and the list always equals the whole tally worked out afresh."""

from __future__ import annotations

import pytest

from fieldapp.app.overlays import CLASS_COLOURS, TreeCrowns, _crowns_of
from fieldapp.app.visit import open_visit

E0, N0 = 500_000.0, 4_800_000.0   # UTM 16N metres; the map's crowns are in site feet


def _afresh(v) -> list:
    stands = [(a.geometry, v.checks.get(f"woodland:{a.uuid}").result.get("class") or "none")
              for a in v.areas("woodland_stand") if v.checks.get(f"woodland:{a.uuid}")]
    return _crowns_of(v.model.trees(), v.model.frame, stands)


def test_a_squeeze_appends_one_crown_and_an_edit_draws_the_tally_again(tmp_path):
    v = open_visit(tmp_path / "v.gpkg", crs="EPSG:32616")
    try:
        v.model.add_area("woodland_stand", [(E0, N0), (E0 + 20, N0), (E0 + 20, N0 + 20),
                                            (E0, N0 + 20)], label="A")
        # a 30 ft crown over most of a 20 m square: a mature woodland by canopy
        a = v.model.add_tree(x=E0 + 10, y=N0 + 10, dbh_in=12.0, crown_radius_ft=30.0)
        v.model.add_tree(x=E0 + 200, y=N0 + 10, dbh_in=6.0)          # outside, no crown given
        v.refresh_checks()
        kept = TreeCrowns()
        first = kept.crowns(v)
        cls = v.checks.get(f"woodland:{v.areas('woodland_stand')[0].uuid}").result["class"]
        assert cls == "mature"
        # by hand: site feet are metres / 0.3048; 6 in DBH and no crown: max(6, 3) / 2 = 3 ft;
        # the tree inside takes its stand's class colour, the one outside its size's
        assert [c[:3] for c in first] == [
            pytest.approx(((E0 + 10) / 0.3048, (N0 + 10) / 0.3048, 30.0), abs=1e-6),
            pytest.approx(((E0 + 200) / 0.3048, (N0 + 10) / 0.3048, 3.0), abs=1e-6)]
        assert [c[3] for c in first] == [CLASS_COLOURS[cls], CLASS_COLOURS["none"]]
        assert first == _afresh(v)
        assert kept.crowns(v) is first                       # nothing changed: the same list
        v.model.add_tree(x=E0 + 50, y=N0 + 50, dbh_in=14.0, crown_radius_ft=12.0)
        v.refresh_checks()
        second = kept.crowns(v)
        assert second is not first and second[:2] == first and len(second) == 3
        assert second == _afresh(v)
        v.model.update_tree(a.uuid, dbh_in=4.0)               # an edit in the middle of the tally
        v.refresh_checks()                                    # (no longer a mature stand)
        assert kept.crowns(v) == _afresh(v) and kept.crowns(v)[0][3] == CLASS_COLOURS["none"]
        v.model.delete_tree(a.uuid)
        v.refresh_checks()
        third = kept.crowns(v)
        assert len(third) == 2 and third == _afresh(v)
    finally:
        v.close()
