"""Words the UI shows: counts in the right number; every internal table a distinct name."""

from __future__ import annotations

from fieldapp.app.layerwords import LAYER_WORDS, layer_words
from fieldapp.app.wording import plural


def test_plural_counts():
    assert plural(1, "stem") == "1 stem"
    assert plural(0, "stem") == "0 stems"
    assert plural(2, "fix", "fixes") == "2 fixes"
    assert plural(1, "fix", "fixes") == "1 fix"
    assert plural(1200, "epoch") == "1,200 epochs"


def test_each_table_has_its_own_words():
    # the sync result listed "Site info" and "Site" side by side: now distinct and clear
    assert layer_words("fieldapp_meta") == "File info (schema)"
    assert layer_words("site") == "Site details"
    assert len(set(LAYER_WORDS.values())) == len(LAYER_WORDS)
    # no name is a prefix word of another ("Site" / "Site info" read as the same thing)
    firsts = [w.split()[0] for w in LAYER_WORDS.values()]
    assert firsts.count("Site") == 1
    assert layer_words("newer_table") == "newer_table"
    # schema 4: the photos and the Related Tables Extension's relations travel by sync too
    assert (layer_words("photo"), layer_words("gpkgext_relations")) == ("Photos", "Related-tables register")


def test_every_layer_of_a_visit_has_words():
    """The sync result listed "device_reading" among "Trees" and "GNSS track" (issue 35 item
    15: table names in a result): every layer the store makes is shown in words."""
    from fieldapp.survey.features import Layer

    for layer in Layer:
        assert layer_words(layer.value) != layer.value, layer.value
    assert layer_words("device_reading") == "Instrument readings"     # as the report says
    assert layer_words("antenna_height") == "Antenna heights"
