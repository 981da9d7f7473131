"""Seams of the report that need no visit: the bank figures a profile shows (read from the
rule's result, or from the rule's table before there is one) and the output-place checks the
report and the exports share."""

from __future__ import annotations

from pathlib import Path

import pytest

from fieldapp.checks import Check
from fieldapp.report.content import BANK_PARAMETERS, bank_figures
from fieldapp.report.guard import output_folder, refuse_existing
from fieldapp.rules import evaluate


def bank_check(priority: bool) -> Check:
    request = {"rule": "nr341.bank", "input": {"priority": priority, "segments": []}}
    return Check("bank:t", "Bank T1", request, evaluate(request))


def test_profile_figures_come_from_the_bank_result():
    # NR 341.035(1)(b): a priority waterway's result carries 300 ft and 10 %; the result wins
    # over the site flag it is given
    assert bank_figures(bank_check(True), False) == (300.0, 10.0)
    assert bank_figures(bank_check(False), True) == (75.0, 12.0)


def test_profile_figures_without_a_result_come_from_the_rule_table():
    # no check (no station), a check awaiting data or an error result: (1)(a) 75 ft / 12 %,
    # (1)(b) 300 ft / 10 %
    assert bank_figures(None, False) == (75.0, 12.0)
    assert bank_figures(None, True) == (300.0, 10.0)
    error = Check("bank:t", "Bank T1", {"rule": "nr341.bank"},
                  {"rule": "nr341.bank", "status": "error", "key": "input", "message": "x"})
    assert bank_figures(error, True) == (300.0, 10.0)
    assert BANK_PARAMETERS == {False: (75.0, 12.0), True: (300.0, 10.0)}


class Exists(Exception):
    pass


class Failed(Exception):
    pass


def test_an_existing_output_is_refused_without_force(tmp_path):
    out = tmp_path / "report.pdf"
    refuse_existing(out, False, Exists)          # not there yet: fine
    out.write_text("old")
    refuse_existing(out, True, Exists)           # forced: fine
    with pytest.raises(Exists, match=r"report.pdf exists; use --force \(force=True\)"):
        refuse_existing(out, False, Exists)


def test_the_output_folder_must_exist(tmp_path):
    assert output_folder(tmp_path / "report.pdf", Failed) == tmp_path
    assert output_folder(Path("report.pdf"), Failed) == Path(".")
    with pytest.raises(Failed, match="the folder .*missing does not exist"):
        output_folder(tmp_path / "missing" / "report.pdf", Failed)


def test_a_long_track_is_decimated_to_the_print_resolution():
    import numpy as np
    from shapely.geometry import LineString

    from fieldapp.report.drawing import PRINT_DPI, decimated

    # a day's 288,000 fixes walking east 0.01 ft apart with 0.02 ft of jitter, then north:
    # at 1 in = 50 ft and 200 dpi a device pixel is 50 / 200 = 0.25 ft, half of it 0.125 ft
    n = 288_000
    x = np.arange(n) * 0.01
    y = np.where(np.arange(n) % 2 == 0, 0.0, 0.02)
    east = np.column_stack([x, y])
    north = np.column_stack([np.full(1000, x[-1]), np.arange(1, 1001) * 1.0])
    track = LineString(np.vstack([east, north]))
    tol = 0.5 * 50 / PRINT_DPI
    assert tol == 0.125
    out = decimated(track, tol)
    assert len(out.coords) <= 5                       # the jitter is below half a pixel
    assert out.coords[0] == track.coords[0] and out.coords[-1] == track.coords[-1]
    # the corner where the walk turns north is kept (within the tolerance)
    assert min(abs(cx - x[-1]) + abs(cy) for cx, cy in out.coords) <= tol
    assert out.hausdorff_distance(track) <= tol
    assert decimated(track, 0) is track
