"""The instruments of a visit's ``site.device_ids`` in the field's words (``gnss`` -> "GNSS
receiver"), for the site form (:mod:`fieldapp.app.devicenames`) and the report's site block.
Here, beside the store's layer words, so the report and the app share them."""

from __future__ import annotations

#: The instruments: their ``device_ids`` role and their words.
ROLE_WORDS = {"gnss": "GNSS receiver", "rangefinder": "Rangefinder", "caliper": "Caliper"}


def role_words(role: str) -> str:
    """A ``device_ids`` role in words (``gnss`` -> "GNSS receiver"); another as it is.

    >>> role_words("gnss"), role_words("level")
    ('GNSS receiver', 'level')
    """
    return ROLE_WORDS.get(role, role)


__all__ = ["ROLE_WORDS", "role_words"]
