"""The two banks of a channel: an offset shot across the channel belongs to the far bank's OHWM
line, never to the near bank's (joined to it, the line would jog across the water and the
protective-area buffer bulge).

Averaged points (the crew stands on the mark) go to the near bank's line: the last OHWM line not
labelled as a far bank. A far-bank shot goes to the far bank's line, started on the first one
(labelled ``"<near label> far bank"``, same water feature).
"""

from __future__ import annotations

from typing import Any

from fieldapp.survey.features import Layer

#: The end of a far bank's OHWM line label.
FAR_BANK = "far bank"
#: The label of the near bank's line the model starts by itself (:mod:`fieldapp.survey.shoreline`).
FIRST_LINE_LABEL = "OHWM 1"


def is_far_bank(line: Any) -> bool:
    """Whether an OHWM line is a far bank's (its label ends in "far bank")."""
    return str(getattr(line, "label", "") or "").strip().lower().endswith(FAR_BANK)


def far_line_uuids(model: Any) -> set[str]:
    """The uuids of ``model``'s far-bank OHWM lines."""
    return {str(ln.uuid) for ln in model.features(Layer.OHWM_LINE) if is_far_bank(ln)}


def near_line_uuid(model: Any) -> str | None:
    """The near bank's OHWM line of ``model`` (a :class:`fieldapp.survey.visit.Visit`): the last
    line not of a far bank; None before the first point (the model starts ``OHWM 1``)."""
    near = [ln for ln in model.features(Layer.OHWM_LINE) if not is_far_bank(ln)]
    return near[-1].uuid if near else None


def far_line_uuid(model: Any) -> str:
    """The far bank's OHWM line facing the near bank's, started when there is none yet."""
    near_uuid = near_line_uuid(model)
    near = model.get(Layer.OHWM_LINE, near_uuid) if near_uuid else None
    label = f"{getattr(near, 'label', '') or FIRST_LINE_LABEL} {FAR_BANK}"
    for ln in reversed(model.features(Layer.OHWM_LINE)):
        if is_far_bank(ln) and ln.label == label:
            return str(ln.uuid)
    line = model.add_ohwm_line(label, water_feature=getattr(near, "water_feature", None))
    return str(line.uuid)


__all__ = ["FAR_BANK", "far_line_uuid", "far_line_uuids", "is_far_bank", "near_line_uuid"]
