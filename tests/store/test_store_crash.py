"""Kill a recording child with SIGKILL at random moments: nothing it reported committed is lost.

Each trial starts ``python -m fieldapp.store.crashprobe`` (its own interpreter), which prints the
uuid of every record after its transaction commits; the parent kills it at a random moment and
then checks PRAGMA integrity_check, that every reported uuid is in its table, and that
``open_visit`` loads the file. Half the trials record at 10 Hz, half as fast as possible (so kills
land inside transactions); a few are killed at a random moment after start, possibly while the
file is being created (then either there is no file or a complete one).
"""

from __future__ import annotations

import random
import signal

import pytest

from fieldapp.store.crashprobe import run_trial

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

TRIALS = 24
RNG = random.Random(20240603)  # fixed seed: the same kill moments every run
PLAN = [
    (10.0 if i % 2 == 0 else 0.0, RNG.uniform(0.0, 0.6), i % 8 != 7) for i in range(TRIALS)
]


@pytest.mark.parametrize("rate_hz, kill_after_s, after_ready", PLAN)
def test_sigkill_loses_no_committed_record(tmp_path, rate_hz, kill_after_s, after_ready):
    r = run_trial(tmp_path / "visit.gpkg", rate_hz=rate_hz, kill_after_s=kill_after_s, after_ready=after_ready)
    assert r.missing == []
    assert r.integrity == "ok"
    if after_ready:
        assert r.file_exists and r.opened
    # no half-made file is ever left under the visit's name
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith("visit.gpkg") and p.name not in
                 ("visit.gpkg", "visit.gpkg-wal", "visit.gpkg-shm")]
    assert leftovers == []


def test_probe_reports_are_real_records(tmp_path):
    # Guard against a trial that passes because nothing was reported: a full-speed run killed after
    # 0.5 s has reported records, and they are in the file.
    r = run_trial(tmp_path / "visit.gpkg", rate_hz=0.0, kill_after_s=0.5)
    assert r.reported > 5 and r.missing == []
