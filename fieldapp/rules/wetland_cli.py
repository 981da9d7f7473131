"""``fieldapp wetland-form PLOT.json``: the wetland determination of one data point's form.

Usage::

    fieldapp wetland-form PLOT.json [--explain]   # PLOT.json '-' reads standard input (UTF-8)

Prints one JSON object (the contract in ``docs/wetland-form.md``; ``--explain`` adds ``how``,
the words of how each verdict was reached) and exits 0. A species is matched against the
form's ``indicators`` in any case, repeated spaces as one and "x" as the hybrid sign "×"
(:func:`fieldapp.rules.wetland_form.species_key`), and written as ``indicators`` spells it;
the output's keys are the contract's whatever the spelling. Bad input exits 2 with one line on
standard error naming the problem, and prints no JSON: a file that cannot be read, malformed
JSON, negative cover, more than 100 % for one species, a stratum or region not in the
contract, an indicator code the region's supplement does not have (or entered in the other
list), a status other than OBL/FACW/FAC/FACU/UPL, one species given two statuses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from fieldapp.rules.cli import _write, read_input, unreadable_words
from fieldapp.rules.wetland_form import FormError, determine

__all__ = ["main"]

PROG = "fieldapp wetland-form"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="The routine wetland determination of one data point's"
                                " form (docs/wetland-form.md).")
    p.add_argument("file", metavar="PLOT.json", help="the data point's form; '-' for standard input")
    p.add_argument("--explain", action="store_true", help="add 'how': how each verdict was reached, in words")
    return p


def _fail(message: str) -> int:
    print(f"{PROG}: {' '.join(message.split())}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fieldapp wetland-form`` with ``argv`` (the arguments after ``wetland-form``);
    return the exit status (0, or 2 with one line on standard error)."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        text = read_input(args.file)
    except OSError as err:
        return _fail(f"cannot read {args.file}: {unreadable_words(args.file, err)}")
    except ValueError as err:
        return _fail(f"cannot read {args.file}: {err}")
    try:
        data = json.loads(text)
    except RecursionError:
        return _fail(f"{args.file} is not a form: JSON nested too deeply")
    except ValueError as err:
        return _fail(f"{args.file} is not valid JSON: {err}")
    try:
        result = determine(data).contract(explain=args.explain)
    except FormError as err:
        return _fail(f"{args.file}: {err}")
    _write((json.dumps(result, indent=2, allow_nan=False) + "\n").encode("ascii"))
    return 0
