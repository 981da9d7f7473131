"""The instruments' names and serial numbers, typed in the site's form (issue 35 item 14: the
report printed "Devices –", then only what the readings showed, "their names and serial numbers
were not recorded", with nowhere to record them).

Kept in the site's ``device_ids`` as (role, text) pairs, one per instrument (roles ``gnss``,
``rangefinder``, ``caliper``), which the report's site block prints in words
(:func:`fieldapp.report.trees.devices_words`) and the sync carries.
"""

from __future__ import annotations

from typing import Any

from fieldapp.store.devicewords import ROLE_WORDS

ROLES = tuple(ROLE_WORDS)
#: The form field name of a role's text.
PREFIX = "device:"


def device_fields(site: Any, spec: Any) -> list[Any]:
    """One text field per instrument (``spec`` is :class:`fieldapp.app.editing.FieldSpec`,
    passed in: no import cycle), its current text from ``site.device_ids``."""
    ids = dict(site.device_ids or ())
    return [spec(f"{PREFIX}{role}", f"{ROLE_WORDS[role]}: make, model, serial no.", "text", ids.get(role, ""),
                 tip=f"Printed in the report's site block, e.g. {example}")
            for role, example in zip(ROLES, ("Trimble R10, serial 5331A01234",
                                             "Laser Technology TruPulse 360R, serial TP123456",
                                             "Haglöf Digitech Professional, serial 12345"), strict=True)]


def device_changes(site: Any, changed: dict[str, Any]) -> dict[str, Any]:
    """The :meth:`update_site` keyword for the changed instrument fields (removed from
    ``changed``): ``{"device_ids": pairs}`` with an emptied field's instrument left out, the
    others (and any other role already kept) as they were; ``{}`` when none changed.

    >>> from types import SimpleNamespace
    >>> site = SimpleNamespace(device_ids=(("caliper", "Haglöf 1"),))
    >>> device_changes(site, {"device:gnss": " Trimble R10 #5 ", "device:caliper": ""})
    {'device_ids': (('gnss', 'Trimble R10 #5'),)}
    """
    keys = [k for k in changed if k.startswith(PREFIX)]
    if not keys:
        return {}
    ids = dict(site.device_ids or ())
    for key in keys:
        text = " ".join(str(changed.pop(key) or "").split())
        role = key.removeprefix(PREFIX)
        if text:
            ids[role] = text
        else:
            ids.pop(role, None)
    order = [r for r in ROLES if r in ids] + [r for r in ids if r not in ROLES]
    return {"device_ids": tuple((r, ids[r]) for r in order)}


__all__ = ["PREFIX", "ROLES", "device_changes", "device_fields"]
