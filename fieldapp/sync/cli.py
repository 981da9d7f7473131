"""``fieldapp sync``: sync a visit with an office folder from the command line.

Examples::

    fieldapp sync --office /media/usb/office visit.gpkg
    fieldapp sync --init-office --office /mnt/share/office visit.gpkg   # start a new office
    fieldapp sync --office /mnt/share/office --policy first-sync-wins visit.gpkg
    fieldapp sync --office /mnt/share/office --checkout site-a crew2.gpkg
    fieldapp sync --office /mnt/share/office --conflicts visit.gpkg

The office folder must already be a fieldapp office (hold ``fieldapp-office.json``); a new one
is made only with ``--init-office`` (the folder's parent must exist), so a mistyped path or an
unmounted drive is refused instead of quietly syncing onto the laptop's own disk.

Exit status: 0 done (conflicts are reported, not errors), 1 sync refused or failed (a one-line
message says why; nothing half-done is left), 2 bad arguments, 130 interrupted (Ctrl-C; the
next sync completes it).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from fieldapp.sync.engine import ConflictPolicy, checkout, read_conflicts, sync
from fieldapp.sync.errors import SyncError
from fieldapp.sync.office import FolderOffice


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fieldapp sync", description=__doc__.split("\n\n")[0])
    p.add_argument("--office", required=True, type=Path,
                   help="office folder (share, USB drive ...); must already be a fieldapp office")
    p.add_argument("--init-office", action="store_true",
                   help="make a new office in the --office folder (created if missing; its parent must exist)")
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
    """Run ``fieldapp sync``; return the exit status.

    No traceback reaches the user: every error is one line on stderr and exit status 1.
    """
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("fieldapp sync: interrupted; nothing half-done is left, the next sync completes it",
              file=sys.stderr)
        return 130
    except (SyncError, ValueError, OSError) as exc:
        print(f"fieldapp sync: {_one_line(exc)}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:
        print(f"fieldapp sync: a GeoPackage could not be read or written: {_one_line(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the CLI edge: a message, never a traceback
        print(f"fieldapp sync: failed ({type(exc).__name__}): {_one_line(exc)}; nothing half-done"
              " is left, the next sync carries on", file=sys.stderr)
        return 1


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _run(args: argparse.Namespace) -> int:
    office = FolderOffice(args.office, create=args.init_office)
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
    print(report.format())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
