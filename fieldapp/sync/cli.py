"""``fieldapp sync``: sync a visit with an office folder from the command line.

Examples::

    fieldapp sync --office /media/usb/office visit.gpkg
    fieldapp sync --init-office --office /mnt/share/office visit.gpkg   # start a new office
    fieldapp sync --office /mnt/share/office --policy first-sync-wins visit.gpkg
    fieldapp sync --office /mnt/share/office --list                     # the sites in the office
    fieldapp sync --office /mnt/share/office --checkout site-a crew2.gpkg
    fieldapp sync --office /mnt/share/office --adopt-copy dayB.gpkg dayB-synced.gpkg   # a plain copy's records
    fieldapp sync --office /mnt/share/office --upgrade-office          # site folders named by the site
    fieldapp sync --office /mnt/share/office --conflicts visit.gpkg
    fieldapp sync --office /mnt/share/office --resolve 1a2b3c4d keep-theirs visit.gpkg
    fieldapp sync --office postgresql://crew2@gis.example.org/survey visit.gpkg   # PostGIS office
    fieldapp sync --office postgresql://admin@gis.example.org/survey --grant crew2 --site site-a

A PostgreSQL URL is any libpq URL without a password: libpq takes it from PGPASSFILE
(~/.pgpass) or PGPASSWORD, else the OS keyring (service ``fieldapp-postgres``, user
``USER@HOST:PORT/DB``). ``--init-office`` there creates the office tables (and PostGIS if
missing) when the first site is synced.

The office folder must already be a fieldapp office (hold ``fieldapp-office.json``); a new one
is made only with ``--init-office`` (the folder's parent must exist), so a mistyped path or an
unmounted drive is refused instead of quietly syncing onto the laptop's own disk.

Exit status: 0 done (conflicts are reported, not errors), 1 sync refused or failed (a one-line
message says why; nothing half-done is left), 2 bad arguments, 130 interrupted (Ctrl-C; the
next sync completes it).
"""

from __future__ import annotations

import argparse
import logging
import math
import sqlite3
import sys
from pathlib import Path

from fieldapp.sync.engine import ConflictPolicy, checkout, read_conflicts, sync
from fieldapp.sync.errors import SyncError
from fieldapp.sync.offices import open_office
from fieldapp.sync.officestore import OfficeStore

_log = logging.getLogger(__name__)


