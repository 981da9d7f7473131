"""Wetland determination data points as the Data point panel works them (no Qt).

:class:`DataPointDesk` places a data point at the GNSS fix or a map position, saves its data
form (the ``wetland-form`` contract's input plus the details the rules do not read: plot sizes,
hydrology depths, the soil profile) with the determination
:func:`fieldapp.rules.wetland_form.determine` reaches from it, pairs a wetland point with an
upland one across a walked wetland boundary, and deletes a point. Every change is one command of
the visit's model (undoable with Ctrl+Z like any other record, and journalled into the
GeoPackage before it is shown).

The form keeps the statuses of the species it uses (``indicators``), taken from the loaded
plant list (:class:`fieldapp.app.plantlist.PlantList`) when the form is saved; a species the
list does not have keeps the status the form had for it (typed before, or from another list),
else none: the rules then count it as the National Wetland Plant List counts species not
listed in a region.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fieldapp.app.plantlist import Plant, PlantList
from fieldapp.rules.wetland_form import Determination, FormError, determine, species_key
from fieldapp.rules.wetland_regions import REGIONS, STRATA, carry_indicators
from fieldapp.survey.datapoints import boundary_area, form_of
from fieldapp.survey.features import AreaFeature, DataPoint, Layer

__all__ = ["DataPointDesk", "Outcome", "empty_form", "determination_columns", "ROLES"]

#: (value, words) of the roles.
ROLES = (("wetland", "Wetland (inside)"), ("upland", "Upland (outside)"))


def empty_form(name: str, region: str) -> dict[str, Any]:
    """A blank data form for plot ``name`` in ``region`` (the supplement's plot sizes)."""
    sizes = dict(REGIONS[region].plot_sizes_ft)
    return {"plot": name, "region": region, "indicators": {},
            "vegetation": {s: [] for s in STRATA}, "plot_sizes_ft": sizes,
            "hydrology": {"primary": [], "secondary": [], "surface_water_in": None,
                          "water_table_in": None, "saturation_in": None},
            "soil": {"indicators": [], "profile": []},
            "problematic": {"vegetation": False, "soil": False, "hydrology": False}}


def _anything_recorded(form: Mapping[str, Any]) -> bool:
    veg = form.get("vegetation") or {}
    hyd = form.get("hydrology") or {}
    soil = form.get("soil") or {}
    return bool(any(veg.get(s) for s in STRATA) or hyd.get("primary") or hyd.get("secondary")
                or soil.get("indicators"))


def determination_columns(det: Determination | None) -> dict[str, bool | None]:
    """The four columns a data point keeps (None for each while nothing is decidable)."""
    if det is None:
        return dict.fromkeys(("hydrophytic_vegetation", "hydric_soil", "wetland_hydrology", "wetland"))
    return {"hydrophytic_vegetation": det.hydrophytic_vegetation, "hydric_soil": det.hydric_soil,
            "wetland_hydrology": det.wetland_hydrology, "wetland": det.wetland}


@dataclass(frozen=True)
class Outcome:
    """What the rules made of a form: the determination, or why there is none yet
    (``problem``: the form's first problem in words; ``""`` and no determination: nothing
    recorded yet)."""

    determination: Determination | None
    problem: str = ""


class DataPointDesk:
    """The data points of the open visit ``visit`` (:class:`fieldapp.app.visit.VisitController`)
    and the loaded ``plants``."""

    def __init__(self, visit: Any, plants: PlantList) -> None:
        self.visit = visit
        self.plants = plants

    @property
    def model(self) -> Any:
        return self.visit.model

    # -------------------------------------------------------------- reading
    def data_points(self) -> list[DataPoint]:
        return list(self.model.data_points())

    def get(self, uuid: str) -> DataPoint:
        dp: DataPoint = self.model.record(DataPoint, uuid)
        return dp

    def form(self, uuid: str) -> dict[str, Any]:
        """The point's form, filled out to the blank form's keys."""
        dp = self.get(uuid)
        out = empty_form(dp.name, dp.region.value)
        stored = form_of(dp)
        for key, value in stored.items():
            if isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = {**out[key], **value}
            else:
                out[key] = value
        out["plot"], out["region"] = dp.name, dp.region.value
        return out

    def wetland_boundaries(self) -> list[tuple[str, str]]:
        """(boundary uuid, words) of every walked or drawn wetland: the walk's uuid when it was
        walked (kept when it is re-walked), else the area's."""
        out = []
        n = 0
        for a in self.model.features(Layer.AREA):
            if isinstance(a, AreaFeature) and a.kind.value == "wetland":
                n += 1
                out.append((a.walk_uuid or a.uuid, a.label or f"Wetland #{n}"))
        return out

    def boundary_words(self, dp: DataPoint) -> str:
        area = boundary_area(self.model, dp.boundary_uuid)
        if dp.boundary_uuid is None:
            return "not paired with a boundary"
        if area is None:
            return "its boundary is being walked again" if dp.boundary_uuid in {
                w.uuid for w in self.model.features(Layer.WALK)} else "its boundary is gone"
        return area.label or "wetland"

    def known_species(self) -> list[Plant]:
        """The species on the visit's data points (their kept statuses), for the picker when
        the list does not have them."""
        seen: dict[str, Plant] = {}
        for dp in self.data_points():
            form = form_of(dp)
            statuses = form.get("indicators") or {}
            for s in STRATA:
                for row in (form.get("vegetation") or {}).get(s) or []:
                    name = row.get("species") if isinstance(row, dict) else None
                    if isinstance(name, str) and name and name.casefold() not in seen:
                        seen[name.casefold()] = Plant(name, "", str(statuses.get(name, "")))
        return list(seen.values())

    def search(self, text: str, limit: int = 40) -> list[Plant]:
        """The picker's list for ``text`` (:meth:`PlantList.search`, the visit's species too)."""
        return self.plants.search(text, limit=limit, extra=self.known_species())

    # -------------------------------------------------------------- the rules
    def outcome(self, form: Mapping[str, Any]) -> Outcome:
        """The determination of ``form`` as it stands (typed so far)."""
        if not _anything_recorded(form):
            return Outcome(None, "")
        try:
            return Outcome(determine(dict(form)))
        except FormError as exc:
            return Outcome(None, str(exc))

    def with_statuses(self, form: Mapping[str, Any]) -> dict[str, Any]:
        """``form`` with ``indicators`` holding the status of every species it uses: the loaded
        list's, else the status the form kept for it; a species with neither is left out (the
        rules count it UPL, as the list counts species it does not have). A species is matched
        as the rules match it (any case, repeated spaces, "x" for "×") and written in
        ``vegetation`` as the list (or the kept status) spells it."""
        kept = {species_key(k): (k, v) for k, v in dict(form.get("indicators") or {}).items()}
        statuses: dict[str, str] = {}
        veg: dict[str, list[Any]] = {}
        for s in STRATA:
            veg[s] = []
            for row in (form.get("vegetation") or {}).get(s) or []:
                name = str(row.get("species") or "").strip() if isinstance(row, dict) else ""
                listed = self.plants.get(name) if name else None
                name, st = ((listed.scientific, listed.status) if listed is not None else
                            kept.get(species_key(name), (name, None)))
                if name and st:
                    statuses[name] = st
                veg[s].append({**row, "species": name} if isinstance(row, dict) and name else row)
        return {**form, "vegetation": {**(form.get("vegetation") or {}), **veg}, "indicators": statuses}

    # -------------------------------------------------------------- commands
    def place(self, role: str, *, fix: Any = None, at_ft: tuple[float, float] | None = None,
              name: str | None = None, region: str = "northcentral-northeast") -> DataPoint:
        """A new data point at ``fix`` (its quality and HDOP kept) or at the map position
        ``at_ft`` (site feet); its blank form. One undoable command.

        Raises InvalidValue (survey) for an unusable fix, a bad role or region."""
        x = y = None
        if fix is None:
            if at_ft is None:
                raise ValueError("place a data point at a fix or a map position")
            f = self.model.frame
            x, y = float(f.from_ft(at_ft[0])), float(f.from_ft(at_ft[1]))
        else:
            self.model.ensure_frame(fix)
        name = name or self.model.next_data_point_name()
        dp: DataPoint = self.model.add_data_point(role=role, name=name, region=region, x=x, y=y, fix=fix,
                                                  form=empty_form(name, region))
        self.visit.refresh_checks()
        return dp

    def save_form(self, uuid: str, form: Mapping[str, Any]) -> tuple[DataPoint, Outcome]:
        """Keep ``form`` on the data point with the statuses of its species and the
        determination the rules reach from it (a form the rules refuse is kept as typed, the
        determination "not decided"). Nothing changes when nothing did."""
        dp = self.get(uuid)
        full = self.with_statuses({**form, "plot": dp.name, "region": dp.region.value})
        out = self.outcome(full)
        new = self.model.update_data_point(uuid, form=full,
                                           determination=determination_columns(out.determination))
        for s in STRATA:       # recent species: those with a status (a typo stays out)
            for row in (full.get("vegetation") or {}).get(s) or []:
                if isinstance(row, dict) and row.get("species") in full["indicators"]:
                    self.plants.picked(str(row["species"]))
        self.visit.refresh_checks()
        return new, out

    def change_region(self, uuid: str, form: Mapping[str, Any], region: str) -> tuple[DataPoint, Outcome, list[str]]:
        """Move the data point to ``region`` with ``form`` (the form as typed, in the old
        region): the ticked indicators the new region's form also lists are kept
        (:func:`fieldapp.rules.wetland_regions.carry_indicators`), the form's ``region`` follows
        the column, and the determination is reached again. One undoable command. Returns the
        point, the outcome and the codes dropped ("soil F19") because the new region lacks them.

        Raises InvalidValue (survey) or KeyError for a region that is not one of the two."""
        dp = self.get(uuid)
        carried, dropped = carry_indicators(form, region)
        full = self.with_statuses({**carried, "plot": dp.name})
        out = self.outcome(full)
        new = self.model.update_data_point(uuid, region=region, form=full,
                                           determination=determination_columns(out.determination))
        self.visit.refresh_checks()
        return new, out, dropped

    def update(self, uuid: str, **fields: Any) -> DataPoint:
        """Change name, role, region or notes (a new region carries the kept form over as
        :meth:`change_region` does)."""
        region = getattr(fields.get("region"), "value", fields.get("region"))
        if region is not None and region != self.get(uuid).region.value:
            del fields["region"]
            moved = self.change_region(uuid, self.form(uuid), str(region))[0]
            if not fields:
                return moved
        dp: DataPoint = self.model.update_data_point(uuid, **fields)
        self.visit.refresh_checks()
        return dp

    def pair(self, a_uuid: str, b_uuid: str, boundary_uuid: str | None) -> None:
        """Pair two data points (one wetland, one upland, either order) across the boundary."""
        a, b = self.get(a_uuid), self.get(b_uuid)
        wet, up = (a, b) if a.role.value == "wetland" else (b, a)
        self.model.pair_data_points(wet.uuid, up.uuid, boundary_uuid)
        self.visit.refresh_checks()

    def unpair(self, uuid: str) -> None:
        self.model.unpair_data_point(uuid)
        self.visit.refresh_checks()

    def delete(self, uuid: str) -> None:
        """Delete the point (its partner left unpaired); Ctrl+Z brings both back."""
        self.model.delete(Layer.DATA_POINT, uuid)
        self.visit.refresh_checks()
