"""The visit's layers in the field's words: :mod:`fieldapp.store.layerwords` (kept there, below
the sync, so the command line's sync summary uses them too), re-exported for the UI."""

from __future__ import annotations

from fieldapp.store.layerwords import LAYER_WORDS, layer_tooltip, layer_words

__all__ = ["LAYER_WORDS", "layer_tooltip", "layer_words"]