def _seconds(text: str) -> float:
    """``--lock-wait``: a finite number of seconds, 0 or more (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{text!r} must be a number of seconds, 0 or more")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fieldapp sync",
        description="Sync a visit with an office folder, list the office's sites, check a site out"
                    " to a new laptop copy, or list a visit's conflicts.")
    p.add_argument("--office", required=True,
                   help="office folder (share, USB drive ...), PostgreSQL URL postgresql://USER@HOST:PORT/DB"
                        " or libpq connection string \"host=HOST dbname=DB user=USER\""
                        " (password from PGPASSFILE, PGPASSWORD or the keyring); must already be a fieldapp office")
    p.add_argument("--init-office", action="store_true",
                   help="make a new office in the --office folder (created if missing; its parent must exist)")
    p.add_argument("visit", nargs="?", type=Path, help="visit GeoPackage (default: the only *.gpkg here)")
    p.add_argument("--site", help="site id in the office (default: from the visit's metadata)")
    p.add_argument("--policy", choices=[x.value for x in ConflictPolicy],
                   default=ConflictPolicy.LAST_SYNC_WINS.value,
                   help="which value the office keeps when two laptops edit the same field")
    p.add_argument("--list", action="store_true",
                   help="list the office's sites (site id, site name, head seq) and exit")
    p.add_argument("--checkout", metavar="SITE",
                   help="make VISIT a new laptop copy of SITE (its id, or its name if unique; see --list)")
    p.add_argument("--adopt-copy", metavar="COPY", type=Path,
                   help="bring the records of COPY, a plain copy of a visit made before its first sync,"
                        " into VISIT, a new laptop copy of its site: features the office lacks are added,"
                        " a value differing from the office's is kept as the office's with a conflict record"
                        " (no common base), nothing is deleted; COPY is left unchanged; then sync VISIT")
    p.add_argument("--conflicts", action="store_true", help="list VISIT's conflict records (with their ids) and exit")
    p.add_argument("--resolve", nargs=2, metavar=("ID", "CHOICE"),
                   help="resolve VISIT's conflict ID (see --conflicts) with keep-mine (the laptop's value),"
                        " keep-theirs (the office's) or a VALUE; the next sync sends it to the office")
    p.add_argument("--grant", metavar="ROLE",
                   help="PostGIS office only, run by the office: assign --site to the crew's database ROLE"
                        " (it may then read and write that site only)")
    p.add_argument("--upgrade-office", action="store_true",
                   help="run by the office: bring an office made by an older fieldapp up to this version."
                        " A folder office: its site folders renamed after their sites (the id kept inside;"
                        " laptops must then run this fieldapp or newer; run it again to finish one that"
                        " stopped). A PostGIS office (as the role owning the office tables): lock and"
                        " change-log functions, audit triggers, each crew role's grants narrowed")
    p.add_argument("--lock-wait", type=_seconds, default=10.0, metavar="SECONDS",
                   help="how long to wait for another laptop's sync (default 10)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return p


def _default_visit() -> Path:
    found = [p for p in Path.cwd().glob("*.gpkg")]
    if len(found) != 1:
        raise SystemExit(f"fieldapp sync: give the visit .gpkg (found {len(found)} here)")
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
    except SyncError as exc:
        print(f"fieldapp sync: {_one_line(exc)}", file=sys.stderr)
        _log.info("sync refused: %s", _one_line(exc))
        return 1
    except (ValueError, OSError) as exc:
        print(f"fieldapp sync: {_one_line(exc)}", file=sys.stderr)
        _log.info("sync failed: %s", _one_line(exc), exc_info=True)   # the traceback: the log file
        return 1
    except sqlite3.Error as exc:
        print(f"fieldapp sync: a GeoPackage could not be read or written: {_one_line(exc)}", file=sys.stderr)
        _log.info("sync failed: %s", _one_line(exc), exc_info=True)
        return 1
    except Exception as exc:  # noqa: BLE001 - the CLI edge: a message, never a traceback
        print(f"fieldapp sync: failed ({type(exc).__name__}): {_one_line(exc)}; nothing half-done"
              " is left, the next sync carries on", file=sys.stderr)
        _log.info("sync failed: %s", _one_line(exc), exc_info=True)
        return 1


def _one_line(exc: BaseException) -> str:
    """The error on one line, any PostgreSQL password in it masked."""
    from fieldapp.sync.masking import mask_password

    return mask_password(" ".join(str(exc).split())) or type(exc).__name__


def _describe_sites(sites: list[tuple[str, str | None, int | None]]) -> str:
    if not sites:
        return "it has no sites yet"
    return "sites here: " + ", ".join(f"{i} ({n})" if n else i for i, n, _ in sites)


def _resolve_site(office: OfficeStore, wanted: str) -> str:
    """The id of the site ``wanted``: itself if a site has that id, else the id of the one site
    named so (case and outer spaces ignored); else ``wanted`` (checkout then refuses it)."""
    sites = office.list_sites()
    if any(i == wanted for i, _, _ in sites):
        return wanted
    named = [i for i, n, _ in sites if n is not None and n.strip().casefold() == wanted.strip().casefold()]
    if len(named) > 1:
        raise SyncError(f"{office.describe()} has {len(named)} sites named {wanted!r} ({', '.join(named)});"
                        " give the site id; nothing was checked out")
    return named[0] if named else wanted


def _checkout(office: OfficeStore, wanted: str, visit: Path) -> tuple[str, Path]:
    """Check out ``wanted`` (id or unique name) to ``visit``; an unknown site's message names the sites."""
    if visit.exists() or visit.is_symlink():
        return wanted, checkout(office, wanted, visit)  # refuses the existing file first, as always
    site_id = _resolve_site(office, wanted)
    try:
        return site_id, checkout(office, site_id, visit)
    except (SyncError, ValueError) as exc:
        sites = office.list_sites()
        if any(i == site_id for i, _, _ in sites):
            raise
        raise SyncError(f"{office.describe()} has no site {wanted}; {_describe_sites(sites)};"
                        " nothing was checked out") from exc


