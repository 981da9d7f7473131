"""Office sync benchmarks (issue 7). Prints figures; asserts nothing about time.

    python bench/bench_sync.py            # all
    python bench/bench_sync.py --kills 0  # skip the kill trials

1. Sync of a visit with 10,000 changed features (target <= 5 s): (a) first upload of 10,000 new
   trees; (b) 10,000 edited trees rebased onto another laptop's 1,000 edits.
2. No-op sync (target <= 0.5 s) of that 10,000-tree visit.
3. Kill trials (default 50): the sync process is SIGKILLed at a random step or a random moment;
   each trial checks integrity, completion, nothing twice, nothing lost (tests/test_sync_kill.py).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import sync_sample as S  # noqa: E402
from fieldapp.sync import FolderOffice, checkout, sync  # noqa: E402

N = 10_000


def timed(label: str, fn, target_s: float | None = None):
    t0 = time.perf_counter()
    result = fn()
    dt = time.perf_counter() - t0
    verdict = "" if target_s is None else (" (target <= %.1f s: %s)" % (target_s, "met" if dt <= target_s else "MISSED"))
    print(f"{label:<58}{dt:8.3f} s{verdict}")
    return result


def bench_sync(root: Path) -> None:
    root.mkdir(parents=True)
    office = FolderOffice(root / "office")
    a = S.make_visit(root / "a.gpkg", trees=0)
    with contextlib.closing(S.connect(a)) as conn, conn:
        for i in range(N):
            S.add_tree(conn, 500000.0 + i % 100, 4800000.0 + i // 100, 8.0 + i % 30, "ACSA")
    print(f"visit: {N} trees, {a.stat().st_size / 1e6:.1f} MB")
    r = timed(f"(a) first sync, {N} new features", lambda: sync(a, office), 5.0)
    assert r.totals().sent >= N
    b = checkout(office, "site-a", root / "b.gpkg")
    with contextlib.closing(S.connect(a)) as conn, conn:  # another laptop: 1,000 edits
        conn.execute("UPDATE tree SET status = 'dead' WHERE fid % 10 = 0")
    sync(a, office)
    with contextlib.closing(S.connect(b)) as conn, conn:  # this laptop: every tree re-measured
        conn.execute("UPDATE tree SET dbh_in = dbh_in + 0.5")
    r = timed(f"(b) sync of {N} edited features over 1,000 others", lambda: sync(b, office), 5.0)
    tree = {c.layer: c for c in r.layers}["tree"]
    print(f"    tree: sent {tree.sent}, received {tree.received}, merged {tree.merged}, conflicts {tree.conflicts}")
    timed(f"no-op sync of the {N}-feature visit", lambda: sync(b, office), 0.5)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        assert sync(b, office).no_op
        times.append(time.perf_counter() - t0)
    print(f"{'no-op sync, best of 5':<58}{min(times):8.3f} s")


def bench_kills(root: Path, trials: int) -> None:
    root.mkdir(parents=True)
    import test_sync_kill as K

    tpl = root / "tpl"
    tpl.mkdir()
    K.make_template(tpl)
    ref = root / "ref"
    shutil.copytree(tpl, ref)
    done = K.run_child(ref, 0)
    calls = int(done.stdout.split("CALLS")[1])
    reference = K.state_of(ref)
    rng = random.Random(7)
    t0 = time.perf_counter()
    at_step = at_moment = 0
    for trial in range(trials):
        trial_root = root / f"trial{trial}"
        shutil.copytree(tpl, trial_root)
        if trial % 2 == 0:
            K.run_child(trial_root, rng.randint(1, calls - 1))
            at_step += 1
        else:
            K.run_child(trial_root, 0, kill_after_s=rng.uniform(0.2, 1.5))
            at_moment += 1
        K.check_after_kill(trial_root, reference)  # raises on any loss / duplicate / damage
        shutil.rmtree(trial_root)
    print(f"kill trials: {trials} ({at_step} at a random step of {calls}, {at_moment} at a random"
          f" moment): 0 changes lost, 0 applied twice, all integrity_check ok"
          f" ({time.perf_counter() - t0:.1f} s)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kills", type=int, default=50)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as tmp:
        bench_sync(Path(tmp) / "sync")
        if args.kills:
            bench_kills(Path(tmp) / "kills", args.kills)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
