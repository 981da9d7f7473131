"""The instruments' names and serial numbers typed on the site's form (Records tab, F4) are
printed in the report's site block (issue 35 item 14: the report said "their names and serial
numbers were not recorded", and nowhere in the window could they be)."""

from __future__ import annotations

import pytest

from fieldapp.app import editing as E
from fieldapp.survey.features import Layer

pypdf = pytest.importorskip("pypdf")


def _report_text(path, tmp_path) -> str:
    import unicodedata

    from fieldapp.report import main

    out = tmp_path / "r.pdf"
    assert main([str(path), "-o", str(out)]) == 0
    pages = pypdf.PdfReader(out).pages
    return unicodedata.normalize("NFKC", " ".join(" ".join(p.extract_text() for p in pages).split()))


def test_instrument_names_typed_on_the_site_form_reach_the_report(qtbot, sample_window, tmp_path):
    w, path, _info = sample_window
    m = w.visit.model
    w.editor.select(E.Selection(Layer.SITE, m.site.uuid))
    form = w.editor.edit_selected()
    # the sample's receiver and rangefinder are shown as kept; the caliper was not recorded
    assert form.inputs["device:gnss"].text() == "R12i 6012"
    assert form.inputs["device:rangefinder"].text() == "TruPulse 360R"
    assert form.inputs["device:caliper"].text() == ""
    form.inputs["device:gnss"].setText("Trimble R10, serial 5331A01234")
    form.inputs["device:caliper"].setText("Haglöf Digitech, serial 12345")
    form.save_button.click()
    assert form.error.text() == ""
    assert m.site.device_ids == (("gnss", "Trimble R10, serial 5331A01234"),
                                 ("rangefinder", "TruPulse 360R"),
                                 ("caliper", "Haglöf Digitech, serial 12345"))
    text = _report_text(path, tmp_path)
    assert ("Devices GNSS receiver: Trimble R10, serial 5331A01234; Rangefinder: TruPulse 360R;"
            " Caliper: Haglöf Digitech, serial 12345") in text, text[:1200]
    assert "were not recorded" not in text and "gnss:" not in text
    # emptied again: left out; one undo brings it back
    w.editor.select(E.Selection(Layer.SITE, m.site.uuid))
    form = w.editor.edit_selected()
    assert form.inputs["device:caliper"].text() == "Haglöf Digitech, serial 12345"
    form.inputs["device:caliper"].setText("")
    form.save_button.click()
    assert dict(m.site.device_ids) == {"gnss": "Trimble R10, serial 5331A01234",
                                       "rangefinder": "TruPulse 360R"}
    w.editor.undo()
    assert dict(m.site.device_ids)["caliper"] == "Haglöf Digitech, serial 12345"
