"""The map first (issue 35 item 11): the tabs of Checks, Conflicts, Records and Photos share
the column beside the map with the workflow panel and fold to their tab bar, so the map has
the window's whole height and more room than any panel.

Folded, only the tab bar shows (its titles carry the counts); a click on a tab, Ctrl+K,
Ctrl+J, Ctrl+T or a focus landing in one of the tabs unfolds them to about half the column
(:data:`UNFOLDED_SHARE`, at least :data:`UNFOLDED_MIN_PX`: three verdict rows and the check
details); a click on the tab shown folds them again. The divider above the tab bar moves
freely as well: dragged down to the bar, the tabs are folded.
"""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication, QSplitter, QTabWidget, QWidget

#: The share of the column the unfolded tabs take (the workflow panel keeps the rest).
UNFOLDED_SHARE = 0.5
#: The least height (px) of the unfolded tabs: the tab bar, the table's header, three 40 px
#: verdict rows and the check details below them.
UNFOLDED_MIN_PX = 300
#: The least height (px) the workflow panel keeps when the tabs unfold.
PANEL_MIN_PX = 150


class LowerFold(QObject):
    """Folds and unfolds ``tabs``, the second of ``splitter``'s two widgets."""

    def __init__(self, splitter: QSplitter, tabs: QTabWidget) -> None:
        super().__init__(splitter)
        self.splitter = splitter
        self.tabs = tabs
        self._fold_next = False
        bar = tabs.tabBar()
        # the splitter may push the tabs down to their bar (their own least size would not)
        tabs.setMinimumHeight(self.bar_px())
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        bar.tabBarClicked.connect(self._clicked)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)

    def bar_px(self) -> int:
        """The folded height (px): the tab bar and the tab widget's frame (the theme and the
        titles change it: the tabs' least height follows)."""
        bar = self.tabs.tabBar()
        px = max(bar.sizeHint().height(), bar.height()) + 2
        if self.tabs.minimumHeight() != px:
            self.tabs.setMinimumHeight(px)
        return px

    def folded(self) -> bool:
        """Whether only the tab bar shows (a few px more count as folded: nothing of a page
        can be read there)."""
        sizes = self.splitter.sizes()
        return len(sizes) == 2 and sizes[1] <= self.bar_px() + 12

    def fold(self) -> None:
        """Only the tab bar; the workflow panel gets the column."""
        total = sum(self.splitter.sizes())
        if total > 0:
            px = self.bar_px()
            self.splitter.setSizes([total - px, px])

    def unfold(self) -> None:
        """The tabs at :data:`UNFOLDED_SHARE` of the column (nothing when already open)."""
        total = sum(self.splitter.sizes())
        if total <= 0 or not self.folded():
            return
        want = max(UNFOLDED_MIN_PX, int(total * UNFOLDED_SHARE))
        want = max(self.bar_px(), min(want, total - PANEL_MIN_PX))
        self.splitter.setSizes([total - want, want])
        page = self.tabs.currentWidget()
        if hasattr(page, "unfolded"):         # e.g. the checks: rows and details fitted again
            page.unfolded()

    def _clicked(self, index: int) -> None:
        # a click on the tab shown folds open tabs; any other click unfolds (after the
        # tab has changed). A tab made current by the program (a photo attached) does not
        # unfold them: the crew asked for nothing
        if index == self.tabs.currentIndex() and not self.folded():
            QTimer.singleShot(0, self.fold)
        else:
            QTimer.singleShot(0, self.unfold)

    def _focus_changed(self, _old: Any, new: Any) -> None:
        if not shiboken6.isValid(self.tabs):         # the window is gone; the app lives on
            return
        if isinstance(new, QWidget) and new is not self.tabs.tabBar() \
                and self.tabs.isAncestorOf(new) and self.folded():
            self.unfold()
