"""Many laptops syncing one PostGIS site at once, with random syncs SIGKILLed (issue 17's proof).

Used by ``test_sync_postgis_concurrency.py`` (small) and ``bench/bench_sync_postgis.py`` (10
laptops x 500 edits, 100 kills). Each laptop is a checkout of the site (generic GeoPackages of
``sync_sample``); a thread per laptop makes its edits, then syncs in a child process
(``python -m tests.sync.pgconcurrency sync URL VISIT``) -- which may be SIGKILLed at a random
moment and is then simply run again, as a user would. Edits are new trees tagged
``L<laptop>R<round>E<n>`` in ``species_code`` (so each one can be found) and, in round 0, every
laptop's DBH for one shared tree (``100 + laptop`` inches: a same-field conflict). During the
run the office edits another tree in the PostGIS table as QGIS would.

:func:`run` then syncs every laptop once more and checks: every tagged tree is in the office's
table exactly once and in every laptop; each shared-tree DBH is the office's value or in a
conflict record; the change log runs 1..head without a gap and no changeset id twice; the
office edit reached every laptop; every laptop's trees are the office's.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    syncs: int = 0
    edits: int = 0
    killed: int = 0
    made: set = field(default_factory=set)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.problems:
            return "PROBLEMS: " + "; ".join(self.problems[:5])
        return "no edit lost, no row doubled, no gap in the log, the office edit reached every laptop"


def _child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _sync_once(url: str, visit: Path, kill_after_s: float | None, timeout_s: float = 600) -> bool:
    """One sync in a child process; SIGKILLed after ``kill_after_s`` if still running. Returns
    whether it was killed. Raises ``RuntimeError`` when it failed on its own."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.sync.pgconcurrency", "sync", url, str(visit)],
                            cwd=REPO, env=_child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if kill_after_s is not None:
            try:
                proc.wait(kill_after_s)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout_s)
                return True
        _out, err = proc.communicate(timeout=timeout_s)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    if proc.returncode != 0:
        raise RuntimeError(f"sync of {visit.name} failed ({proc.returncode}): {err.decode()[-800:]}")
    return False


def run(url: str, root: Path, *, laptops: int, rounds: int, edits: int, kills: int, seed: int = 17) -> Result:
    """Set up the site, run the laptops concurrently, check (module docstring)."""
    import psycopg

    from fieldapp.sync import PostgisOffice, checkout, engine, sync
    from tests.sync import sync_sample as S

    root.mkdir(parents=True)
    office = PostgisOffice(url, create=True)
    with _generic(engine):
        first = S.make_visit(root / "first.gpkg", trees=2, transects=0)
        sync(first, office)
        visits = [checkout(office, "site-a", root / f"l{i}.gpkg") for i in range(laptops)]
    shared, office_tree = (u for (u,) in S.rows(first, "tree", "uuid", order="fid"))
    result = Result()
    lock = threading.Lock()
    rng = random.Random(seed)
    kills_left = [kills]
    attempts = laptops * rounds

    def laptop(i: int) -> None:
        r = 0
        while r < rounds or (kills_left[0] > 0 and r < rounds + 50):  # extra rounds until the kills are spent
            with contextlib.closing(S.connect(visits[i])) as conn, conn:
                for n in range(edits):
                    S.add_tree(conn, 500000.0 + i, 4800000.0 + r * edits + n, 10.0, f"L{i}R{r}E{n}")
                    with lock:
                        result.made.add(f"L{i}R{r}E{n}")
                if r == 0:
                    conn.execute("UPDATE tree SET dbh_in = ? WHERE uuid = ?", (100.0 + i, shared))
            while True:
                with lock:
                    kill = kills_left[0] > 0 and rng.random() < min(0.9, 2.0 * kills_left[0] / attempts)
                    delay = rng.uniform(0.05, 2.5) if kill else None
                if not _sync_once(url, visits[i], delay):
                    break
                with lock:
                    if kills_left[0] > 0:
                        kills_left[0] -= 1
                    result.killed += 1
            with lock:
                result.syncs += 1
                result.edits += edits + (1 if r == 0 else 0)
            if i == 0 and r == 0:  # meanwhile, the office edits a tree in QGIS
                with contextlib.closing(psycopg.connect(url)) as qgis, qgis:
                    qgis.execute("UPDATE \"site-a\".tree SET status = 'office-edit' WHERE uuid = %s", (office_tree,))
            r += 1

    errors: list[BaseException] = []

    def guarded(i: int) -> None:
        try:
            laptop(i)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,), name=f"fieldapp-test-laptop-{i}") for i in range(laptops)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    with _generic(engine):
        for v in visits:  # everyone receives the rest
            sync(v, office)
    _check(office, visits, laptops, rounds, edits, shared, office_tree, result)
    return result


@contextlib.contextmanager
def _generic(engine):
    """The sync's visit check narrowed for the generic GeoPackages (as test_sync does)."""
    saved = engine.check_visit_file, engine.check_received
    engine.check_visit_file = lambda visit, known_sha256=None: engine.check_visit_basics(visit)
    engine.check_received = lambda gpkg: None
    try:
        yield
    finally:
        engine.check_visit_file, engine.check_received = saved


def _check(office, visits, laptops, rounds, edits, shared, office_tree, result: Result) -> None:
    from tests.sync import sync_sample as S

    p = result.problems
    with contextlib.closing(office.connect()) as conn:
        rows = conn.execute('SELECT uuid, species_code, dbh_in, status FROM "site-a".tree').fetchall()
        seqs = [s for (s,) in conn.execute('SELECT seq FROM "site-a".fieldapp_changesets ORDER BY seq')]
        ids = [c for (c,) in conn.execute('SELECT changeset_id FROM "site-a".fieldapp_changesets')]
        conflicts = conn.execute('SELECT theirs_json, ours_json FROM "site-a".fieldapp_sync_conflicts'
                                 " WHERE feature_uuid = %s AND field = 'dbh_in'", (shared,)).fetchall()
    tags = [sp for _u, sp, _d, _s in rows if sp and sp.startswith("L")]
    want = result.made
    if set(tags) != want:
        p.append(f"{len(want - set(tags))} edits lost, {len(set(tags) - want)} unknown")
    if len(tags) != len(set(tags)):
        p.append(f"{len(tags) - len(set(tags))} rows doubled")
    if seqs != list(range(1, len(seqs) + 1)) or len(set(ids)) != len(ids):
        p.append(f"change log has a gap or a changeset twice: {seqs[:5]}...")
    final = {u: d for u, _sp, d, _s in rows}[shared]
    kept = {final} | {json.loads(v) for pair in conflicts for v in pair if v is not None}
    lost = [100.0 + i for i in range(laptops) if 100.0 + i not in kept]
    if lost:
        p.append(f"shared-tree DBH values {lost} are neither the office's nor in a conflict record")
    office_rows = {u for u, *_ in rows}
    for v in visits:
        trees = S.by_uuid(v, "tree")
        if set(trees) != office_rows:
            p.append(f"{v.name} differs from the office")
        elif trees[office_tree]["status"] != "office-edit":
            p.append(f"the office edit did not reach {v.name}")
        if S.integrity(v) != "ok":
            p.append(f"{v.name} integrity_check fails")


def _child_sync(url: str, visit: str) -> int:
    from fieldapp.sync import PostgisOffice, engine, sync

    with _generic(engine):
        sync(visit, PostgisOffice(url), lock_wait_s=600)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["sync"]:
        raise SystemExit(_child_sync(sys.argv[2], sys.argv[3]))
    raise SystemExit("usage: python -m tests.sync.pgconcurrency sync URL VISIT")
