"""Issue 35 item 9: tree tags. The Tally has a Tag field (the crew's numbered aluminium tags):
typed, or counted on from the crew's own last number; after the first sync the 27th tree is 27,
not 1000 (the office's tag block is for a laptop whose crew has no tree yet)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fieldapp import store
from fieldapp.store.tagblock import TAG_BLOCK_SIZE
from fieldapp.survey.errors import InvalidValue
from fieldapp.survey.visit import FIRST_BLOCK_TAG, Visit
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix

SHOTS = Path(os.environ.get("FIELDAPP_SHOTS", "/tmp"))
X, Y = 500_000.0, 4_800_000.0


def test_after_the_first_sync_the_next_tag_counts_on_from_26(tmp_path):
    assert FIRST_BLOCK_TAG == TAG_BLOCK_SIZE        # the model's idea of the blocks is the store's
    v = Visit.new("Lot", crs="EPSG:32616")
    for i in range(26):
        v.add_tree(x=X + i, y=Y, dbh_in=10.0, species_code="ACSA")
    path = tmp_path / "lot.gpkg"
    store.create_visit(path, v).close()
    sync_dir = path.with_name(path.name + ".sync")  # what the first sync leaves: block 1
    sync_dir.mkdir()
    (sync_dir / "state.json").write_text(json.dumps({"tag_block": 1}), encoding="utf-8")
    with store.open_visit(path) as st:
        assert st.visit.tag_block == (1000, 1999)
        assert st.visit.next_tag() == 27                       # was 1000
        assert st.visit.add_tree(x=X, y=Y + 5, dbh_in=9.0, species_code="ACSA").tag == 27
        # a typed tag already on a tree is refused; a new one is kept and counted on from
        with pytest.raises(InvalidValue, match="12 is already on another tree"):
            st.visit.add_tree(x=X, y=Y + 6, dbh_in=9.0, species_code="ACSA", tag=12)
        assert st.visit.add_tree(x=X, y=Y + 6, dbh_in=9.0, species_code="ACSA", tag=501).tag == 501
        assert st.visit.next_tag() == 502


def test_the_tally_tag_field_is_typed_or_counted_on(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+3")
        tally = w.panels["tally"]
        assert tally.tag.value() == 1 and not tally.tag_typed
        tally.dbh.setValue(12.5)
        tally.tag.setValue(4101)                   # the crew's own roll starts at 4101
        key(qtbot, w, "T")
        qtbot.waitUntil(lambda: len(w.visit.model.trees()) == 1, timeout=WAIT_MS)
        assert w.visit.model.trees()[0].tag == 4101
        assert tally.tag.value() == 4102 and not tally.tag_typed
        key(qtbot, w, "T")
        qtbot.waitUntil(lambda: len(w.visit.model.trees()) == 2, timeout=WAIT_MS)
        assert sorted(t.tag for t in w.visit.model.trees()) == [4101, 4102]
        assert tally.state.text().startswith("Tree 4102 recorded")
        tally.grab().save(str(SHOTS / "tally_tag_field.png"))
        # the edit form has the tag: a duplicate is refused in words, a new one kept
        from fieldapp.app import editing as E
        from fieldapp.survey.features import Layer

        first = min(w.visit.model.trees(), key=lambda t: t.tag)
        sel = E.Selection(Layer.TREE, first.uuid)
        assert [f.name for f in E.form_fields(w.visit, sel)][0] == "tag"
        with pytest.raises(InvalidValue, match="4102 is already on another tree"):
            E.apply_form(w.visit, sel, {"tag": 4102.0})
        with pytest.raises(E.FieldRefused, match="Tag must be a whole number"):
            E.apply_form(w.visit, sel, {"tag": 41.5})
        assert E.apply_form(w.visit, sel, {"tag": 4100.0}).tag == 4100
    finally:
        close_window(w)