def _run(args: argparse.Namespace) -> int:
    office = open_office(args.office, create=args.init_office)
    if args.list:
        sites = office.list_sites()
        if not sites:
            print(f"{office.describe()} has no sites yet")
        for site_id, name, head in sites:
            print(f"{site_id}\t{name if name is not None else '(name unreadable)'}\t"
                  f"head {head if head is not None else '(unreadable)'}")
        return 0
    if args.upgrade_office:
        from fieldapp.sync.office import FolderOffice
        from fieldapp.sync.pgoffice import PostgisOffice

        if isinstance(office, FolderOffice):
            from fieldapp.sync.officeconvert import convert_office

            conversion = convert_office(office, wait_s=args.lock_wait,
                                        progress=None if args.quiet else lambda line: print(line, file=sys.stderr))
            print(conversion.format(), file=sys.stdout if conversion.done else sys.stderr)
            return 0 if conversion.done else 1
        if not isinstance(office, PostgisOffice):
            print("fieldapp sync: --upgrade-office needs an office folder or a postgresql:// --office",
                  file=sys.stderr)
            return 2
        office.check_available()
        regranted = office.initialize()
        print(f"{office.describe()} is up to date; crew grants narrowed: "
              + (", ".join(f"{role} on site {site}" for site, role in regranted) or "none assigned"))
        return 0
    if args.grant:
        if not args.site or not hasattr(office, "grant_site"):
            print("fieldapp sync: --grant needs a postgresql:// --office and --site SITE", file=sys.stderr)
            return 2
        office.grant_site(args.grant, args.site)
        print(f"site {args.site} in {office.describe()} assigned to crew role {args.grant}")
        return 0
    if args.checkout:
        if args.visit is None:
            print("fieldapp sync: --checkout needs the new visit file name", file=sys.stderr)
            return 2
        site_id, path = _checkout(office, args.checkout, args.visit)
        print(f"checked out site {site_id} to {path}")
        return 0
    if args.adopt_copy:
        if args.visit is None:
            print("fieldapp sync: --adopt-copy COPY needs the new visit file name: --adopt-copy"
                  f" {args.adopt_copy} NEW.gpkg", file=sys.stderr)
            return 2
        from fieldapp.sync.adopt import adopt_copy

        print(adopt_copy(office, args.adopt_copy, args.visit, site_id=args.site).format())
        return 0
    if args.resolve and args.visit is None and args.resolve[1].lower().endswith(".gpkg"):
        # "--resolve ID VISIT": the visit would be taken as the value to write
        print(f"fieldapp sync: --resolve takes the conflict ID and a choice (keep-mine, keep-theirs"
              f" or the value to keep) before the visit: --resolve {args.resolve[0]} keep-mine"
              f" {args.resolve[1]}", file=sys.stderr)
        return 2
    visit = args.visit or _default_visit()
    if args.conflicts:
        conflicts = read_conflicts(visit)
        if not conflicts:
            print("no conflicts")
        from fieldapp.store.layerwords import layer_words
        from fieldapp.sync.conflictwords import conflict_line

        for c in conflicts:
            print(f"{c.created_utc} {c.kind.value} {layer_words(c.layer)} ({c.layer}) {c.feature_uuid}"
                  f" {conflict_line(c, None)}; id={c.uuid[:8]}"
                  + (f"; resolved {c.resolved_utc} ({c.resolution})" if c.resolved_utc else "; open"))
        return 0
    if args.resolve:
        from fieldapp.sync.resolve import resolve_conflict

        c, words = resolve_conflict(visit, *args.resolve)
        print(f"conflict {c.uuid[:8]} ({c.layer} {c.feature_uuid} {c.field or '(whole feature)'}) resolved"
              f" in {visit.name}: {words}; the next sync sends it to the office")
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
