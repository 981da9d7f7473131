"""Office sync benchmarks (issue 7). Prints figures; asserts nothing about time.

    python bench/bench_sync.py            # all
    python bench/bench_sync.py --kills 0  # skip the kill trials

Visits are real store visits (:func:`fieldapp.store.create_visit` from a
:class:`fieldapp.survey.visit.Visit`), so every sync runs the full visit check
(:func:`fieldapp.sync.engine.check_visit_file`). Building them is setup, timed and printed
separately and never counted in a sync's time: the 10,000 trees are added to the model in
memory and written by ``create_visit`` in one transaction (adding them one by one to an open
store would commit each with ``synchronous=FULL``); the edits are made through the model on a
store opened with ``durability="normal"`` (one commit per edit, without the per-commit fsync).

(a) first sync of a visit with 10,000 new trees (target <= 5 s);
(b) 10,000 edited trees rebased onto another laptop's 1,000 edits (target <= 5 s);
(c) no-op sync of that 10,000-tree visit (target <= 0.5 s): the first one after (b), then the
    best of 5;
(d) kill trials (default 50): the sync process is SIGKILLed at a random step or a random moment;
    each trial checks integrity, completion, nothing twice, nothing lost (tests/sync/test_sync_kill.py).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]

from fieldapp.store import create_visit, open_visit  # noqa: E402
from fieldapp.survey.features import Layer  # noqa: E402
from fieldapp.survey.visit import Visit  # noqa: E402
from fieldapp.sync import FolderOffice, checkout, sync  # noqa: E402

N = 10_000
X0, Y0 = 500000.0, 4983000.0  # UTM 16N, near 45 N 89 W


def timed(label: str, fn, target_s: float | None = None):
    t0 = time.perf_counter()
    result = fn()
    dt = time.perf_counter() - t0
    verdict = "" if target_s is None else f" (target <= {target_s:.1f} s: {'met' if dt <= target_s else 'MISSED'})"
    print(f"{label:<62}{dt:8.3f} s{verdict}")
    return result


def make_visit(path: Path, trees: int) -> Path:
    """A real store visit with ``trees`` trees on a 1 m grid, written in one transaction."""
    visit = Visit.new("Bench lot", crs="EPSG:32616", who="bench@laptop-a")
    for i in range(trees):
        visit.add_tree(x=X0 + i % 100, y=Y0 + i // 100, dbh_in=8.0 + i % 30, species_code="ACSA")
    create_visit(path, visit).close()
    return path


def edit_trees(path: Path, who: str, every: int, **change) -> int:
    """Edit every ``every``-th tree through the model (one command each); returns how many."""
    with open_visit(path, who=who, durability="normal") as store:
        trees = sorted(store.visit.features(Layer.TREE), key=lambda t: t.uuid)[::every]
        for t in trees:
            store.visit.update_feature(Layer.TREE, t.uuid, **{k: f(t) for k, f in change.items()})
    return len(trees)


def bench_sync(root: Path) -> None:
    root.mkdir(parents=True)
    office = FolderOffice(root / "office", create=True)
    a = timed(f"setup: visit of {N} trees (model + create_visit)", lambda: make_visit(root / "a.gpkg", N))
    print(f"    {a.stat().st_size / 1e6:.1f} MB")
    r = timed(f"(a) first sync, {N} new features", lambda: sync(a, office), 5.0)
    assert r.totals().sent >= N, r.format()
    b = checkout(office, r.site_id, root / "b.gpkg")
    n_a = timed("setup: laptop A edits 1,000 trees (model)",
                lambda: edit_trees(a, "a@laptop-a", 10, dbh_in=lambda t: t.dbh_in + 1.0))
    sync(a, office)
    n_b = timed(f"setup: laptop B edits {N} trees (model)",
                lambda: edit_trees(b, "b@laptop-b", 1, species_code=lambda t: "ACRU"))
    assert (n_a, n_b) == (N // 10, N)
    r = timed(f"(b) sync of {N} edited features over {n_a:,} others", lambda: sync(b, office), 5.0)
    tree = {c.layer: c for c in r.layers}["tree"]
    print(f"    tree: sent {tree.sent}, received {tree.received}, merged {tree.merged}, conflicts {tree.conflicts}")
    r = timed(f"(c) no-op sync of the {N}-feature visit (first after (b))", lambda: sync(b, office), 0.5)
    assert r.no_op, r.format()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        assert sync(b, office).no_op
        times.append(time.perf_counter() - t0)
    verdict = "met" if min(times) <= 0.5 else "MISSED"
    print(f"{'(c) no-op sync, best of 5 (median)':<62}{min(times):8.3f} s (median {sorted(times)[2]:.3f} s;"
          f" target <= 0.5 s: {verdict})")


def bench_kills(root: Path, trials: int) -> None:
    root.mkdir(parents=True)
    from tests.sync import test_sync_kill as K

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
    print(f"(d) kill trials: {trials} ({at_step} at a random step of {calls}, {at_moment} at a random"
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
