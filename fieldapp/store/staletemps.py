"""The temporary files of a visit creation that never finished (issue 30, item 8).

:func:`fieldapp.store.create_visit` builds the new GeoPackage as ``.<name>.gpkg.<pid>.<8
characters>.tmp`` beside where it will be (SQLite keeps its ``-journal`` beside that while it
writes) and only then puts it in place. A Python error removes the file; a creation killed with
SIGKILL, by the Task Manager or by a power cut cannot, and the file and its journal stayed for
ever. :func:`clear_stale_creations` removes them at the next creation in that folder and when the
app opens a visit there: those of a process that is gone (the pid in the name), or older than
:data:`STALE_HOURS` (a name without a pid, as earlier versions made, or a pid reused since) --
the same rule as :func:`fieldapp.export.workers.clear_stale` for killed exports.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: A creation's temporary file this old is stale whoever made it (a creation takes seconds).
STALE_HOURS = 6
_PATTERN = re.compile(r"\..+\.gpkg\.(?:(\d+)\.)?[A-Za-z0-9_]{8}\.tmp(?:-journal)?")


def temp_prefix(name: str) -> str:
    """``.<name>.<this pid>.``: the start of this process's temporary file for visit ``name``
    (``tempfile.mkstemp`` adds 8 characters and ``.tmp``)."""
    return f".{name}.{os.getpid()}."


def clear_stale_creations(folder: Path) -> list[Path]:
    """Remove from ``folder`` the temporary files of visit creations that were killed, and
    their journals: named ``.<name>.gpkg.<pid>.<8 characters>.tmp`` (``-journal`` after it for
    the journal; or without the pid, as
    earlier versions named them), a regular file, not a link, and either its process gone
    (:func:`fieldapp.store.processes.pid_alive`; never this process's own) or older than
    :data:`STALE_HOURS`. Nothing else is touched; a file that cannot be removed (another
    program holds it on Windows) is left for next time. Never raises for an unreadable folder.

    Returns
    -------
    list of Path
        The files removed (journals included).
    """
    from fieldapp.store.processes import stale_entries

    removed: list[Path] = []
    for e in stale_entries(folder, _PATTERN, folders=False, hours=STALE_HOURS):
        try:
            os.unlink(e.path)
        except OSError:     # gone meanwhile, or held open (Windows): left for the next time
            continue
        removed.append(Path(e.path))
    return removed
