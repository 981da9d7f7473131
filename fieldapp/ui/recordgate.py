"""The record buttons' gate: a button that records a position is on only while the fix can be
recorded (:attr:`fieldapp.app.devicefeed.DeviceFeed.problem` is None) and the panel's own
condition holds; when off its tooltip says why, and :meth:`RecordGate.off_reason` says it for
a refused key."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton

from fieldapp.app.devicefeed import DeviceFeed


class RecordGate:
    """On / off of every record button, with the reasons, from the fix and each panel."""

    def __init__(self, devices: DeviceFeed) -> None:
        self.devices = devices
        self.buttons: list[QPushButton] = []
        self._extra_ok: dict[QPushButton, bool | None] = {}
        self._extra_reason: dict[QPushButton, str] = {}
        self._base_tips: dict[QPushButton, str] = {}

    def register(self, button: QPushButton) -> None:
        """A button that records a position: off with the reason while the fix is unusable."""
        button.setProperty("record", "true")
        self.buttons.append(button)
        self._base_tips[button] = button.toolTip()
        self.apply(button)

    def set_extra_ok(self, button: QPushButton, ok: bool | None, reason: str = "") -> None:
        """A panel's own condition for ``button`` (None: only the fix matters); ``reason``
        (when not ok) goes in the button's tooltip."""
        self._extra_ok[button] = ok
        self._extra_reason[button] = reason if ok is False else ""
        self.apply(button)

    def apply_all(self) -> None:
        """Every record button re-decided (the fix's problem changed)."""
        for b in self.buttons:
            self.apply(b)

    def apply(self, button: QPushButton) -> None:
        """``button`` on or off, its tooltip with the reasons when off."""
        problem = self.devices.problem
        extra_ok = self._extra_ok.get(button)
        ok = problem is None and (extra_ok is None or extra_ok)
        button.setEnabled(ok)
        base = self._base_tips.get(button, "")
        why = [r for r in (problem, self._extra_reason.get(button)) if r]
        button.setToolTip(base if ok or not why else base + "".join(f"\n— {r}" for r in why))

    def off_reason(self, button: QPushButton) -> str:
        """Why ``button`` is off, in words ("" when it is on or no reason is known)."""
        if button.isEnabled():
            return ""
        problem = self.devices.problem if button in self._base_tips else None
        return "; ".join(r for r in (problem, self._extra_reason.get(button)) if r)
