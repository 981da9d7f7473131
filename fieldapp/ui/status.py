"""The status strip: each device's link, the GNSS fix in words and colour, and why recording is
blocked when it is.

The strip only renders; whether a fix is usable is decided by :func:`fix_problem`, from the
fix's monotonic receive time (never the wall clock).
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QLabel, QLayout, QSizePolicy, QVBoxLayout, QWidget

from fieldapp.ui import theme

DEVICE_LABELS = {"gnss": "GNSS", "rangefinder": "Rangefinder", "caliper": "Caliper"}


def quality_name(fix: Any) -> str:
    """The enum member name of the fix quality (``RTK_FIXED`` ...) or ``""``."""
    q = getattr(fix, "quality", None)
    return getattr(q, "name", str(q or "")).upper()


def quality_words(fix: Any) -> str:
    """The fix quality in words (the enum's ``label`` when it has one)."""
    q = getattr(fix, "quality", None)
    if q is None:
        return "no fix"
    label = getattr(q, "label", None)
    return str(label) if label else str(getattr(q, "name", q)).replace("_", " ").lower()


def quality_colours(fix: Any) -> tuple[str, str]:
    name = quality_name(fix)
    if "RTK_FIX" in name or name == "FIXED":
        return theme.GOOD
    if "FLOAT" in name or "DGPS" in name or "PPS" in name or "DIFF" in name:
        return theme.FAIR
    if name in ("NO_FIX", "INVALID", "0") or not name:
        return theme.BAD
    return theme.POOR


def fix_age_s(fix: Any, now_s: float | None = None) -> float:
    """Seconds since the fix was received (monotonic)."""
    now_s = time.monotonic() if now_s is None else now_s
    age = getattr(fix, "age_s", None)
    if callable(age):
        return float(age(now_s))
    return now_s - float(getattr(fix, "t_monotonic_s", now_s))


def fix_problem(fix: Any, gnss_state: str, max_age_s: float,
                now_s: float | None = None) -> str | None:
    """Why ``fix`` cannot be recorded now, in words, or None when it is usable.

    Parameters
    ----------
    fix : devices.nmea.Fix or None
        The latest fix.
    gnss_state : str
        The receiver link state word (``connected``, ``disconnected`` ...).
    max_age_s : float
        Stale limit, seconds (monotonic).
    """
    if gnss_state == "none":
        return "No receiver connected (Devices…, Ctrl+D)"
    if gnss_state in ("disconnected", "stopped", "closed", "error"):
        return f"Receiver {gnss_state}"
    if gnss_state == "connecting":
        return "Receiver connecting…"
    if fix is None:
        return "No fix from the receiver yet"
    if getattr(fix, "lat_deg", None) is None or getattr(fix, "lon_deg", None) is None:
        return "Receiver has no position (no fix)"
    if quality_name(fix) in ("NO_FIX", "INVALID", "0"):
        return "Receiver reports no fix"
    age = fix_age_s(fix, now_s)
    if age > max_age_s:
        # whole seconds: the age timer asks four times a second, and a new tenth each time
        # could not be read but relaid and repainted the strip each time (issue 33)
        return f"Fix is stale (over {int(age)} s old, limit {max_age_s:g} s)"
    return None


#: Correction age limits for the colour: up to GOOD_AGE_S green, up to FAIR_AGE_S amber, then red
#: (RTK fixed usually falls to float beyond 10-30 s of age, depending on the receiver).
GOOD_AGE_S = 5.0
FAIR_AGE_S = 30.0


def corrections_words(status: Any, fix: Any, now_s: float | None = None) -> tuple[str, tuple[str, str], str]:
    """(badge text, colours, tooltip) of the corrections from ``status``
    (:class:`devices.ntrip.CorrectionStatus`) and the latest ``fix``.

    The age is the receiver's own (GGA field 13, ``fix.dgps_age_s``) when it sends one, else the
    time since the client last wrote a correction to the port.
    """
    state = getattr(getattr(status, "state", None), "value", "none")
    mount = getattr(status, "mountpoint", "") or "?"
    age = getattr(fix, "dgps_age_s", None) if fix is not None else None
    source = "receiver (GGA)"
    if age is None:
        age = status.age_s(now_s) if hasattr(status, "age_s") else None
        source = "client"
    rate = float(getattr(status, "bytes_per_s", 0.0) or 0.0)
    rate_words = f"{rate / 1000:.1f} kB/s" if rate >= 1000 else f"{rate:.0f} B/s"
    tip = f"NTRIP {state}: {getattr(status, 'message', '')}"
    if state != "streaming":
        words = str(getattr(status, "message", "") or state)
        if len(words) > 90:  # the whole of it is in the tooltip
            words = words[:89] + "…"
        return (f"Corrections {mount}: {words}", theme.BAD if state == "disconnected" else theme.STALE,
                tip)
    if age is None:
        return f"Corrections {mount}: {rate_words}, age –", theme.STALE, tip
    colours = theme.GOOD if age <= GOOD_AGE_S else theme.FAIR if age <= FAIR_AGE_S else theme.BAD
    tip += f"\ncorrection age {age:.1f} s from the {source}"
    return f"Corrections {mount}: {rate_words}, age {age:.1f} s", colours, tip


def state_word(status: Any) -> str:
    """The link state of a DeviceStatus in words (``connected`` ...)."""
    if status is None:
        return "none"
    st = getattr(status, "state", status)
    word = getattr(st, "value", None) or getattr(st, "name", None) or str(st)
    return str(word).lower().replace("_", " ")


def state_colours(word: str) -> tuple[str, str]:
    if word in ("connected", "open", "ok", "streaming"):
        return theme.GOOD
    if word in ("stale", "connecting", "opening", "reconnecting", "searching"):
        return theme.STALE
    if word == "none":
        return theme.NEUTRAL
    return theme.BAD


def _set_text(label: QLabel, text: str) -> None:
    """setText only when the text changes (a fix at 10 Hz mostly repeats the same words)."""
    if label.text() != text:
        label.setText(text)


def _set_style(label: QLabel, css: str) -> None:
    """setStyleSheet only when it changes (each call re-polishes the widget)."""
    if label.property("_css") != css:
        label.setProperty("_css", css)
        label.setStyleSheet(css)


def _badge(text: str = "") -> QLabel:
    lab = QLabel(text)
    _set_style(lab, theme.badge_css(theme.NEUTRAL))
    return lab


class StatusStrip(QFrame):
    """Always-visible strip: device links, fix quality, sats, HDOP, accuracy, age, antenna height.

    Call :meth:`show_device`, :meth:`show_fix` and :meth:`show_problem`; the main window drives
    them from the bridge's signals and a 4 Hz age timer. A click on the GNSS badge emits
    :attr:`gnss_clicked` (the window opens the satellites view).
    """

    gnss_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statusStrip")
        # opaque: a new figure (4 Hz) repaints the strip, not the window under it
        self.setAutoFillBackground(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#statusStrip { background: #f7f7f7; border-top: 2px solid #000; }")
        # badges and figures (one row, or two on a narrow window); why recording is blocked
        # goes on a line of its own under them, so the strip fits a 1280 px wide screen
        rows = QVBoxLayout(self)
        rows.setContentsMargins(4, 3, 4, 3)
        rows.setSpacing(2)
        # the device badges, then the fix's figures: side by side on a wide window, the figures
        # on a second row when the strip is narrower than both (a 1024 px wide tablet screen,
        # :meth:`resizeEvent`)
        self.top = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.top.setContentsMargins(0, 0, 0, 0)
        self.top.setSpacing(6)
        rows.addLayout(self.top)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.top.addLayout(row)
        self._devices_row = row
        self.device_labels: dict[str, QLabel] = {}
        for kind in DEVICE_LABELS:
            lab = _badge(f"{DEVICE_LABELS[kind]}: none")
            lab.setObjectName(f"device_{kind}")
            self.device_labels[kind] = lab
            row.addWidget(lab)
        self.quality_label = _badge("no fix")
        self.quality_label.setObjectName("fixQuality")
        self.sats_label = QLabel("Sats –")
        self.hdop_label = QLabel("HDOP –")
        self.accuracy_label = QLabel("H ± –")
        self.age_label = QLabel("Age –")
        self.antenna_label = QLabel("Ant –")
        self.antenna_label.setObjectName("antennaHeight")
        #: the open visit's antenna height as entered ("Ant 6.50 ft"); None: the fix's, metres
        self.antenna_words: str | None = None
        self.corrections_label = _badge("")
        self.corrections_label.setObjectName("corrections")
        self.corrections_label.hide()
        # one line, always there (empty when recording is allowed): showing why recording is
        # blocked never moves the panels above (a fix going stale and fresh again)
        self.problem_label = QLabel("")
        self.problem_label.setProperty("role", "reason")
        self.problem_label.setObjectName("recordBlocked")
        self.problem_label.setWordWrap(False)
        # never widens the window (a long reason is cut; the tooltip has it whole)
        self.problem_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        row.addStretch(1)          # badges to the left when on a row of their own
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.top.addLayout(row, 1)
        self._figures_row = row
        for w in (self.quality_label, self.sats_label, self.hdop_label, self.accuracy_label,
                  self.age_label, self.antenna_label):
            row.addWidget(w)
        row.addStretch(1)
        # the corrections get a line of their own (shown only with a caster): the first row
        # already fills a 1366 px screen
        corr_row = QHBoxLayout()
        corr_row.setContentsMargins(0, 0, 0, 0)
        corr_row.addWidget(self.corrections_label)
        corr_row.addStretch(1)
        rows.addLayout(corr_row)
        rows.addWidget(self.problem_label)
        self.problem_label.ensurePolished()
        self.problem_label.setFixedHeight(self.problem_label.fontMetrics().lineSpacing() + 4)
        self._states: dict[str, str] = {k: "none" for k in DEVICE_LABELS}
        gnss = self.device_labels.get("gnss")
        if gnss is not None:
            gnss.setCursor(Qt.CursorShape.PointingHandCursor)
            gnss.installEventFilter(self)
        self._accuracy_est: tuple[Any, ...] | None = None
        #: lengths on the strip: (CRS units per metre, unit word, which unit in words); metres
        #: until the open visit's site CRS is known (:meth:`show_length_unit`)
        self.length_unit: tuple[float, str, str] = (1.0, "m", "metres")

    def _layout(self) -> QLayout:
        """The strip's own layout (made with it)."""
        layout = self.layout()
        assert layout is not None
        return layout

    def _one_row_width(self) -> int:
        """Width (px) the badges and the figures need side by side."""
        m = self._layout().contentsMargins()
        return (self._devices_row.minimumSize().width() + self.top.spacing()
                + self._figures_row.minimumSize().width() + m.left() + m.right()
                + 2 * self.frameWidth())

    def two_rows(self) -> bool:
        """True while the fix's figures are on a row of their own under the badges."""
        return self.top.direction() == QBoxLayout.Direction.TopToBottom

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt name
        """As narrow as the wider of the two rows (the figures go under the badges when the
        window is narrower than both side by side); as high as it is now."""
        hint = super().minimumSizeHint()
        m = self._layout().contentsMargins()
        two = (max(self._devices_row.minimumSize().width(),
                   self._figures_row.minimumSize().width())
               + m.left() + m.right() + 2 * self.frameWidth())
        return QSize(two, hint.height())

    def _fit_rows(self, width: int) -> None:
        """The figures under the badges when both do not fit side by side in ``width`` px."""
        direction = (QBoxLayout.Direction.LeftToRight if width >= self._one_row_width()
                     else QBoxLayout.Direction.TopToBottom)
        if direction != self.top.direction():
            self.top.setDirection(direction)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        """The figures go under the badges when both do not fit side by side."""
        self._fit_rows(event.size().width())
        super().resizeEvent(event)

    def event(self, event: Any) -> bool:  # noqa: N802 - Qt name
        """Also when the words change at the same width (a layout request: the devices
        connect, "no fix" becomes "RTK fixed"): the strip was laid out for the short start-up
        words, and on a 1024 px window the longer ones were cut ("RTK fix", "H ±0.01 r")."""
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:
            self._fit_rows(self.width())
        return handled

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt's name
        """A click (press and release) on the GNSS badge: :attr:`gnss_clicked`."""
        if obj is self.device_labels.get("gnss") and event.type() == QEvent.Type.MouseButtonRelease:
            self.gnss_clicked.emit()
            return True
        return super().eventFilter(obj, event)

    def device_state(self, kind: str) -> str:
        return self._states.get(kind, "none")

    def show_device(self, kind: str, status: Any, stats: Any = None) -> None:
        """Show ``kind``'s link state; ``stats`` (reader statistics) goes in the tooltip."""
        word = state_word(status)
        self._states[kind] = word
        lab = self.device_labels.get(kind)
        if lab is None:
            return
        _set_text(lab, f"{DEVICE_LABELS.get(kind, kind)}: {word}")
        _set_style(lab, theme.badge_css(state_colours(word)))
        tip = [f"{DEVICE_LABELS.get(kind, kind)} {word}"]
        port = getattr(status, "port", None)
        if port:
            tip.append(f"port {port}")
        msg = getattr(status, "message", None)
        if msg:
            tip.append(str(msg))
        if kind == "gnss":
            tip.append("Click for the satellites (Ctrl+G)")
        if stats:
            tip.append(format_stats(stats))
        lab.setToolTip("\n".join(tip))

    def set_stats_tooltip(self, kind: str, stats: Any) -> None:
        lab = self.device_labels.get(kind)
        if lab is not None and stats:
            first = lab.toolTip().split("\n\n")[0]
            tip = first + "\n\n" + format_stats(stats)
            if tip != lab.toolTip():
                lab.setToolTip(tip)

    def show_fix(self, fix: Any, now_s: float | None = None, stale: bool = False,
                 last_position: Any = None) -> None:
        """Render the fix; ``stale`` greys it and says how old the last fix with a position
        (``last_position``, else ``fix``) is: a receiver still sending "no fix" sentences
        keeps ``fix`` fresh, not its position. Only what changed is set again."""
        if fix is None:
            _set_text(self.quality_label, "no fix")
            _set_style(self.quality_label, theme.badge_css(theme.BAD))
            return
        words = quality_words(fix)
        aged = last_position if (stale and last_position is not None) else fix
        age = fix_age_s(aged, now_s)
        _set_text(self.quality_label, (f"STALE {int(age)} s – " if stale else "") + words)
        _set_style(self.quality_label,
                   theme.badge_css(theme.STALE if stale else quality_colours(fix)))
        sats = getattr(fix, "sats_used", None)
        _set_text(self.sats_label, f"Sats {sats}" if sats is not None else "Sats –")
        hdop = getattr(fix, "hdop", None)
        _set_text(self.hdop_label, f"HDOP {hdop:.1f}" if hdop is not None else "HDOP –")
        acc = getattr(fix, "horizontal_accuracy_m", None)
        est = bool(getattr(fix, "accuracy_estimated", False))
        held = 0 if est else int(getattr(fix, "gst_held_epochs", 0) or 0)
        if acc is None:
            _set_text(self.accuracy_label, "H ± –")
        else:
            mark = " (est.)" if est else (" (held)" if held else "")
            per_m, unit, _words = self.length_unit
            _set_text(self.accuracy_label, f"H ±{acc * per_m:.2f} {unit}" + mark)
        if (est, held, self.length_unit) != self._accuracy_est:
            self._accuracy_est = (est, held, self.length_unit)
            self.accuracy_label.setToolTip(
                ("Estimated from HDOP (the receiver sends no GST)" if est
                 else f"1-sigma horizontal accuracy from the receiver's last GST, held {held} "
                      "epoch(s): this epoch brought none" if held
                 else "1-sigma horizontal accuracy from the receiver's GST")
                + f", in {self.length_unit[2]}")
        # under a second is fresh, at any receiver rate: "<1 s" stays put; older, whole seconds
        # (a tenth of a second cycling at 4 Hz cannot be read, and each new figure relaid and
        # repainted the strip: four times a second through every outage)
        _set_text(self.age_label, f"Age {int(age)} s" if age >= 1.0 else "Age <1 s")
        ant = getattr(fix, "antenna_height_m", None)
        _set_text(self.antenna_label, f"Ant {self.antenna_words}" if self.antenna_words
                  else f"Ant {ant:.2f} m" if ant is not None else "Ant –")
        grey = "color: #7a7a7a;" if stale else ""
        for w in (self.sats_label, self.hdop_label, self.accuracy_label, self.age_label):
            _set_style(w, grey)

    def show_length_unit(self, frame: Any) -> None:
        """Give lengths (the horizontal accuracy) in the site's unit from the next fix on:
        ``frame`` (a :class:`fieldapp.geo.SiteFrame`) in feet gives its foot (US survey or
        international, as the OHWM table and the report); a metre CRS, or None (no visit, or
        its CRS not yet known), metres. The antenna height keeps the unit it was entered in."""
        if frame is None or abs(frame.unit_m - 1.0) < 1e-12:
            self.length_unit = (1.0, "m", "metres")
        else:
            self.length_unit = (1.0 / frame.foot.metres, "ft", frame.foot.label)

    def show_antenna(self, words: str | None) -> None:
        """Show the open visit's antenna height as entered (``"6.50 ft"``; None: no visit, the
        fixes' own height in metres)."""
        self.antenna_words = words
        if words:
            _set_text(self.antenna_label, f"Ant {words}")
        self.antenna_label.setToolTip("The visit's antenna height above the mark (Devices… changes it)")

    def show_corrections(self, status: Any, fix: Any, now_s: float | None = None) -> None:
        """The corrections badge (hidden while no caster is set, ``status`` None)."""
        if status is None:
            if not self.corrections_label.isHidden():
                self.corrections_label.hide()
            return
        text, colours, tip = corrections_words(status, fix, now_s)
        _set_text(self.corrections_label, text)
        _set_style(self.corrections_label, theme.badge_css(colours))
        if self.corrections_label.toolTip() != tip:
            self.corrections_label.setToolTip(tip)
        if self.corrections_label.isHidden():
            self.corrections_label.show()

    def show_problem(self, problem: str | None) -> None:
        text = f"Recording blocked: {problem}" if problem else ""
        _set_text(self.problem_label, text)
        if self.problem_label.toolTip() != text:
            self.problem_label.setToolTip(text)     # in full, should a narrow window cut it


def format_stats(stats: Any) -> str:
    """Reader statistics (a dict or dataclass of counts) as lines for a tooltip."""
    if hasattr(stats, "__dataclass_fields__"):
        import dataclasses
        stats = dataclasses.asdict(stats)
    if isinstance(stats, dict):
        lines: list[str] = []
        for k, v in stats.items():
            if isinstance(v, dict):
                lines.extend(f"{k} {kk}: {vv}" for kk, vv in v.items())
            else:
                lines.append(f"{k}: {v}")
        return "Reader statistics\n" + "\n".join(lines)
    return str(stats)
