"""How each quantity is printed: one rounding rule per quantity for the window, the report
and the exports, and one phrase for a value nobody entered.

A slope is entered to hundredths of a percent (the transect's slope box has two decimals), and
the NR 341.035 thresholds are whole percents: printed to 0.1 %, a 17.99 % segment read "18.0"
next to an 18 % threshold it does not reach, while the verdict's inputs said 17.99. Printed
with :data:`SLOPE_PCT_DECIMALS` everywhere, the figure, the table and the inputs agree.

>>> slope_pct_text(17.99)
'17.99'
>>> slope_pct_text(None)
'not set'
>>> declination_text(0.0, None)
'not set'
>>> declination_text(-1.18, "WMM-2025")
'-1.18°'
"""

from __future__ import annotations

__all__ = ["NOT_SET", "SLOPE_PCT_DECIMALS", "DECLINATION_DECIMALS", "slope_pct_text", "declination_text",
           "declination_set"]

#: What is printed where nothing was entered (a crew, a declination).
NOT_SET = "not set"
#: Decimals of a slope in percent (the entry box's resolution).
SLOPE_PCT_DECIMALS = 2
#: Decimals of a magnetic declination in degrees (the entry box's resolution).
DECLINATION_DECIMALS = 2


def slope_pct_text(value: float | None) -> str:
    """A slope (percent, the number only): :data:`SLOPE_PCT_DECIMALS` places, or
    :data:`NOT_SET` for None."""
    if value is None:
        return NOT_SET
    return f"{value:.{SLOPE_PCT_DECIMALS}f}"


def declination_set(value_deg: float, source: str | None) -> bool:
    """Whether a site's declination was ever set: entered by the crew or from the World
    Magnetic Model (``source``), or a non-zero figure in a visit from before sources were
    recorded. A 0.0 with no source is the default nobody set."""
    return source is not None or value_deg != 0.0


def declination_text(value_deg: float, source: str | None) -> str:
    """A declination (degrees, east positive), signed, :data:`DECLINATION_DECIMALS` places; or
    :data:`NOT_SET` when it was never set (:func:`declination_set`)."""
    if not declination_set(value_deg, source):
        return NOT_SET
    return f"{value_deg:+.{DECLINATION_DECIMALS}f}°"
