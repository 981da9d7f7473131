"""Simulated Haglöf Digitech caliper: ``$PHGF,SPC`` + ``$PHGF,DIA`` (+ ``LEN``) per tree from a
scripted tally, at intervals or on demand (:meth:`CaliperSim.squeeze`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from devices.instruments.sentence import with_checksum
from devices.readings import MM_PER_IN
from devices.sim.base import IntervalTriggered, Simulator, check_interval_s


@dataclass(frozen=True)
class TallyTree:
    """One scripted tree: caliper species slot and label, DBH in inches, optional length."""

    species_number: int
    species_label: str
    dbh_in: float
    length_dm: float | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TallyTree:
        """From a scenario entry (``species_number``, ``label``, ``dbh_in``, ``length_dm``?)."""
        return cls(
            int(d["species_number"]),
            str(d.get("label", d.get("species_label", ""))),
            float(d["dbh_in"]),
            None if d.get("length_dm") is None else float(d["length_dm"]),
        )

    @property
    def diameter_mm(self) -> int:
        """What the caliper sends: whole millimetres (1 in = 25.4 mm)."""
        return round(self.dbh_in * MM_PER_IN)


class CaliperSim(IntervalTriggered, Simulator):
    """Emits the tally, one tree per squeeze.

    Parameters
    ----------
    tally : sequence of TallyTree or dicts
    interval_s : float, optional
        Squeeze on a timer, seconds (finite, > 0); None: only on :meth:`squeeze`.
    sends_length : bool
        Send ``$PHGF,LEN`` after the diameter (trees without ``length_dm`` send none).
    loop : bool
        Start the tally again after the last tree (default True).

    Raises
    ------
    ValueError
        An empty tally, or ``interval_s`` zero, negative or not finite.
    """

    kind = "caliper"

    def __init__(
        self,
        tally: Sequence[TallyTree | Mapping[str, Any]],
        *,
        interval_s: float | None = None,
        sends_length: bool = False,
        loop: bool = True,
        **kw: Any,
    ) -> None:
        if not tally:
            raise ValueError("the caliper tally is empty")
        interval_s = check_interval_s("interval_s", interval_s)
        self.tally = [t if isinstance(t, TallyTree) else TallyTree.from_dict(t) for t in tally]
        self.interval_s = interval_s
        self.sends_length = sends_length
        self.loop = loop
        self._next = 0
        self._due: float | None = None
        self.sent: list[TallyTree] = []
        super().__init__(**kw)

    def sentences_for(self, tree: TallyTree) -> bytes:
        """The bytes for one tree."""
        out = with_checksum(f"PHGF,SPC,{tree.species_number},{tree.species_label},")
        out += with_checksum(f"PHGF,DIA,M,{tree.diameter_mm},")
        if self.sends_length and tree.length_dm is not None:
            out += with_checksum(f"PHGF,LEN,M,{tree.length_dm:g},")
        return out

    def squeeze(self, tree: TallyTree | None = None) -> TallyTree | None:
        """Measure the next tally tree (or ``tree``) now; None when the tally is done."""
        with self._write_lock:
            if tree is None:
                if self._next >= len(self.tally):
                    if not self.loop:
                        return None
                    self._next = 0
                tree = self.tally[self._next]
                self._next += 1
            self.sent.append(tree)
        self.send(self.sentences_for(tree))
        return tree

    def _trigger(self) -> None:
        self.squeeze()
