"""``fieldapp sync``: sync a visit with an office folder from the command line.

Examples::

    fieldapp sync --office /media/usb/office visit.gpkg
    fieldapp sync --office /mnt/share/office --policy first-sync-wins visit.gpkg
    fieldapp sync --office /mnt/share/office --checkout site-a crew2.gpkg
    fieldapp sync --office /mnt/share/office --conflicts visit.gpkg

Exit status: 0 done (conflicts are reported, not errors), 1 sync refused or failed (the
message says why; nothing half-done is left), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fieldapp.sync.engine import ConflictPolicy, checkout, read_conflicts, sync
from fieldapp.sync.errors import SyncError
from fieldapp.sync.office import FolderOffice


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fieldapp sync", description=__doc__.split("\n\n")[0])
    p.add_argument("--office", required=True, type=Path, help="office folder (share, USB drive ...)")
    p.add_argument("visit", nargs="?", type=Path, help="visit GeoPackage (default: the only *.gpkg here)")
    p.add_argument("--site", help="site id in the office (default: from the visit's metadata)")
    p.add_argument("--policy", choices=[x.value for x in ConflictPolicy],
                   default=ConflictPolicy.LAST_SYNC_WINS.value,
                   help="which value the office keeps when two laptops edit the same field")
    p.add_argument("--checkout", metavar="SITE", help="make VISIT a new laptop copy of SITE")
    p.add_argument("--conflicts", action="store_true", help="list VISIT's conflict records and exit")
    p.add_argument("--lock-wait", type=float, default=10.0, metavar="SECONDS",
                   help="how long to wait for another laptop's sync (default 10)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return p


def _default_visit() -> Path:
    found = [p for p in Path.cwd().glob("*.gpkg")]
    if len(found) != 1:
        raise SystemExit("fieldapp sync: give the visit .gpkg (found %d here)" % len(found))
    return found[0]


def main(argv: list[str] | None = None) -> int:
    """Run ``fieldapp sync``; return the exit status."""
    args = _parser().parse_args(argv)
    office = FolderOffice(args.office)
    try:
        if args.checkout:
            if args.visit is None:
                print("fieldapp sync: --checkout needs the new visit file name", file=sys.stderr)
                return 2
            path = checkout(office, args.checkout, args.visit)
            print(f"checked out site {args.checkout} to {path}")
            return 0
        visit = args.visit or _default_visit()
        if args.conflicts:
            for c in read_conflicts(visit):
                what = c.field or "(whole feature)"
                print(f"{c.created_utc} {c.kind.value} {c.layer} {c.feature_uuid} {what}: base={c.base!r}"
                      f" theirs={c.theirs!r} ours={c.ours!r} kept={c.kept}"
                      + (f" resolved {c.resolved_utc}" if c.resolved_utc else ""))
            return 0

        def progress(fraction: float, message: str) -> None:
            if not args.quiet:
                print(f"[{fraction * 100:5.1f}%] {message}", file=sys.stderr)

        report = sync(visit, office, site_id=args.site, policy=ConflictPolicy(args.policy),
                      progress=progress, lock_wait_s=args.lock_wait)
    except (SyncError, ValueError, FileExistsError, OSError) as exc:
        print(f"fieldapp sync: {exc}", file=sys.stderr)
        return 1
    print(report.format())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
