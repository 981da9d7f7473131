"""Wetland determination data points: the commands that place, edit, pair and delete them.

A data point (:class:`~fieldapp.survey.features.DataPoint`) is one plot of the Corps of
Engineers' routine wetland determination data form. It supports a wetland boundary (a wetland
``area_feature``, named in ``boundary_uuid`` by its walk's uuid when it was walked -- the walk
keeps its uuid when the boundary is re-opened and closed again, the area does not -- else by
the area's uuid) together with the point on the other side (``pair_uuid``): the wetland point
inside, the upland point outside.

The form itself is JSON text in ``form_json`` (the ``wetland-form`` contract's input shape);
the determination the rules reached from it is passed in by the caller (the app layer runs the
rules) and kept as plain 0/1 columns.

:class:`DataPointCommands` is a mixin of :class:`~fieldapp.survey.visit.Visit`; every command
is one undoable step, journalled before memory changes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from . import values as V
from .core import VisitCore, new_of
from .errors import InvalidValue
from .features import (
    Action,
    AreaFeature,
    AreaKind,
    Change,
    DataPoint,
    DataPointRole,
    Feature,
    Layer,
    WetlandRegion,
)
from .gnss import FixLike
from .validation import enum_value, ms, validate

__all__ = ["DataPointCommands", "DETERMINATION_FIELDS", "form_of", "boundary_area"]

#: The determination columns of a data point, as the ``wetland-form`` output names them.
DETERMINATION_FIELDS = ("hydrophytic_vegetation", "hydric_soil", "wetland_hydrology", "wetland")


def form_of(dp: DataPoint) -> dict[str, Any]:
    """The data form of ``dp`` as a dict ({} when the stored text is not a JSON object, e.g.
    written by hand in QGIS)."""
    try:
        form = json.loads(dp.form_json or "{}")
    except ValueError:
        return {}
    return form if isinstance(form, dict) else {}


def boundary_area(visit: VisitCore, boundary_uuid: str | None) -> AreaFeature | None:
    """The wetland area a data point's ``boundary_uuid`` names: the area of that uuid, or the
    area drawn by the walk of that uuid; None when unpaired or gone (the walk re-opened)."""
    if boundary_uuid is None:
        return None
    areas = visit._data[Layer.AREA]
    area = areas.get(boundary_uuid)
    if isinstance(area, AreaFeature):
        return area
    for a in areas.values():
        if isinstance(a, AreaFeature) and a.walk_uuid == boundary_uuid:
            return a
    return None


def _determination(values: Mapping[str, object] | None) -> dict[str, bool | None]:
    out: dict[str, bool | None] = {}
    for name in DETERMINATION_FIELDS:
        v = None if values is None else values.get(name)
        if v is not None and not isinstance(v, bool):
            raise InvalidValue(name, f"{v!r} is not yes / no / not decided")
        out[name] = v
    return out


def _form_text(form: Mapping[str, Any] | None) -> str:
    if form is None:
        return "{}"
    try:
        return json.dumps(dict(form), ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidValue("form_json", f"the data form is not plain JSON ({exc})") from exc


class DataPointCommands(VisitCore):
    """The data point commands of :class:`~fieldapp.survey.visit.Visit` (a mixin)."""

    def data_points(self) -> list[DataPoint]:
        """Every data point, in the order placed."""
        return sorted(self.features(Layer.DATA_POINT), key=lambda d: (d.created_utc, d.name))

    def next_data_point_name(self) -> str:
        """``DP-n``: one more than the highest ``DP-`` number in the visit."""
        nums = [int(d.name[3:]) for d in self.features(Layer.DATA_POINT)
                if d.name.startswith("DP-") and d.name[3:].isdigit()]
        return f"DP-{max(nums, default=0) + 1}"

    def add_data_point(self, *, role: DataPointRole | str, name: str | None = None,
                       region: WetlandRegion | str = WetlandRegion.NORTHCENTRAL_NORTHEAST,
                       x: float | None = None, y: float | None = None, fix: FixLike | None = None,
                       boundary_uuid: str | None = None, form: Mapping[str, Any] | None = None,
                       determination: Mapping[str, object] | None = None, notes: str = "") -> DataPoint:
        """Place a data point at ``fix`` (the gate must accept it; its quality, HDOP and
        horizontal accuracy are kept) or at ``x``, ``y`` (site CRS; placed on the map).
        ``name`` defaults to :meth:`next_data_point_name`. One undoable command.

        Raises InvalidValue for an unusable fix, a role or region not listed, a boundary that is
        not a wetland area (or its walk) of the visit, or a form that is not plain JSON.
        """
        px, py = self._xy(x, y, fix)
        self._check_boundary(boundary_uuid)
        det = _determination(determination)
        dp = DataPoint(
            **self._stamp(), x=px, y=py,
            name=V.text("name", name if name is not None else self.next_data_point_name(), allow_empty=False),
            role=enum_value(DataPointRole, role, "role"), region=enum_value(WetlandRegion, region, "region"),
            boundary_uuid=boundary_uuid, form_json=_form_text(form),
            hydrophytic_vegetation=det["hydrophytic_vegetation"], hydric_soil=det["hydric_soil"],
            wetland_hydrology=det["wetland_hydrology"], wetland=det["wetland"],
            quality=None if fix is None else int(fix.quality),
            hdop=None if fix is None else fix.hdop,
            h_accuracy_m=None if fix is None else fix.horizontal_accuracy_m,
            fix_time_utc=None if fix is None else ms(fix.time_utc), notes=notes,
        )
        dp = validate(dp)
        return new_of(DataPoint, self._commit([Change(Action.ADDED, Layer.DATA_POINT, dp)])[0])

    def update_data_point(self, uuid: str, *, form: Mapping[str, Any] | None = None,
                          determination: Mapping[str, object] | None = None, **fields: Any) -> DataPoint:
        """Change a data point's name, role, region, notes or position (``x``, ``y``) and, given
        ``form``, its data form with the ``determination`` the rules reached from it (the four
        columns set together; a key left out is "not decided"). Pairing goes through
        :meth:`pair_data_points`. One undoable command; nothing when nothing changes.
        """
        old = self.record(DataPoint, uuid)
        for banned in ("uuid", "created_utc", "created_by", "modified_utc", "pair_uuid", "boundary_uuid",
                       "form_json", *DETERMINATION_FIELDS):
            if banned in fields:
                raise InvalidValue(banned, "is set by the data point commands")
        if "role" in fields:
            fields["role"] = enum_value(DataPointRole, fields["role"], "role")
        if "region" in fields:
            fields["region"] = enum_value(WetlandRegion, fields["region"], "region")
        if form is not None:
            fields["form_json"] = _form_text(form)
            fields.update(_determination(determination))
        new = validate(replace(old, **fields))
        if new == old:
            return old
        new = replace(new, modified_utc=ms(self._clock()))
        return new_of(DataPoint, self._commit([Change(Action.UPDATED, Layer.DATA_POINT, new, old)])[0])

    def pair_data_points(self, wetland_uuid: str, upland_uuid: str, boundary_uuid: str | None) -> tuple[Change, ...]:
        """Pair a wetland data point with an upland one across the boundary ``boundary_uuid``
        (a wetland area's walk or area uuid; None: paired with each other only). A point paired
        before leaves its old partner unpaired. One undoable command.

        Raises InvalidValue when the roles are not one wetland and one upland, the two are the
        same point, or the boundary is not a wetland of the visit.
        """
        if wetland_uuid == upland_uuid:
            raise InvalidValue("pair_uuid", "a data point cannot be paired with itself")
        wet, up = self.record(DataPoint, wetland_uuid), self.record(DataPoint, upland_uuid)
        if wet.role is not DataPointRole.WETLAND or up.role is not DataPointRole.UPLAND:
            raise InvalidValue("role", f"a pair is one wetland and one upland point ({wet.name} is"
                                       f" {wet.role.value}, {up.name} is {up.role.value})")
        self._check_boundary(boundary_uuid)
        now = ms(self._clock())
        changes: list[Change] = []
        for me, other in ((wet, up), (up, wet)):
            if me.pair_uuid not in (None, other.uuid):     # its old partner is left unpaired
                was = self._data[Layer.DATA_POINT].get(me.pair_uuid)
                if isinstance(was, DataPoint) and was.uuid not in (wet.uuid, up.uuid):
                    changes.append(Change(Action.UPDATED, Layer.DATA_POINT,
                                          replace(was, pair_uuid=None, modified_utc=now), was))
            new = replace(me, pair_uuid=other.uuid, boundary_uuid=boundary_uuid, modified_utc=now)
            if (new.pair_uuid, new.boundary_uuid) != (me.pair_uuid, me.boundary_uuid):
                changes.append(Change(Action.UPDATED, Layer.DATA_POINT, new, me))
        return self._commit(changes) if changes else ()

    def unpair_data_point(self, uuid: str) -> tuple[Change, ...]:
        """Undo a pairing: the point and its partner lose ``pair_uuid`` and ``boundary_uuid``."""
        me = self.record(DataPoint, uuid)
        now = ms(self._clock())
        changes = []
        for dp in (me, self._data[Layer.DATA_POINT].get(me.pair_uuid or "")):
            if isinstance(dp, DataPoint) and (dp.pair_uuid, dp.boundary_uuid) != (None, None):
                changes.append(Change(Action.UPDATED, Layer.DATA_POINT,
                                      replace(dp, pair_uuid=None, boundary_uuid=None, modified_utc=now), dp))
        return self._commit(changes) if changes else ()

    def _check_boundary(self, boundary_uuid: str | None) -> None:
        if boundary_uuid is None:
            return
        V.uuid_text("boundary_uuid", boundary_uuid)
        area = boundary_area(self, boundary_uuid)
        if area is None:
            walk = self._data[Layer.WALK].get(boundary_uuid)
            if walk is not None and getattr(walk, "kind", None) is AreaKind.WETLAND:
                return      # a wetland boundary still being walked
            raise InvalidValue("boundary_uuid", f"no wetland boundary with uuid {boundary_uuid!r} in the visit")
        if area.kind is not AreaKind.WETLAND:
            raise InvalidValue("boundary_uuid", f"{area.label or 'the area'} is a {area.kind.value}, not a wetland")

    def _follow_delete(self, layer: Layer, old: Feature) -> list[Change]:
        """A deleted data point's partner is left unpaired (its boundary kept)."""
        if isinstance(old, DataPoint) and old.pair_uuid is not None:
            other = self._data[Layer.DATA_POINT].get(old.pair_uuid)
            if isinstance(other, DataPoint) and other.pair_uuid == old.uuid:
                return [Change(Action.UPDATED, Layer.DATA_POINT,
                               replace(other, pair_uuid=None, modified_utc=ms(self._clock())), other)]
        return super()._follow_delete(layer, old)
