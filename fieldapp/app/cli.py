"""The app's command line, Qt-free: what ``fieldapp --quit-after SECONDS`` says at the end.

A smoke run says what was true (the visit opened, the fixes received, the records stored, no
receiver attached) and says FAILED, with exit status 1, only when something failed: the visit
did not open, a device asked for did not start, the receiver asked for sent no fix, or the
simulated surveyor of ``--simulate`` stored nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from fieldapp.app.wording import plural

#: Said when no receiver was asked for: no fix was expected, none is no failure.
NO_RECEIVER = "no receiver attached (no --simulate, --replay or --gnss-url), so no fixes"


@dataclass(frozen=True)
class SmokeRun:
    """What a ``--quit-after`` run saw.

    visit : the visit file's name (``demo-20260601-0930.gpkg``), None when it did not open
    fixes : fixes received from the receiver (NMEA epochs)
    records : records stored in the visit during the run (OHWM points, trees, track ...)
    devices_not_started : devices asked for (receiver, rangefinder, caliper, replay) that did
        not start
    receiver : a receiver was asked for (``--simulate``, ``--replay`` or a GNSS port)
    simulate : ``--simulate``: the simulated surveyor is expected to store a record
    """

    visit: str | None
    fixes: int
    records: int
    devices_not_started: int = 0
    receiver: bool = False
    simulate: bool = False


def quit_after_verdict(run: SmokeRun) -> tuple[str, int]:
    """The line ``--quit-after`` prints and the exit status (0 ok, 1 failed).

    >>> quit_after_verdict(SmokeRun("demo.gpkg", 35, 12, receiver=True, simulate=True))
    ('fieldapp: visit demo.gpkg opened, 35 fixes received, 12 records stored -> ok', 0)
    >>> quit_after_verdict(SmokeRun("site.gpkg", 0, 0))[1]
    0
    >>> print(*quit_after_verdict(SmokeRun(None, 0, 0)))  # doctest: +NORMALIZE_WHITESPACE
    fieldapp: visit not opened, 0 records stored; no receiver attached (no --simulate, --replay or
    --gnss-url), so no fixes -> FAILED: the visit did not open 1
    """
    failed = []
    if run.visit is None:
        failed.append("the visit did not open")
    if run.devices_not_started:
        failed.append(f"{plural(run.devices_not_started, 'device')} not started")
    elif run.receiver and run.fixes == 0:
        failed.append("the receiver sent no fix")
    if run.simulate and run.fixes and run.records == 0:
        failed.append("the simulated surveyor stored no record")
    opened = f"visit {run.visit} opened" if run.visit is not None else "visit not opened"
    stored = plural(run.records, "record") + " stored"
    if run.receiver:
        line = f"{opened}, {plural(run.fixes, 'fix', 'fixes')} received, {stored}"
    else:
        line = f"{opened}, {stored}; {NO_RECEIVER}"
    verdict = f"FAILED: {'; '.join(failed)}" if failed else "ok"
    return f"fieldapp: {line} -> {verdict}", 1 if failed else 0
