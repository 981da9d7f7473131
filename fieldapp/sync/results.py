"""What one sync did: the outcome of its run (:class:`SyncOutcome`) and the report shown to the
user (:class:`SyncReport`, with per-layer :class:`LayerCounts`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from fieldapp.store.layerwords import layer_words
from fieldapp.store.schema import META_TABLE
from fieldapp.sync.conflicts import Conflict, ConflictPolicy
from fieldapp.sync.conflictwords import conflict_line
from fieldapp.sync.files import CONFLICTS_TABLE, LOG_TABLE

#: Tables a sync carries that are not the crew's records: the sync's own log, the store's file
#: info and the Related Tables Extension's list of photo links (its rows the same in every
#: copy). Counted apart, never in the layer totals.
BOOKKEEPING_TABLES = (LOG_TABLE, META_TABLE, "gpkgext_relations")
#: Tables counted apart on a line of their own, never in the layer totals: the conflict records
#: (rows about the crew's records, which the crew resolves; not records of its layers).
APART_TABLES = (*BOOKKEEPING_TABLES, CONFLICTS_TABLE)


@dataclass(frozen=True)
class LayerCounts:
    """Per-layer counts of one sync.

    sent: changes of this laptop applied to the office (inserts + updates + deletes);
    received: changes other laptops had sent, now applied to this laptop;
    merged: features changed both here and by another laptop whose edits were combined;
    conflicts: conflict records written for the layer by this sync.
    """

    layer: str
    sent: int = 0
    received: int = 0
    merged: int = 0
    conflicts: int = 0


@dataclass(frozen=True)
class SyncOutcome:
    """What the run of one sync (under the office lock) ended with.

    Attributes
    ----------
    changeset_id : str or None
        The changeset this laptop sent; ``None`` when it sent nothing.
    office_seq : int
        The office log's seq after the sync.
    counts : dict
        ``{table: {"sent": n, "received": n, "merged": n, "conflicts": n}}`` (may include the
        sync log table and all-zero rows; :meth:`layers` drops them).
    conflicts : tuple of Conflict
        The conflict records this sync wrote.
    no_op : bool
        Nothing was sent or received.
    """

    changeset_id: str | None
    office_seq: int
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    conflicts: tuple[Conflict, ...] = ()
    no_op: bool = False

    def layers(self) -> tuple[LayerCounts, ...]:
        """Every layer of records with a non-zero count, by name (:data:`APART_TABLES`: the
        bookkeeping and the conflict records, left out)."""
        return tuple(LayerCounts(name, **c) for name, c in sorted(self.counts.items())
                     if name not in APART_TABLES and any(c.values()))

    def conflict_records(self) -> LayerCounts | None:
        """The conflict records this sync sent and received (rows of ``fieldapp_sync_conflicts``
        written by this or other laptops' syncs), ``None`` when none travelled."""
        c = self.counts.get(CONFLICTS_TABLE)
        return LayerCounts(CONFLICTS_TABLE, **c) if c and any(c.values()) else None

    def bookkeeping(self) -> tuple[LayerCounts, ...]:
        """The non-zero counts of :data:`BOOKKEEPING_TABLES` but the sync log (which every
        push has), by name."""
        return tuple(LayerCounts(name, **c) for name, c in sorted(self.counts.items())
                     if name in BOOKKEEPING_TABLES and name != LOG_TABLE and any(c.values()))


@dataclass(frozen=True)
class SyncReport:
    """What one :func:`~fieldapp.sync.engine.sync` did. ``layers`` lists every layer of records
    with a non-zero count; ``bookkeeping`` the tables that are not records
    (:data:`BOOKKEEPING_TABLES`: file info, photo links) and ``conflict_records`` the conflict
    records that travelled (sent / received rows of ``fieldapp_sync_conflicts``), both never in
    the totals. ``conflicts`` are the records this sync wrote (each also counted in its layer's
    ``conflicts`` column)."""

    site_id: str
    office: str
    changeset_id: str | None
    office_seq: int
    layers: tuple[LayerCounts, ...]
    conflicts: tuple[Conflict, ...]
    resumed: tuple[str, ...] = ()
    no_op: bool = False
    policy: str = ConflictPolicy.LAST_SYNC_WINS.value
    #: Store schema changes this sync made, in words (``"office master: schema 1 -> 2 ..."``).
    schema_changes: tuple[str, ...] = ()
    bookkeeping: tuple[LayerCounts, ...] = ()
    conflict_records: LayerCounts | None = None
    #: the site's name as the crew gave it ("" when unknown): the summary names the site by it
    site_name: str = ""

    def totals(self) -> LayerCounts:
        """Sum of the per-layer counts (``layer`` = ``"all"``)."""
        return LayerCounts(
            "all",
            sum(c.sent for c in self.layers),
            sum(c.received for c in self.layers),
            sum(c.merged for c in self.layers),
            sum(c.conflicts for c in self.layers),
        )

    def conflict_records_words(self, with_table: bool = True) -> str:
        """The conflict records' line in words (CLI and the window), ``""`` when none travelled:
        ``Conflict records (sync) (fieldapp_sync_conflicts), not in the layer totals: 2 received``
        (the window: without the table's name)."""
        c = self.conflict_records
        return "" if c is None else _conflict_records_words(c, with_table)

    def format(self) -> str:
        """A plain-text summary: one line per layer, then the conflicts."""
        site = (f"site {self.site_name} ({self.site_id})" if self.site_name and self.site_name != self.site_id
                else f"site {self.site_id}")
        lines = [f"{site} <-> {self.office}: office now at seq {self.office_seq}"]
        for cid in self.resumed:
            lines.append(f"  completed interrupted sync {cid}")
        for what in self.schema_changes:
            lines.append(f"  migrated {what}")
        if self.no_op:
            lines.append("  nothing to send or receive")
        if self.layers:
            rows = [("all layers" if c.layer == "all" else f"{layer_words(c.layer)} ({c.layer})", c)
                    for c in (*self.layers, self.totals())]
            w = max(len(name) for name, _ in rows) + 2      # the numbers stay in their columns
            lines.append(f"  {'layer':<{w}}{'sent':>7}{'received':>10}{'merged':>8}{'conflicts':>11}")
            for name, c in rows:
                lines.append(f"  {name:<{w}}{c.sent:>7}{c.received:>10}{c.merged:>8}{c.conflicts:>11}")
        if self.conflict_records is not None:
            lines.append(f"  {self.conflict_records_words()}")
        if self.bookkeeping:
            kept = "; ".join(f"{layer_words(c.layer)} ({c.layer}) " + ", ".join(
                f"{n} {what}" for n, what in ((c.sent, "sent"), (c.received, "received")) if n)
                for c in self.bookkeeping)
            lines.append(f"  file bookkeeping, not records: {kept}")
        for k in self.conflicts:
            what = f"{layer_words(k.layer)} ({k.layer}) {k.feature_uuid or k.feature_fid}"  # the field opens the line
            lines.append(f"  conflict {k.kind.value}: {what}: {conflict_line(k, 80)}")
        return "\n".join(lines)


def _conflict_records_words(c: LayerCounts, with_table: bool = True) -> str:
    """The conflicts table's sent / received in words (not a layer of records: no totals)."""
    done = ", ".join(f"{n} {what}" for n, what in ((c.sent, "sent"), (c.received, "received")) if n)
    name = f"{layer_words(c.layer)} ({c.layer})" if with_table else layer_words(c.layer)
    return f"{name}, not in the layer totals: {done or 'none'}"


def _short(value: object, width: int = 40) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= width else text[: width - 3] + "..."
