"""The tag block of a laptop copy, applied by the store itself (issue 30, item 13).

The office gives each laptop copy of a site its own block of tree tags (kept beside the visit in
``VISIT.gpkg.sync/state.json``; read here, below the sync, which writes it), so trees tallied offline on
two laptops never share a tag -- the tag is how a crew tells its trees apart. The app used to
apply it when it opened a visit; a script or command opening the visit with
:func:`fieldapp.store.open_visit` did not, and numbered new trees after the highest tag in the
file, into another laptop's block. Every open for writing now applies it here, whatever opens.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..survey.visit import Visit


def use_tag_block(visit: Visit, path: Path) -> tuple[int, int] | None:
    """Number ``visit``'s new trees in the tag block the office gave the copy at ``path``.

    Returns the block (first, last tag) applied, ``None`` when the copy has none (never
    synced, or its ``.sync`` state unreadable: numbered as before, after the highest tag)."""
    block = tag_range_of(Path(path))
    if block is not None:
        visit.set_tag_block(*block)
    return block


#: Tree tags per checkout: block n is tags n*1000 .. n*1000+999 (block 0, tags 1..999, is never
#: given out: a site's first laptop numbered its trees from 1 before it had a block).
TAG_BLOCK_SIZE = 1000


def tag_range_of(visit: Path) -> tuple[int, int] | None:
    """The tree tags ``(first, last)`` this laptop copy of a site numbers new trees with: the
    office's tag block recorded beside the visit (``VISIT.gpkg.sync/state.json``, written by
    :class:`fieldapp.sync.laptop.LaptopState`) at checkout or sync, ``None`` when it has none
    (never synced, or a damaged state file: tags as before).

    >>> tag_range_of(Path("/nonexistent/visit.gpkg")) is None
    True
    """
    visit = Path(visit).absolute()
    state_file = visit.with_name(visit.name + ".sync") / "state.json"
    try:
        data = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    block = data.get("tag_block") if isinstance(data, dict) else None
    if not isinstance(block, int) or block < 1:
        return None
    return block * TAG_BLOCK_SIZE, block * TAG_BLOCK_SIZE + TAG_BLOCK_SIZE - 1
