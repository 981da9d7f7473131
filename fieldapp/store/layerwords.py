"""The visit's GeoPackage layers in the field's words (``track_point`` -> "GNSS track").

Tables that list layers (the sync result on the command line and in the app, the Conflicts
view) show these words and keep the internal table name beside them (in the app, its tooltip),
for the office and for bug reports. Here, beside the store, so that the sync's own summary
(:meth:`fieldapp.sync.results.SyncReport.format`) uses the same words as the app.
"""

from __future__ import annotations

#: table name -> words; the tables of ``fieldapp.survey.features.Layer``, the store's
#: ``fieldapp_meta`` (fieldapp.store.schema.META_TABLE) and the Related Tables Extension's
#: ``gpkgext_relations`` (fieldapp.store.media; its rows are the same in every copy).
LAYER_WORDS = {
    "fieldapp_meta": "File info (schema)",
    "site": "Site details",
    "ohwm_line": "OHWM lines",
    "ohwm_point": "OHWM points",
    "transect": "Transects",
    "station": "Transect stations",
    "tree": "Trees",
    "area_feature": "Areas (wetland, stand …)",
    "line_feature": "Lines (drainageway, swale …)",
    "walk": "Boundary walks",
    "walk_vertex": "Boundary walk vertices",
    "track_point": "GNSS track",
    "note": "Notes",
    "stake_point": "Stake-out flags",
    "photo": "Photos",
    "data_point": "Wetland data points",
    "device_reading": "Instrument readings",
    "antenna_height": "Antenna heights",
    "gpkgext_relations": "Related-tables register",
    "fieldapp_sync_conflicts": "Conflict records (sync)",
}


def layer_words(table: str) -> str:
    """``table`` in words; an unknown table (a newer file) is shown by its name."""
    return LAYER_WORDS.get(table, table)


def layer_tooltip(table: str) -> str:
    """The tooltip of a layer cell: the internal table name."""
    return f"{layer_words(table)}: GeoPackage table “{table}”"


__all__ = ["LAYER_WORDS", "layer_words", "layer_tooltip"]
