"""Words for the UI: counts ("1 stem", "2 stems", never "1 stems" or "stem(s)") and refused
values in field words ("DBH must be between 0.1 and 500 in", not "dbh_in: 0.0 outside
[0.1, 500.0]")."""

from __future__ import annotations

from typing import Any


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``count`` and the noun in the right number.

    Parameters
    ----------
    count : int
        How many (shown as given, with thousands separators).
    singular : str
        The noun for one, e.g. ``"stem"``.
    plural_form : str, optional
        The noun for other counts; ``singular + "s"`` when omitted (``"fixes"`` must be given).

    Examples
    --------
    >>> plural(1, "stem"), plural(2, "stem"), plural(0, "fix", "fixes")
    ('1 stem', '2 stems', '0 fixes')
    """
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count:,} {word}"


#: Model field -> (what the field is called on screen, its unit or "").
FIELD_WORDS: dict[str, tuple[str, str]] = {
    "dbh_in": ("DBH", "in"), "crown_radius_ft": ("Crown radius", "ft"),
    "dbh_height_ft": ("DBH height", "ft"), "species_code": ("Species code", ""),
    "species_name": ("Species", ""), "leaf_habit": ("Leaf habit", ""),
    "horizontal_ft": ("Station distance", "ft"), "segment_ft": ("Station distance", "ft"),
    "horizontal_distance_ft": ("Horizontal distance", "ft"),
    "slope_distance_ft": ("Slope distance", "ft"), "distance_ft": ("Distance", "ft"),
    "slope": ("Slope", ""), "slope_pct": ("Slope", "%"), "slope_deg": ("Slope", "°"),
    "inclination_deg": ("Slope", "°"), "azimuth_deg": ("Azimuth", "°"),
    "azimuth_true_deg": ("Azimuth", "° true"), "spacing_ft": ("Vertex spacing", "ft"),
    "label": ("Label", ""), "wetland_type": ("Wetland type", ""),
    "retained_area_ac": ("Retained woodland area", "ac"),
    "tributary_area_ac": ("Tributary area", "ac"), "channel_width_ft": ("Channel width", "ft"),
    "antenna_height_m": ("Antenna height", "m"), "min_epochs": ("Epochs", ""),
    "vertices": ("Boundary", ""), "geometry": ("Boundary", ""), "notes": ("Notes", ""),
}


def stand_name(label: str | None) -> str:
    """A woodland stand named once: its label when that already says "Stand" (a crew's
    "Stand 1" was printed "Stand Stand 1"), else "Stand" and the label.

    >>> stand_name("Stand 1"), stand_name("A"), stand_name("north stand"), stand_name(None)
    ('Stand 1', 'Stand A', 'north stand', 'Stand')
    """
    text = (label or "").strip()
    if not text:
        return "Stand"
    return text if "stand" in text.lower().split() else f"Stand {text}"


def _num(v: float, unit: str) -> str:
    text = f"{v:,.6g}"
    return f"{text} {unit}" if unit and unit not in ("%", "°") else f"{text}{unit}"


def refusal_words(exc: BaseException) -> str:
    """Why a value was refused, in field words.

    An :class:`fieldapp.survey.errors.InvalidValue` names the field and, when the value was
    outside a range, carries its ``limits``; anything else is said as it is.

    Examples
    --------
    >>> from fieldapp.survey.values import in_range
    >>> try:
    ...     in_range("dbh_in", 0.0, 0.1, 500.0)
    ... except ValueError as exc:
    ...     refusal_words(exc)
    'DBH must be between 0.1 and 500 in'
    >>> try:
    ...     in_range("crown_radius_ft", 0.0, 0.0, 200.0, low_open=True)
    ... except ValueError as exc:
    ...     refusal_words(exc)
    'Crown radius must be more than 0 ft and at most 200 ft'
    """
    name = getattr(exc, "name", None)
    if not isinstance(name, str) or not hasattr(exc, "message"):
        return str(exc).strip() or type(exc).__name__
    words, unit = FIELD_WORDS.get(name, (name.replace("_", " ").capitalize(), ""))
    limits = getattr(exc, "limits", None)
    if limits is None:
        return f"{words}: {exc.message}"
    low, high, low_open = limits
    if high == float("inf"):
        return f"{words} must be {'more than' if low_open else 'at least'} {_num(low, unit)}"
    if low_open:
        return f"{words} must be more than {_num(low, unit)} and at most {_num(high, unit)}"
    lo = f"{low:,.6g}"
    return f"{words} must be between {lo} and {_num(high, unit)}"


def ohwm_order_words(points: list[Any], near: float) -> str | None:
    """Words when an OHWM line runs back over itself (points taken out of order along the bank:
    :func:`fieldapp.survey.shoreline.doubles_back` with ``near``, CRS units), naming the legs by
    point number (``seq + 1``); None when no line does. ``points``: OHWM points (``line_uuid``,
    ``seq``, ``x``, ``y``) by line, in ``seq`` order."""
    from fieldapp.survey.shoreline import doubles_back

    lines: dict[str, list[Any]] = {}
    for p in points:
        lines.setdefault(p.line_uuid, []).append(p)
    for pts in lines.values():
        legs = doubles_back([(p.x, p.y) for p in pts], near)
        if legs is not None:
            (a, b), (c, d) = ((pts[k].seq + 1, pts[k + 1].seq + 1) for k in legs)
            return (f"Warning: the OHWM line runs back over itself: from point {c} to {d} it"
                    f" meets the line from point {a} to {b}. The line joins the points in the"
                    " order taken: take them in order along the bank (Records, Ctrl+T, to"
                    " correct or delete one)")
    return None
