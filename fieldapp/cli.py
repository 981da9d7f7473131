"""Command-line entry point: ``fieldapp [SUBCOMMAND] ...``.

Subcommands are dispatched lazily so that office jobs never import Qt:

- ``fieldapp rules evaluate FILE.json`` -- :mod:`fieldapp.rules.cli`
- ``fieldapp sync --office PATH [VISIT]`` -- :mod:`fieldapp.sync.cli`
- ``fieldapp report VISIT.gpkg -o report.pdf`` -- :mod:`fieldapp.report`
- ``fieldapp export VISIT.gpkg --format ...`` -- :mod:`fieldapp.export`
- anything else starts the app (:mod:`fieldapp.ui.app`), e.g. ``fieldapp --simulate``.
"""

from __future__ import annotations

import importlib
import sys

SUBCOMMANDS = {
    "rules": "fieldapp.rules.cli",
    "sync": "fieldapp.sync.cli",
    "report": "fieldapp.report",
    "export": "fieldapp.export",
}


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand or the app; return the process exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        module = importlib.import_module(SUBCOMMANDS[args[0]])
        return int(module.main(args[1:]) or 0)
    from fieldapp.ui.app import main as app_main

    return int(app_main(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
