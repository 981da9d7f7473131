"""Command-line entry point: ``fieldapp [SUBCOMMAND] ...``.

Subcommands are dispatched lazily so that office jobs never import Qt:

- ``fieldapp rules evaluate FILE.json`` -- :mod:`fieldapp.rules.cli`
- ``fieldapp sync --office PATH [VISIT]`` -- :mod:`fieldapp.sync.cli`
- ``fieldapp report VISIT.gpkg -o report.pdf`` -- :mod:`fieldapp.report`
- ``fieldapp export VISIT.gpkg --format ...`` -- :mod:`fieldapp.export`
- ``fieldapp wetland-form PLOT.json`` -- :mod:`fieldapp.rules.wetland_cli`
- ``fieldapp basemap fetch --bbox ... --zoom A-B --url ... -o OUT.mbtiles`` -- :mod:`fieldapp.basemap.fetch`
- anything else starts the app (:mod:`fieldapp.ui.app`), e.g. ``fieldapp --simulate``.

Every run writes ``fieldapp.log`` (:mod:`fieldapp.app.logfile`; the folder:
:func:`fieldapp.app.paths.log_dir`), and an unexpected error is logged there with its traceback.
"""

from __future__ import annotations

import importlib
import logging
import sys

from devices.console import tolerant_console

SUBCOMMANDS = {
    "rules": "fieldapp.rules.cli",
    "sync": "fieldapp.sync.cli",
    "report": "fieldapp.report",
    "export": "fieldapp.export",
    "basemap": "fieldapp.basemap",
    "wetland-form": "fieldapp.rules.wetland_cli",
}

#: One line each for ``fieldapp --help`` (kept here so listing them imports nothing).
SUBCOMMAND_HELP = {
    "rules": "re-run rule requests from the office (fieldapp rules evaluate FILE.json)",
    "sync": "sync a visit with an office folder (fieldapp sync --office PATH [VISIT]; --list the sites)",
    "report": "write the site report PDF (fieldapp report VISIT.gpkg -o REPORT.pdf)",
    "export": "export the visit as geojson, kml, shp, csv, dxf, gpkg or all of them "
              "(fieldapp export VISIT.gpkg --format F -o OUT)",
    "basemap": "prepare an offline basemap (fieldapp basemap fetch --bbox W,S,E,N --zoom A-B --url URL -o OUT.mbtiles)",
    "wetland-form": "the wetland determination of one data point's form (fieldapp wetland-form PLOT.json)",
}


def print_help() -> None:
    """Print the subcommands (one line each), then the app's own options."""
    print("usage: fieldapp [SUBCOMMAND ...] | fieldapp [APP OPTIONS]\n")
    print("subcommands (run 'fieldapp SUBCOMMAND --help' for their options):")
    width = max(map(len, SUBCOMMAND_HELP)) + 2      # "wetland-form" ran into its line
    for name, line in SUBCOMMAND_HELP.items():
        print(f"  {name:<{width}}{line}")
    print("\n--version prints the version (fieldapp X.Y.Z)")
    print("\nwithout a subcommand, fieldapp starts the app:\n")
    from fieldapp.ui.app import build_parser  # argparse only; Qt is imported when the app runs

    build_parser().print_help()


#: The window's console lines name the level and the logger; the office commands' stay plain.
WINDOW_CONSOLE_FORMAT = "%(levelname)s %(name)s: %(message)s"


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand or the app; return the process exit status: 130 on a Ctrl+C that the
    command does not handle itself (e.g. while its modules load), as one line, no traceback.

    The log file is set up first (:func:`fieldapp.app.logfile.configure`) with the crash hooks;
    an exception no command handles is logged with its traceback, the console (or, with no
    console, a message box) says where the log is, and the exit status is 1. Both are undone
    when it returns (a test calling it leaves no handler behind).

    A character the console's code page lacks (cp1252, cp437 on Windows) prints as ``?``
    (:func:`devices.console.tolerant_console`): a site named "Łąka – Wisła" is no traceback.
    """
    from fieldapp.app import logfile

    tolerant_console()

    args = list(sys.argv[1:] if argv is None else argv)
    window = not (args and (args[0] in SUBCOMMANDS or args[0] in ("-h", "--help")))
    logfile.configure(WINDOW_CONSOLE_FORMAT if window else "%(message)s")
    logfile.install_crash_hooks()
    try:
        logfile.log_start(["fieldapp", *args])
        return _main(args)
    except KeyboardInterrupt:
        print("fieldapp: interrupted (Ctrl+C)", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - logged with its traceback, said in one line
        logfile.report_crash((type(exc), exc, exc.__traceback__), "start-up" if window else args[0])
        return 1
    finally:
        logfile.uninstall_crash_hooks()
        logfile.unconfigure()


def _main(args: list[str]) -> int:
    if args and args[0] in SUBCOMMANDS:
        module = importlib.import_module(SUBCOMMANDS[args[0]])
        status = int(module.main(args[1:]) or 0)
        # how an office command ended, in the log a crew sends with a question (its refusals
        # go to the console as one line; the command's own log lines say why)
        logging.getLogger("fieldapp").info("fieldapp %s ended with exit status %d", args[0], status)
        return status
    if args and args[0] in ("-h", "--help"):
        print_help()
        return 0
    if args and args[0] == "--version":
        from fieldapp import __version__

        print(f"fieldapp {__version__}")
        return 0
    from fieldapp.ui.app import main as app_main

    return int(app_main(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
