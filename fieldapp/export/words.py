"""Exported layers in the crew's words ("Trees", "Bank points", "Woodland stand"): used by the
export's summary, the DXF legend and the window (a module of its own so that the writers need
not import the package face)."""

from __future__ import annotations

#: the export's own layers (what the records are grouped into, the derived ones) in words
EXPORT_WORDS = {"bank_point": "Bank points", "bank_line": "Bank line", "protective_area": "Protective areas",
                "development_envelope": "Development envelope", "drainageway_area": "Drainageway areas",
                "drainageway_centreline": "Drainageway centrelines"}


def export_layer_words(name: str) -> str:
    """An exported layer in the crew's words, as the sync's summary shows the store's tables
    (:func:`fieldapp.store.layerwords.layer_words`): "Trees", "GNSS track", "Bank points"; a
    kind of area or line by its kind ("Woodland stand", "Swale line")."""
    from fieldapp.store.layerwords import LAYER_WORDS

    return LAYER_WORDS.get(name) or EXPORT_WORDS.get(name) or name.replace("_", " ").capitalize()
