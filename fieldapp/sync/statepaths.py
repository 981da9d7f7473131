"""Where the sync keeps its state beside a visit: ``VISIT.gpkg.sync/`` and the base copy of the
office master in it (a module of its own: the laptop state and the visit check both need the
places, and neither may import the other).

>>> from pathlib import PurePosixPath as P
>>> sync_dir(P("/visits/site.gpkg")).as_posix(), base_copy(P("/visits/site.gpkg")).name
('/visits/site.gpkg.sync', 'base.gpkg')
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TypeVar

P = TypeVar("P", bound=PurePath)


def sync_dir(visit: P) -> P:
    """``VISIT.gpkg.sync/``: the sync state folder beside ``visit``."""
    return visit.with_name(visit.name + ".sync")


def base_copy(visit: P) -> P:
    """``VISIT.gpkg.sync/base.gpkg``: the office master as this laptop last synced it."""
    return sync_dir(visit) / "base.gpkg"
