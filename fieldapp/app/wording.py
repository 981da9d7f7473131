"""Counts in words for the UI: "1 stem", "2 stems" (never "1 stems" or "stem(s)")."""

from __future__ import annotations


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
