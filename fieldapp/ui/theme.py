"""A high-contrast light theme for reading a laptop screen in the sun, with large targets.

Dark text on a white ground reads best in daylight; colour never carries meaning alone (each
state also has a word). Sizes are in points/pixels chosen for gloved fingers on a touch screen.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle

#: Colours of fix quality and device state: (background, text), chosen for >= 7:1 contrast.
GOOD = ("#0a6b1f", "#ffffff")      # RTK fixed, connected
FAIR = ("#0b4f8a", "#ffffff")      # RTK float / DGPS
POOR = ("#8a4b00", "#ffffff")      # autonomous, estimated
BAD = ("#a10000", "#ffffff")       # no fix, disconnected
STALE = ("#5c5c5c", "#ffffff")     # stale, unknown
NEUTRAL = ("#e6e6e6", "#000000")

BASE_POINT_SIZE = 13
#: A gloved fingertip (issue 28): every tap target at least this wide or high on the screen
#: itself, whatever its size and Windows' display scaling (125 % - 200 %).
TAP_MM = 9.0
#: The least tap target (logical px) whatever the screen says: 40 px is about 10 mm on a 13"
#: 1366 x 768 laptop at 100 %; a denser screen (an 8" 1280 x 800 tablet at 100 %, 189 dpi)
#: gets more, from its real density (:func:`tap_px`).
TOUCH_PX_LEAST = 40
#: A physical density (dots per inch, device-independent) outside this range is taken as
#: wrong (a projector, a remote desktop or a virtual machine reporting no or a made-up
#: screen size): :func:`tap_px` then goes by the logical density (96 on Windows).
PLAUSIBLE_DPI = (50.0, 400.0)

#: Gloves (issue 13): table rows, spin-box arrows and drop-down buttons at least this high /
#: wide; scroll bars at least :data:`SCROLL_BAR_PX` thick. :func:`apply` sets it (and the
#: sizes below, kept in the same proportion) from the screen: :func:`use_tap_px`.
TOUCH_PX = TOUCH_PX_LEAST
#: Content height of a button; with the 4 px padding and 2 px border a button is
#: ``TOUCH_PX + 8`` px high (48 px at 40: about 10 mm on a 13" 1366x768 screen).
BUTTON_MIN_HEIGHT_PX = TOUCH_PX - 4
#: Outer height of a big workflow button (``workflows.base.big_button``).
BIG_BUTTON_HEIGHT_PX = TOUCH_PX + 8
#: Check box border: black, 3 px (Fusion's own is a light grey that vanishes in the sun);
#: the focus colour of buttons when focused, grey when disabled.
CHECK_BORDER = "#000000"
CHECK_BORDER_FOCUS = "#0040c0"
CHECK_BORDER_DISABLED = "#7a7a7a"
CHECK_BORDER_PX = 3
SCROLL_BAR_PX = 20
#: The spin-box arrow images (fieldapp/data/spin_up.svg, spin_down.svg), for the style sheet.
_DATA = (Path(__file__).resolve().parent.parent / "data").as_posix()


def tap_px(screen: Any = None) -> int:
    """The least tap target on ``screen`` in logical px: :data:`TAP_MM` at its real density,
    never less than :data:`TOUCH_PX_LEAST`.

    Parameters
    ----------
    screen
        A ``QScreen`` (or anything with ``physicalDotsPerInch()`` and
        ``logicalDotsPerInch()``); None: the primary screen, or none at all (no
        QGuiApplication): :data:`TOUCH_PX_LEAST`.

    Qt 6 gives the physical density in device-independent dots (the display scaling already
    divided out), so 9 mm is ``9 / 25.4 * physicalDotsPerInch()`` logical px. A density outside
    :data:`PLAUSIBLE_DPI` (no screen size reported) falls back to the logical one.

    >>> class Tablet8in:                 # 1280 x 800 on an 8" screen at 100 %: 189 dpi
    ...     def physicalDotsPerInch(self): return 188.7
    ...     def logicalDotsPerInch(self): return 96.0
    >>> tap_px(Tablet8in())
    67
    >>> class NoSize(Tablet8in):
    ...     def physicalDotsPerInch(self): return float("inf")
    >>> tap_px(NoSize())
    40
    """
    if screen is None:
        from PySide6.QtGui import QGuiApplication

        if QGuiApplication.instance() is None:
            return TOUCH_PX_LEAST
        screen = QGuiApplication.primaryScreen()
        if screen is None:
            return TOUCH_PX_LEAST
    try:
        dpi = float(screen.physicalDotsPerInch())
    except (TypeError, ValueError, ZeroDivisionError):
        dpi = float("nan")
    low, high = PLAUSIBLE_DPI
    if not low <= dpi <= high:          # also NaN and infinity
        try:
            dpi = float(screen.logicalDotsPerInch())
        except (TypeError, ValueError):
            dpi = 96.0
        if not low <= dpi <= high:
            dpi = 96.0
    return max(TOUCH_PX_LEAST, math.ceil(TAP_MM / 25.4 * dpi - 1e-9))


def use_tap_px(px: int) -> None:
    """Size the theme's tap targets for ``px`` (logical px, at least
    :data:`TOUCH_PX_LEAST`): :data:`TOUCH_PX`, :data:`BUTTON_MIN_HEIGHT_PX`,
    :data:`BIG_BUTTON_HEIGHT_PX` and :data:`STYLE_SHEET` (widgets made afterwards use them;
    :func:`apply` calls it before the window is built)."""
    global TOUCH_PX, BUTTON_MIN_HEIGHT_PX, BIG_BUTTON_HEIGHT_PX, STYLE_SHEET
    px = max(int(px), TOUCH_PX_LEAST)
    TOUCH_PX = px
    BUTTON_MIN_HEIGHT_PX = px - 4
    BIG_BUTTON_HEIGHT_PX = px + 8
    STYLE_SHEET = _style_sheet(px)


def _style_sheet(touch_px: int) -> str:
    """The style sheet with tap targets ``touch_px`` logical px (see :func:`use_tap_px`)."""
    TOUCH_PX = touch_px                                  # noqa: N806 - the sheet's names
    BUTTON_MIN_HEIGHT_PX = touch_px - 4                  # noqa: N806
    return f"""
