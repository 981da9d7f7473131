"""The DXF saved fast (issue 33, goal 3: a day's export): the points' ATTRIBs made from the
first of their kind and written from templates ezdxf itself wrote, the track's vertices written
in one pass (:mod:`fieldapp.export.dxfsave`), and the file is the one ezdxf writes the slow
way, byte for byte past the header's time stamps: every tree, note, station and fix with every
attribute, in the same order with the same handles."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import ezdxf
import pytest

from fieldapp.export import dxf, dxfsave, export_visit
from fieldapp.store import open_visit
from fieldapp.survey import Layer
from tests.report.test_report_visit import build_sample_visit
from tests.track_sample import T0, Fix


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    """The demo visit with 120 more trees (every status, some with a crown radius, some without species code, a species
    name in Polish), notes (one of two lines, one long) and a track of 500 fixes."""
    path = tmp_path_factory.mktemp("dxf-fast") / "busy.gpkg"
    build_sample_visit(path, conflict=False)
    rnd = random.Random(33)
    with open_visit(path) as store:
        v = store.visit
        t0 = next(iter(v.features(Layer.TREE)))
        for k in range(120):
            v.add_tree(x=t0.x + rnd.uniform(0, 40.0), y=t0.y + rnd.uniform(0, 40.0),
                       dbh_in=round(rnd.uniform(3.0, 30.0), 2), crown_radius_ft=None if k % 7 else 9.5,
                       species_code="QURU" if k % 5 else None,
                       species_name="dąb czerwony – Łąka" if k % 2 else "northern red oak",
                       status=("live", "dead", "removed")[k % 3])
        v.add_note("first line\nsecond line", x=t0.x + 5, y=t0.y - 5)
        v.add_note("a long note " * 30, x=t0.x - 5, y=t0.y - 5)
        lon, lat = v.frame.to_lonlat(t0.x, t0.y)
        v.start_track()
        for i in range(500):
            v.record_fix(Fix(float(lat) + i * 1e-7, float(lon) + (i % 17) * 1e-7,
                             T0 + timedelta(seconds=i / 10)))
    return path


def _slow_attribs(ref, attdefs, texts, layer, made):
    """What the export did before: every ATTRIB by ezdxf's add_attrib."""
    x0, y0, *_ = ref.dxf.insert
    for (tag, (ax, ay), attdef), text in zip(attdefs, texts, strict=True):
        at = (x0 + ax, y0 + ay)
        ref.add_attrib(tag, text, at, {**attdef, "layer": layer, "align_point": at})


def _past_header(text: str) -> str:
    """The file after its HEADER section, ezdxf's and the title block's time stamps taken out."""
    body = text[text.index("\nENDSEC\n"):]
    body = re.sub(r"\d+\.\d+\.\d+ @ \d{4}-\d\d-\d\dT[0-9:.+]+", "@", body)
    return re.sub(r"Exported: \d{4}-\d\d-\d\d", "Exported:", body)


def test_the_fast_dxf_is_ezdxfs_file_byte_for_byte(busy, tmp_path, monkeypatch):
    used = []
    real = dxfsave.save_fast
    monkeypatch.setattr(dxf, "save_fast", lambda *a: used.append(real(*a)) or used[-1])
    export_visit(busy, tmp_path / "fast.dxf", "dxf")
    (templates,) = used
    # nearly every ATTRIB from a template; ezdxf wrote the first of each kind
    assert templates.fast > 10 * templates.slow > 0
    monkeypatch.setattr(dxf, "save_fast", lambda doc, path, *a: doc.saveas(path))
    monkeypatch.setattr(dxf, "add_attribs", _slow_attribs)
    export_visit(busy, tmp_path / "slow.dxf", "dxf")
    fast = (tmp_path / "fast.dxf").read_text(encoding="utf-8")
    slow = (tmp_path / "slow.dxf").read_text(encoding="utf-8")
    assert fast.count("\nATTRIB\n") == slow.count("\nATTRIB\n") > 120 * 10
    assert _past_header(fast) == _past_header(slow)


def test_the_fast_dxf_reads_back_with_every_attribute_and_fix(busy, tmp_path):
    from fieldapp.report.content import load_visit

    out = tmp_path / "v.dxf"
    export_visit(busy, out, "dxf")
    doc = ezdxf.readfile(out)
    v = load_visit(busy)
    trees = {t.uuid: t for t in v.features(Layer.TREE)}
    got = {}
    for ref in doc.modelspace().query("INSERT"):
        if ref.dxf.name == "FA_TREE" and ref.attribs:    # not the legend's sample
            attribs = {a.dxf.tag: a.dxf.text for a in ref.attribs}
            got[attribs["UUID"]] = attribs
    assert got.keys() == trees.keys()
    for uuid, t in trees.items():
        a = got[uuid]
        assert a["TAG"] == str(t.tag)
        assert a["SPECIES_NAME"] == (t.species_name or "")
        assert a["DBH_IN"] == ("" if t.dbh_in is None else f"{round(t.dbh_in, 2):.10g}")
    (track,) = [e for e in doc.modelspace().query("LWPOLYLINE") if e.dxf.layer == "track_point"]
    xs = [p[:2] for p in track.get_points("xy")]
    cols = v.track_log.columns()
    assert len(xs) == len(cols["x"]) == 500
    assert xs == list(zip(cols["x"].tolist(), cols["y"].tolist(), strict=True))


def test_a_note_of_two_lines_keeps_both_and_the_file_reads(busy, tmp_path):
    """A DXF text is one line: the note's line break is written as ``\\P`` (it was written as
    it is, and the file could not be read: its second line was taken for a group code)."""
    out = tmp_path / "v.dxf"
    export_visit(busy, out, "dxf")
    doc = ezdxf.readfile(out)
    notes = [{a.dxf.tag: a.dxf.text for a in ref.attribs}
             for ref in doc.modelspace().query("INSERT") if ref.dxf.name == "FA_NOTE" and ref.attribs]
    assert "first line\\Psecond line" in [n["NAME"] for n in notes]
    assert "first line\\Psecond line" in [n["TEXT"] for n in notes]
