"""The sync's summary counts the crew's records only; the file's own bookkeeping tables (the
store's file info, the photo-link list, the sync log) are named apart, never in the totals."""

from __future__ import annotations

from fieldapp.sync.engine import SyncOutcome, SyncReport


def _counts(sent: int = 0, received: int = 0) -> dict:
    return {"sent": sent, "received": received, "merged": 0, "conflicts": 0}


def test_first_sync_summary_counts_records_and_names_bookkeeping_apart():
    # a first sync of a visit with 4,000 trees: the store's 3 file-info rows and 16 photo-link
    # rows travel too, and the sync's own log row
    outcome = SyncOutcome("c" * 32, 1, {"tree": _counts(4000), "track_point": _counts(288000),
                                        "fieldapp_meta": _counts(3), "gpkgext_relations": _counts(16),
                                        "fieldapp_sync_log": _counts(1), "note": _counts()})
    assert [c.layer for c in outcome.layers()] == ["track_point", "tree"]
    assert [(c.layer, c.sent) for c in outcome.bookkeeping()] == [("fieldapp_meta", 3), ("gpkgext_relations", 16)]
    report = SyncReport("site-a", "office folder /o", "c" * 32, 1, outcome.layers(), (),
                        bookkeeping=outcome.bookkeeping())
    assert report.totals().sent == 292000
    lines = report.format().splitlines()
    assert lines[-2].split() == ["all", "layers", "292000", "0", "0", "0"]
    assert lines[-1] == ("  file bookkeeping, not records: File info (schema) (fieldapp_meta) 3 sent;"
                         " Related-tables register (gpkgext_relations) 16 sent")


def test_summary_without_bookkeeping_has_no_such_line():
    outcome = SyncOutcome(None, 2, {"tree": _counts(0, 2)})
    report = SyncReport("site-a", "o", None, 2, outcome.layers(), (), bookkeeping=outcome.bookkeeping())
    assert "bookkeeping" not in report.format() and report.totals().received == 2


def test_conflict_records_are_on_their_own_line_not_in_the_layer_totals():
    # another laptop's sync left 2 conflict records that this one receives with their 2 trees:
    # the layers received 2 records (not 4); the conflict records are said apart
    outcome = SyncOutcome(None, 3, {"tree": _counts(0, 2), "fieldapp_sync_conflicts": _counts(0, 2),
                                    "fieldapp_sync_log": _counts(0, 1)})
    assert [c.layer for c in outcome.layers()] == ["tree"]
    report = SyncReport("site-a", "o", None, 3, outcome.layers(), (), bookkeeping=outcome.bookkeeping(),
                        conflict_records=outcome.conflict_records())
    assert report.totals().received == 2
    lines = report.format().splitlines()
    assert [line.split() for line in lines[2:4]] == [["Trees", "(tree)", "0", "2", "0", "0"],
                                                     ["all", "layers", "0", "2", "0", "0"]]
    assert lines[4] == "  Conflict records (sync) (fieldapp_sync_conflicts), not in the layer totals: 2 received"
    assert len(lines) == 5


def test_a_sync_without_conflict_records_has_no_such_line():
    outcome = SyncOutcome("c" * 32, 3, {"tree": _counts(1), "fieldapp_sync_conflicts": _counts()})
    assert outcome.conflict_records() is None
    report = SyncReport("site-a", "o", "c" * 32, 3, outcome.layers(), (),
                        conflict_records=outcome.conflict_records())
    assert "Conflict records" not in report.format() and report.conflict_records_words() == ""