QWidget {{ font-size: {BASE_POINT_SIZE}pt; color: #000000; }}
QMainWindow, QDialog {{ background: #ffffff; }}
QPushButton, QToolButton {{
    min-height: {BUTTON_MIN_HEIGHT_PX}px; padding: 4px 10px; border: 2px solid #000000;
    border-radius: 6px; background: #f2f2f2; font-weight: bold;
}}
QPushButton:hover {{ background: #dde8ff; }}
QPushButton:pressed {{ background: #b9cdf5; }}
QPushButton:focus {{ border: 3px solid #0040c0; }}
QPushButton[record="true"] {{ background: #ffd84d; }}
QPushButton:disabled {{ color: #7a7a7a; border-color: #9a9a9a; background: #e9e9e9; }}
QLineEdit, QSpinBox, QDoubleSpinBox, QComboBox {{
    min-height: {BUTTON_MIN_HEIGHT_PX}px; border: 2px solid #333333; border-radius: 4px;
    padding: 2px 6px;
    background: #ffffff;
}}
QSpinBox, QDoubleSpinBox {{ min-height: {TOUCH_PX}px; padding-right: {2 * TOUCH_PX + 4}px; }}
QSpinBox::up-button, QDoubleSpinBox::up-button {{
    subcontrol-origin: border; subcontrol-position: center right;
    width: {TOUCH_PX}px; height: {TOUCH_PX}px; border-left: 2px solid #333333;
}}
QSpinBox::down-button, QDoubleSpinBox::down-button {{
    subcontrol-origin: border; subcontrol-position: center right; right: {TOUCH_PX + 2}px;
    width: {TOUCH_PX}px; height: {TOUCH_PX}px; border-left: 2px solid #333333;
}}
QSpinBox::up-arrow, QDoubleSpinBox::up-arrow {{ image: url({_DATA}/spin_up.svg);
    width: 20px; height: 20px; }}
QSpinBox::down-arrow, QDoubleSpinBox::down-arrow {{ image: url({_DATA}/spin_down.svg);
    width: 20px; height: 20px; }}
QSpinBox::up-arrow:disabled, QDoubleSpinBox::up-arrow:disabled,
QSpinBox::down-arrow:disabled, QDoubleSpinBox::down-arrow:disabled {{ image: none; }}
QSpinBox::up-button:pressed, QDoubleSpinBox::up-button:pressed,
QSpinBox::down-button:pressed, QDoubleSpinBox::down-button:pressed {{ background: #b9cdf5; }}
QComboBox::drop-down {{ width: {TOUCH_PX}px; border-left: 2px solid #333333; }}
QComboBox::down-arrow {{ image: url({_DATA}/spin_down.svg); width: 20px; height: 20px; }}
QCheckBox {{ min-height: {TOUCH_PX}px; spacing: 10px; }}
QCheckBox::indicator {{ width: {TOUCH_PX - 4}px; height: {TOUCH_PX - 4}px; }}
QRadioButton {{ min-height: {TOUCH_PX}px; spacing: 10px; }}
QRadioButton::indicator {{ width: {TOUCH_PX - 4}px; height: {TOUCH_PX - 4}px; }}
QMenu {{ padding: 4px 0; }}
QMenu::item {{ padding: 10px 28px 10px 14px; min-height: {TOUCH_PX - 20}px; }}
QMenu::separator {{ height: 2px; background: #999999; margin: 4px 6px; }}
QComboBox QAbstractItemView::item {{ min-height: {TOUCH_PX}px; }}
QListView#completerPopup::item {{ min-height: {TOUCH_PX}px; }}
QTabBar::tab {{ min-height: 34px; min-width: 60px; padding: 3px 6px; font-weight: bold;
    font-size: {BASE_POINT_SIZE - 1}pt;
    border: 2px solid #333; border-bottom: none; background: #e6e6e6; }}
QTabBar::tab:selected {{ background: #ffffff; color: #000000; }}
QHeaderView::section {{ background: #e6e6e6; font-weight: bold; padding: 4px;
    border: 1px solid #999; }}
QTableView, QTreeView, QListView {{ gridline-color: #999999; alternate-background-color: #f4f4f4; }}
QProgressBar {{ min-height: 28px; border: 2px solid #000; border-radius: 4px; text-align: center;
    font-weight: bold; }}
QProgressBar::chunk {{ background: #0a6b1f; }}
QLabel[role="state"] {{ font-size: {BASE_POINT_SIZE + 3}pt; font-weight: bold; }}
QLabel[role="reason"] {{ color: #a10000; font-weight: bold; }}
QLabel#keyLegend {{ font-size: {BASE_POINT_SIZE - 2}pt; padding: 1px 4px; }}
QLabel#keyLegend[role="typing"] {{ background: #0040c0; color: #ffffff; font-weight: bold; }}
QLineEdit[typing="true"] {{ border: 3px solid #0040c0; background: #fffbe0; }}
QStatusBar QLabel {{ padding: 0 6px; }}
QScrollBar:vertical {{ width: {SCROLL_BAR_PX}px; }}
QScrollBar:horizontal {{ height: {SCROLL_BAR_PX}px; }}
QToolTip {{ font-size: {BASE_POINT_SIZE - 1}pt; background: #ffffe0; color: #000; }}
"""


STYLE_SHEET = _style_sheet(TOUCH_PX)

#: Added for direct sun (``Ctrl+Shift+H``): pure black on white, heavier borders (the text
#: keeps its weight: bold everywhere widened the window past 1366 px),
#: black selection with yellow text, no light greys (a disabled button: dark text, dashed border).
HIGH_CONTRAST_SHEET = """
QWidget { color: #000000; }
QMainWindow, QDialog, QWidget#panelBody, QScrollArea { background: #ffffff; }
QPushButton, QToolButton { border: 3px solid #000000; background: #ffffff; }
QPushButton[record="true"] { background: #ffe000; }
QPushButton:focus { border: 4px solid #000000; background: #ffff66; }
QPushButton:disabled { color: #404040; border: 3px dashed #000000; background: #ffffff; }
QLineEdit, QSpinBox, QDoubleSpinBox, QComboBox { border: 3px solid #000000; }
QLineEdit[typing="true"] { border: 4px solid #000000; background: #ffff00; }
QTabBar::tab { border: 2px solid #000000; background: #ffffff; color: #000000; }
QTabBar::tab:selected { background: #000000; color: #ffff00; }
QHeaderView::section { background: #000000; color: #ffffff; border: 1px solid #ffffff; }
QTableView { gridline-color: #000000; selection-background-color: #000000;
    selection-color: #ffff00; }
QLabel[role="reason"] { color: #b00000; }
QLabel#keyLegend[role="typing"] { background: #000000; color: #ffff00; }
QStatusBar, QFrame#statusStrip { background: #ffffff; border-top: 3px solid #000000; }
"""


def style_sheet(high_contrast: bool = False) -> str:
    """The app's style sheet; ``high_contrast`` adds :data:`HIGH_CONTRAST_SHEET`."""
    return STYLE_SHEET + (HIGH_CONTRAST_SHEET if high_contrast else "")


class FieldStyle(QProxyStyle):
    """Fusion with a clear dark border on check boxes and radio buttons (a ring).

    The border is drawn here rather than in the style sheet: a ``border`` on
    ``QCheckBox::indicator`` makes Qt's style-sheet engine draw the whole indicator itself, and
    the check mark is then lost unless an image file is supplied. The style sheet only sizes the
    indicator (28 px), so Fusion draws its box and check mark and this adds the border on top.

    No ``pixelMetric`` here: Qt asks a style for a metric thousands of times while a window is
    built (about 7,000 for the main window), and each call into Python made the start-up
    50-100 ms slower (2-core machine). The gloves' sizes are set instead by the style sheet
    (scroll bars :data:`SCROLL_BAR_PX` thick) and by :func:`touch_rows` (table rows
    :data:`TOUCH_PX` high).
    """

    def drawPrimitive(self, element: Any, option: Any, painter: Any,  # noqa: N802 - Qt name
                      widget: Any = None) -> None:
        super().drawPrimitive(element, option, painter, widget)
        radio = element == QStyle.PrimitiveElement.PE_IndicatorRadioButton
        if element != QStyle.PrimitiveElement.PE_IndicatorCheckBox and not radio:
            return
        state = option.state
        colour = (CHECK_BORDER_DISABLED if not state & QStyle.StateFlag.State_Enabled else
                  CHECK_BORDER_FOCUS if state & QStyle.StateFlag.State_HasFocus else CHECK_BORDER)
        half = CHECK_BORDER_PX / 2.0
        painter.save()
        pen = QPen(QColor(colour), CHECK_BORDER_PX)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        rect = QRectF(option.rect).adjusted(half, half, -half, -half)
        if radio:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.drawEllipse(rect)
        else:
            painter.drawRect(rect)
        painter.restore()


_STYLE: list[FieldStyle] = []  # a Python reference to the style the app uses


def apply(app: QApplication, high_contrast: bool = False, screen: Any = None) -> None:
    """Apply the Fusion style (with dark check box borders, :class:`FieldStyle`), a light
    palette and the style sheet to ``app`` (:func:`style_sheet`: ``high_contrast`` for direct
    sun), its tap targets sized for ``screen`` (default: the primary screen; :func:`tap_px`)."""
    use_tap_px(tap_px(screen))
    style = FieldStyle("Fusion")
    _STYLE[:] = [style]  # the app owns it; a replaced one is deleted by Qt
    app.setStyle(style)
    pal = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, "#ffffff"), (QPalette.ColorRole.WindowText, "#000000"),
        (QPalette.ColorRole.Base, "#ffffff"), (QPalette.ColorRole.AlternateBase, "#f4f4f4"),
        (QPalette.ColorRole.Text, "#000000"), (QPalette.ColorRole.Button, "#f2f2f2"),
        (QPalette.ColorRole.ButtonText, "#000000"), (QPalette.ColorRole.Highlight, "#0040c0"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.ToolTipBase, "#ffffe0"),
        (QPalette.ColorRole.ToolTipText, "#000000"),
    ):
        pal.setColor(role, QColor(colour))
    app.setPalette(pal)
    font = QFont(app.font())
    font.setPointSize(BASE_POINT_SIZE)
    app.setFont(font)
    app.setStyleSheet(style_sheet(high_contrast))
    app.setProperty("fieldapp_high_contrast", bool(high_contrast))


def set_high_contrast(app: QApplication, on: bool) -> None:
    """Switch the high-contrast additions on or off (the style and palette stay)."""
    app.setStyleSheet(style_sheet(on))
    app.setProperty("fieldapp_high_contrast", bool(on))


def is_high_contrast(app: QApplication) -> bool:
    return bool(app.property("fieldapp_high_contrast"))


def touch_rows(table: Any) -> None:
    """Rows of ``table`` (a ``QTableView``) at least :data:`TOUCH_PX` high: a row a gloved
    finger can pick."""
    header = table.verticalHeader()
    header.setMinimumSectionSize(TOUCH_PX)
    header.setDefaultSectionSize(max(TOUCH_PX, header.defaultSectionSize()))


def badge_css(colours: tuple[str, str]) -> str:
    """Style sheet for a coloured state badge."""
    bg, fg = colours
    return (f"background: {bg}; color: {fg}; font-weight: bold; border-radius: 4px;"
            " padding: 2px 8px;")


def menu_button(name: str, text: str, tip: str, menu: Any) -> Any:
    """A toolbar button (object ``name``, e.g. ``"visitButton"``) that opens ``menu`` on a
    press (a tap: no press-and-hold wait), labelled ``text`` (``"Visit ▾"``), ``tip`` its
    tooltip."""
    from PySide6.QtWidgets import QToolButton

    button = QToolButton()
    button.setObjectName(name)
    button.setText(text)
    button.setToolTip(tip)
    button.setMenu(menu)
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    return button

