"""The report lists the stake points under their verdict (target, offset, tolerance, fix
quality, time, superseded), from a flag put on the bank line by the simulated receiver."""

from __future__ import annotations

import unicodedata

import pytest

from fieldapp.app.stakeout import StakeOut
from fieldapp.app.visit import open_visit
from tests.app.test_app_stakeout import FT, X0, Y0, walk
from tests.report.sample_visit import build_sample_visit

pypdf = pytest.importorskip("pypdf")


def test_report_lists_the_flag_under_the_bank_line_with_its_offset(tmp_path, qapp):
    from fieldapp.report import build_report
    from fieldapp.report.content import gather, load_visit

    path = tmp_path / "site.gpkg"
    build_sample_visit(path, conflict=False)
    c = open_visit(path)
    c.refresh_checks()
    so = StakeOut(c, tolerance_ft=0.5)
    so.refresh()
    so.choose("bank_line")
    fixes = walk((X0 + 3.0, Y0 + 70 * FT), (X0, Y0 + 90 * FT), 10, quality="rtk_fixed")
    sp = so.flag(fixes[-1])
    wet = next(t for t in so.targets if t.key.startswith("wetland:"))
    so.choose(wet.key)
    sp2 = so.flag(fixes[-1])        # far from the wetland: out of tolerance, + outside
    c.close()
    assert abs(sp.offset_ft) <= 0.5 and sp2.offset_ft > 50.0

    content = gather(load_visit(path), path, conflicts=[])
    titles = [g.title for g in content.stakes]
    assert titles == ["Ordinance wetland W1 (city)", "Bank line through the bank points (NR 341.035)"]
    assert [p.uuid for p in content.stakes[1].points] == [sp.uuid]

    out = tmp_path / "report.pdf"
    build_report(path, out)
    text = unicodedata.normalize("NFKC", " ".join(
        " ".join(p.extract_text() for p in pypdf.PdfReader(out).pages).split()))
    assert "Stake-out flags" in text
    assert "Bank line through the bank points (NR 341.035)" in text
    assert f"Bank line through 2 bank points {sp.offset_ft:+.2f} yes (±0.5) RTK fixed" in text
    assert f"{sp2.offset_ft:+.2f} no (±0.5)" in text


@pytest.mark.parametrize("fmt", ["geojson", "shp"])
def test_stake_points_export_as_a_layer(tmp_path, fmt):
    import pyogrio

    from fieldapp.export import export_visit

    path = tmp_path / "site.gpkg"
    build_sample_visit(path, conflict=False)
    c = open_visit(path)
    c.refresh_checks()
    so = StakeOut(c)
    so.refresh()
    so.choose("bank_line")
    sp = so.flag(walk((X0, Y0 + 80 * FT), (X0, Y0 + 90 * FT), 5, quality="rtk_fixed")[-1])
    c.close()
    result = export_visit(path, tmp_path / "out", fmt)
    assert result.layers["stake_point"] == 1
    ext = fmt
    info = pyogrio.read_info(tmp_path / "out" / f"stake_point.{ext}")
    assert info["features"] == 1
    meta, _, _, values = pyogrio.raw.read(tmp_path / "out" / f"stake_point.{ext}")
    cols = list(meta["fields"])
    assert float(values[cols.index("offset_ft")][0]) == pytest.approx(sp.offset_ft, abs=1e-6)
