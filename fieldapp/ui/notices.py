"""What a panel tells the crew outside itself: the window's banner (a refused value or command
stays there until the next command succeeds) and the key legend under the workflow tabs (a
refused key and why)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QLabel


class Notices:
    """The banner above the map and the key legend's refusal line."""

    def __init__(self, banner: QLabel) -> None:
        self.banner = banner
        self._refusal_shown = False
        self._legend: Callable[[str], None] | None = None
        self._legend_hint: Callable[[], str] | None = None

    def show_banner(self, text: str) -> None:
        """``text`` in the banner ("" hides it)."""
        self._refusal_shown = False
        self.banner.setText(text)
        self.banner.setVisible(bool(text))

    def show_refusal(self, text: str) -> None:
        """A refused value or command in the banner, until the next command succeeds."""
        self.show_banner(text)
        self._refusal_shown = True

    def clear_refusal(self) -> None:
        """Hide the banner if it shows a refusal (other banners stay)."""
        if self._refusal_shown:
            self.show_banner("")

    def attach_key_legend(self, show: Callable[[str], None], hint: Callable[[], str]) -> None:
        """The key legend is built (:func:`fieldapp.ui.workflows.install_workflows`): ``show``
        puts a refusal in it, ``hint`` is the refusal it shows now."""
        self._legend, self._legend_hint = show, hint

    def key_refusal(self, text: str) -> None:
        """``text`` in the key legend ("" ends the refusal shown); nothing before the legend
        is built."""
        if self._legend is not None:
            self._legend(text)

    def key_hint(self) -> str:
        """The refusal the key legend shows now ("" when none, or no legend yet)."""
        return self._legend_hint() if self._legend_hint is not None else ""
