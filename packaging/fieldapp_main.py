"""Entry script of the PyInstaller bundle: the same dispatch as the installed ``fieldapp`` command.

``fieldapp`` with no subcommand starts the app (``fieldapp --simulate``); ``fieldapp rules
evaluate FILE.json``, ``fieldapp sync ...``, ``fieldapp report ...`` and ``fieldapp export ...``
run the office jobs, exactly as :func:`fieldapp.cli.main` does from a source install.

A frozen app has no ``python`` to start helper processes with, and ``sys.executable`` is the
bundle's own executable. So that code which runs ``[sys.executable, "-m", MODULE, ...]`` (for
example a simulator in its own process) keeps working, the bundle also accepts
``fieldapp -m MODULE ARGS...`` for this project's own modules (``devices.*``, ``fieldapp.*``).
"""

from __future__ import annotations

import multiprocessing
import runpy
import sys

OWN_PACKAGES = ("devices", "fieldapp")


def run_module(argv: list[str]) -> int:
    """Run ``argv[0]`` (a module of this project) as ``__main__`` with ``argv[1:]`` as arguments.

    Raises
    ------
    ValueError
        If the module is not one of this project's (``devices.*`` or ``fieldapp.*``).
    """
    if not argv:
        raise ValueError("-m needs a module name")
    module = argv[0]
    if module.split(".")[0] not in OWN_PACKAGES:
        raise ValueError(f"the bundle runs only its own modules with -m, not {module!r}")
    sys.argv = [module, *argv[1:]]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        code = stop.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    return 0


def main() -> int:
    """Start the app or a subcommand; return the process exit status."""
    multiprocessing.freeze_support()
    args = sys.argv[1:]
    if args[:1] == ["-m"]:
        try:
            return run_module(args[1:])
        except ValueError as err:
            print(f"fieldapp: {err}", file=sys.stderr)
            return 2
    from fieldapp.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
