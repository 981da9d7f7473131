"""The Sync result window counts the crew's records only: conflict records received with two
trees are said on their own line under the table, not summed into "All layers"."""

from __future__ import annotations

from fieldapp.sync.results import SyncOutcome, SyncReport
from fieldapp.ui.officeactions import SyncResultDialog


def _counts(sent: int = 0, received: int = 0) -> dict:
    return {"sent": sent, "received": received, "merged": 0, "conflicts": 0}


def _dialog(qtbot, counts: dict) -> SyncResultDialog:
    outcome = SyncOutcome(None, 3, counts)
    report = SyncReport("site-a", "office folder /o", None, 3, outcome.layers(), (),
                        bookkeeping=outcome.bookkeeping(), conflict_records=outcome.conflict_records())
    dlg = SyncResultDialog(report)
    qtbot.addWidget(dlg)
    return dlg


def test_conflict_records_are_a_line_of_their_own_not_in_all_layers(qtbot, tmp_path):
    dlg = _dialog(qtbot, {"tree": _counts(0, 2), "fieldapp_sync_conflicts": _counts(0, 2)})
    t = dlg.table
    got = [[t.item(r, c).text() for c in range(5)] for r in range(t.rowCount())]
    assert got == [["Trees", "0", "2", "0", "0"], ["All layers", "0", "2", "0", "0"]]
    assert dlg.conflict_records.text() == "Conflict records (sync), not in the layer totals: 2 received"
    assert not dlg.conflict_records.isHidden()
    assert "No conflicts recorded by this sync" in [w.text() for w in dlg.findChildren(type(dlg.conflict_records))][-1]
    dlg.resize(720, 300)
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.grab().save(str(tmp_path / "sync_result_conflict_records.png"))


def test_no_conflict_records_no_line(qtbot):
    dlg = _dialog(qtbot, {"tree": _counts(3)})
    assert dlg.conflict_records.isHidden() and dlg.conflict_records.text() == ""
    assert dlg.table.item(1, 1).text() == "3"
