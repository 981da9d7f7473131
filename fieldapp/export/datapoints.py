"""The export's ``data_point`` layer: each wetland determination data point with its determination.

One point layer (site CRS geometry, as every layer of :func:`fieldapp.export.layer_records`)
with the columns the office maps and filters: the point's ``name``, ``role`` (wetland /
upland), ``region``, its pair's name and the boundary it supports; the four determination
columns (``hydrophytic_vegetation``, ``hydric_soil``, ``wetland_hydrology``, ``wetland``: 1 / 0,
empty when the form cannot be determined) and the tests behind them (``rapid_test``,
``dominance_pct``, ``prevalence_index``, ``dominants``), all as the rules reach them now from the
stored form (:func:`fieldapp.rules.wetland_form.determine`), so the export, the report and the
window agree; the indicator codes checked; how the point was placed (fix quality, HDOP,
accuracy, time) and the notes. The form itself stays in the visit GeoPackage (``data_point.form_json``).
"""

from __future__ import annotations

from typing import Any

import shapely

from fieldapp.export.model import _LayerData
from fieldapp.rules.wetland_form import FormError, determine
from fieldapp.rules.wetland_regions import STRATA
from fieldapp.survey.datapoints import boundary_area, form_of
from fieldapp.survey.features import DataPoint, Layer
from fieldapp.survey.visit import Visit

__all__ = ["COLUMNS", "data_point_layers"]

COLUMNS: list[tuple[str, str]] = [
    ("name", "str"), ("uuid", "str"), ("created_utc", "str"), ("modified_utc", "str"), ("created_by", "str"),
    ("role", "str"), ("region", "str"), ("pair_name", "str"), ("pair_uuid", "str"), ("boundary", "str"),
    ("boundary_uuid", "str"),
    ("hydrophytic_vegetation", "int"), ("hydric_soil", "int"), ("wetland_hydrology", "int"), ("wetland", "int"),
    ("rapid_test", "int"), ("dominance_pct", "float"), ("prevalence_index", "float"), ("dominants", "str"),
    ("hydrology_primary", "str"), ("hydrology_secondary", "str"), ("soil_indicators", "str"),
    ("determination_problem", "str"),
    ("fix_quality", "int"), ("hdop", "float"), ("h_accuracy_m", "float"), ("fix_time_utc", "str"), ("notes", "str"),
]


def _value(v: Any) -> Any:
    return getattr(v, "value", v)


def _bit(v: bool | None) -> int | None:
    return None if v is None else int(v)


def _codes(form: dict[str, Any], part: str, key: str) -> str | None:
    got = form.get(part)
    codes = got.get(key) if isinstance(got, dict) else None
    return ", ".join(str(c) for c in codes) if isinstance(codes, list) and codes else None


def data_point_layers(visit: Visit) -> list[_LayerData]:
    """``[the data_point layer]`` of ``visit``, or ``[]`` when it has no data point."""
    from fieldapp.store import schema as S

    points: list[DataPoint] = sorted(visit.features(Layer.DATA_POINT), key=lambda d: (d.created_utc, d.name))
    if not points:
        return []
    names = {d.uuid: d.name for d in points}
    rows: list[list[Any]] = []
    geoms = []
    for dp in points:
        form = form_of(dp)
        form.setdefault("plot", dp.name)
        form.setdefault("region", _value(dp.region))
        problem = None
        try:
            det = determine(form)
        except FormError as err:
            det, problem = None, str(err)
        area = boundary_area(visit, dp.boundary_uuid)
        dominants = ("; ".join(f"{s}: {', '.join(det.dominants[s])}" for s in STRATA if det.dominants[s])
                     if det else None)
        rows.append([
            dp.name, dp.uuid, S.utc_text(dp.created_utc), S.utc_text(dp.modified_utc), dp.created_by,
            _value(dp.role), _value(dp.region), names.get(dp.pair_uuid or ""), dp.pair_uuid,
            (area.label or "wetland") if area is not None else None, dp.boundary_uuid,
            _bit(det.hydrophytic_vegetation if det else None), _bit(det.hydric_soil if det else None),
            _bit(det.wetland_hydrology if det else None), _bit(det.wetland if det else None),
            _bit(det.rapid_test if det else None), det.dominance_percent if det else None,
            det.prevalence_index if det else None, dominants or None,
            _codes(form, "hydrology", "primary"), _codes(form, "hydrology", "secondary"),
            _codes(form, "soil", "indicators"), problem,
            dp.quality, dp.hdop, dp.h_accuracy_m,
            None if dp.fix_time_utc is None else S.utc_text(dp.fix_time_utc), dp.notes or None,
        ])
        geoms.append(shapely.Point(dp.x, dp.y))
    return [_LayerData(Layer.DATA_POINT.value, "Point", geoms, list(COLUMNS), rows)]
