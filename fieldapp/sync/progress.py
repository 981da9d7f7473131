"""Progress and cancellation of one sync: what the UI thread sees and how it stops a sync.

:class:`CancelToken` is set from the UI thread; :class:`_Progress` is what the sync's steps call:
it forwards the fraction and message, touches the office lock (heartbeat) and honours a cancel
until the commit point (the changeset handed to the office).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from fieldapp.sync.errors import SyncCancelled


class CancelToken:
    """Thread-safe cancellation flag for :func:`~fieldapp.sync.engine.sync` (set from the UI thread).

    Cancelling is honoured at every step until the changeset is handed to the office; after
    that the sync finishes (the remaining steps are local and short), so a cancel can never
    leave the office ahead of the laptop.
    """

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the sync to stop at its next step."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()


#: ``progress(fraction 0..1, message)``, called from the syncing thread at every step.
ProgressCallback = Callable[[float, str], None]


class _Progress:
    """Forwards progress, touches the lock, honours cancellation until the commit point."""

    def __init__(self, callback: ProgressCallback | None, cancel: CancelToken | None) -> None:
        self.callback = callback
        self.cancel = cancel
        self.heartbeat: Callable[[], None] | None = None
        self.committed = False
        self.fraction = 0.0

    def __call__(self, fraction: float, message: str) -> None:
        self.fraction = max(self.fraction, fraction)
        if self.cancel is not None and self.cancel.cancelled and not self.committed:
            raise SyncCancelled(f"sync cancelled at: {message}; the office was not changed")
        if self.heartbeat is not None:
            self.heartbeat()
        if self.callback is not None:
            self.callback(self.fraction, message)

    def step(self, message: str) -> None:
        """A sub-step inside the current fraction (office writes)."""
        if self.callback is not None:
            self.callback(self.fraction, message)
