"""The trail from the caliper's sentence to the tree, through the real window: the simulated
caliper (on a pseudo-terminal) squeezed from the tally panel, and the tree stored in the
visit GeoPackage names the device reading kept there, whose raw bytes are what the caliper
sent."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.gpkgtools import st_connect  # noqa: E402
from tests.ui.ui_support import (  # noqa: E402
    WAIT_MS,
    close_window,
    key,
    make_window,
    wait_fix,
)


def stored(path, sql: str, args: tuple = ()) -> list[tuple]:
    """Rows committed to the visit's GeoPackage (read through SQLite, WAL included)."""
    with st_connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute(sql, args).fetchall()


@pytest.mark.usefixtures("private_dirs")
def test_a_squeezed_tree_points_at_the_caliper_sentences_kept_in_the_visit(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path, simulate=True, time_scale=15.0, rate_hz=10.0)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+3")
        tally = w.panels["tally"]
        qtbot.waitUntil(tally.squeeze_button.isVisible, timeout=WAIT_MS)
        sim = w.session.simulator("caliper")
        key(qtbot, w, "C")
        qtbot.waitUntil(lambda: len(w.visit.trees()) == 1, timeout=WAIT_MS)
        (tree,) = w.visit.trees()
        # what the simulated caliper wrote to its pty for that tree, line ends left off
        (sent,) = sim.sent
        expected = b"\n".join(sim.sentences_for(sent).splitlines())
        assert expected.startswith(b"$PHGF,SPC,") and b"\n$PHGF,DIA,M," in expected
        assert tree.caliper_reading_id is not None
        assert tree.dbh_in == pytest.approx(sent.diameter_mm / 25.4)
        # in the file: the tree names its reading, and the reading is the caliper's sentences
        path = w.visit.path
        assert stored(path, "SELECT caliper_reading_id FROM tree") == [(tree.caliper_reading_id,)]
        rows = stored(path, "SELECT uuid, device, protocol, raw, received_utc, created_utc FROM device_reading")
        assert len(rows) == 1
        uuid, device, protocol, raw, received, created = rows[0]
        assert (uuid, device, protocol, raw) == (tree.caliper_reading_id, "caliper", "digitech", expected)
        # received (UTC) no later than the tree was recorded
        assert received.endswith("Z") and received <= created
    finally:
        close_window(w)
