"""The tag block of a laptop copy, applied by the store itself (issue 30, item 13).

The office gives each laptop copy of a site its own block of tree tags (kept beside the visit in
``VISIT.gpkg.sync/``; :func:`fieldapp.sync.laptop.tag_range_of`), so trees tallied offline on
two laptops never share a tag -- the tag is how a crew tells its trees apart. The app used to
apply it when it opened a visit; a script or command opening the visit with
:func:`fieldapp.store.open_visit` did not, and numbered new trees after the highest tag in the
file, into another laptop's block. Every open for writing now applies it here, whatever opens.
"""

from __future__ import annotations

from pathlib import Path

from ..survey.visit import Visit


def use_tag_block(visit: Visit, path: Path) -> tuple[int, int] | None:
    """Number ``visit``'s new trees in the tag block the office gave the copy at ``path``.

    Returns the block (first, last tag) applied, ``None`` when the copy has none (never
    synced, or its ``.sync`` state unreadable: numbered as before, after the highest tag)."""
    from fieldapp.sync.laptop import tag_range_of

    block = tag_range_of(Path(path))
    if block is not None:
        visit.set_tag_block(*block)
    return block
