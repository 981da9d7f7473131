"""A high-contrast light theme for reading a laptop screen in the sun, with large targets.

Dark text on a white ground reads best in daylight; colour never carries meaning alone (each
state also has a word). Sizes are in points/pixels chosen for gloved fingers on a touch screen.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle

#: Colours of fix quality and device state: (background, text), chosen for >= 7:1 contrast.
GOOD = ("#0a6b1f", "#ffffff")      # RTK fixed, connected
FAIR = ("#0b4f8a", "#ffffff")      # RTK float / DGPS
POOR = ("#8a4b00", "#ffffff")      # autonomous, estimated
BAD = ("#a10000", "#ffffff")       # no fix, disconnected
STALE = ("#5c5c5c", "#ffffff")     # stale, unknown
NEUTRAL = ("#e6e6e6", "#000000")

BASE_POINT_SIZE = 13
#: Content height of a button; with the 4 px padding and 2 px border a button is 48 px high
#: (about 10 mm on a 13" 1366x768 screen: a gloved fingertip).
BUTTON_MIN_HEIGHT_PX = 36
#: Outer height of a big workflow button (``workflows.base.big_button``).
BIG_BUTTON_HEIGHT_PX = 48
#: Check box border: black, 3 px (Fusion's own is a light grey that vanishes in the sun);
#: the focus colour of buttons when focused, grey when disabled.
CHECK_BORDER = "#000000"
CHECK_BORDER_FOCUS = "#0040c0"
CHECK_BORDER_DISABLED = "#7a7a7a"
CHECK_BORDER_PX = 3

STYLE_SHEET = f"""
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
    min-height: 36px; border: 2px solid #333333; border-radius: 4px; padding: 2px 6px;
    background: #ffffff;
}}
QCheckBox {{ min-height: 40px; spacing: 10px; }}
QCheckBox::indicator {{ width: 28px; height: 28px; }}
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
QToolTip {{ font-size: {BASE_POINT_SIZE - 1}pt; background: #ffffe0; color: #000; }}
"""


class FieldStyle(QProxyStyle):
    """Fusion with a clear dark border on check boxes.

    The border is drawn here rather than in the style sheet: a ``border`` on
    ``QCheckBox::indicator`` makes Qt's style-sheet engine draw the whole indicator itself, and
    the check mark is then lost unless an image file is supplied. The style sheet only sizes the
    indicator (28 px), so Fusion draws its box and check mark and this adds the border on top.
    """

    def drawPrimitive(self, element, option, painter, widget=None):  # noqa: N802 - Qt name
        super().drawPrimitive(element, option, painter, widget)
        if element != QStyle.PE_IndicatorCheckBox:
            return
        state = option.state
        colour = (CHECK_BORDER_DISABLED if not state & QStyle.State_Enabled else
                  CHECK_BORDER_FOCUS if state & QStyle.State_HasFocus else CHECK_BORDER)
        half = CHECK_BORDER_PX / 2.0
        painter.save()
        pen = QPen(QColor(colour), CHECK_BORDER_PX)
        pen.setJoinStyle(Qt.MiterJoin)
        painter.setPen(pen)
        painter.setBrush(Qt.NoBrush)
        painter.drawRect(QRectF(option.rect).adjusted(half, half, -half, -half))
        painter.restore()


_STYLE: list[FieldStyle] = []  # a Python reference to the style the app uses


def apply(app: QApplication) -> None:
    """Apply the Fusion style (with dark check box borders, :class:`FieldStyle`), a light
    palette and the style sheet to ``app``."""
    style = FieldStyle("Fusion")
    _STYLE[:] = [style]  # the app owns it; a replaced one is deleted by Qt
    app.setStyle(style)
    pal = QPalette()
    for role, colour in (
        (QPalette.Window, "#ffffff"), (QPalette.WindowText, "#000000"),
        (QPalette.Base, "#ffffff"), (QPalette.AlternateBase, "#f4f4f4"),
        (QPalette.Text, "#000000"), (QPalette.Button, "#f2f2f2"),
        (QPalette.ButtonText, "#000000"), (QPalette.Highlight, "#0040c0"),
        (QPalette.HighlightedText, "#ffffff"), (QPalette.ToolTipBase, "#ffffe0"),
        (QPalette.ToolTipText, "#000000"),
    ):
        pal.setColor(role, QColor(colour))
    app.setPalette(pal)
    font = QFont(app.font())
    font.setPointSize(BASE_POINT_SIZE)
    app.setFont(font)
    app.setStyleSheet(STYLE_SHEET)


def badge_css(colours: tuple[str, str]) -> str:
    """Style sheet for a coloured state badge."""
    bg, fg = colours
    return (f"background: {bg}; color: {fg}; font-weight: bold; border-radius: 4px;"
            " padding: 2px 8px;")
