"""Validation of scenario files: the one place that says what a scenario may contain.

:func:`validate_scenario` walks a decoded scenario and raises :class:`ScenarioError` at the
first problem, naming the file and the key path (``demo.json: devices.gnss.waypoints[2]:
expected [lat, lon] numbers``). Unknown keys are refused (a typo such as ``angle_deg`` for
``azimuth_deg`` must not be silently ignored), numbers must be finite and in range, and each
``devices`` entry may hold only its simulator's options.

The rules are small checker functions ``check(value, path)`` built by the helpers below (the
standard library has no schema validator and JSON Schema cannot say "a valid CRS" or "strictly
increasing distances"); each simulator class still checks its own arguments as well.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any, str], None]


class ScenarioError(ValueError):
    """A scenario that cannot be run: ``"<file>: <key path>: <problem>"``.

    Attributes
    ----------
    source : str
        The file (or ``"<scenario>"`` for a dict).
    key_path : str
        Dotted path to the offending value (``devices.gnss.waypoints[2]``; '' for the top).
    problem : str
    """

    def __init__(self, source: str, key_path: str, problem: str) -> None:
        self.source, self.key_path, self.problem = source, key_path, problem
        where = f"{source}: {key_path}" if key_path else source
        super().__init__(f"{where}: {problem}")


class _Invalid(Exception):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(path, problem)
        self.path, self.problem = path, problem


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", str: "a string", list: "a list", dict: "an object"}.get(
        type(value), repr(value) if isinstance(value, (int, float)) else type(value).__name__)


# -- checker builders


def number(
    lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
    hi_open: bool = False, integer: bool = False, what: str = "",
) -> Check:
    """A finite number (not true/false) in [lo, hi] (open ends with ``lo_open``/``hi_open``)."""

    def check(value: Any, path: str) -> None:
        kind = "a whole number" if integer else "a number"
        ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok_type:
            raise _Invalid(path, f"expected {what or kind}, got {_type_name(value)}")
        if not math.isfinite(value):
            raise _Invalid(path, f"{value} is not a finite number")
        if lo is not None and (value < lo or (lo_open and value == lo)):
            raise _Invalid(path, f"{value} must be {'>' if lo_open else '>='} {lo:g}")
        if hi is not None and (value > hi or (hi_open and value == hi)):
            raise _Invalid(path, f"{value} must be {'<' if hi_open else '<='} {hi:g}")

    return check


def positive(what: str = "") -> Check:
    return number(0, lo_open=True, what=what)


def string(choices: tuple[str, ...] | None = None) -> Check:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise _Invalid(path, f"expected a string, got {_type_name(value)}")
        if choices is not None and value not in choices:
            raise _Invalid(path, f"{value!r} is not one of {', '.join(choices)}")

    return check


def boolean(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise _Invalid(path, f"expected true or false, got {_type_name(value)}")


def nullable(inner: Check) -> Check:
    def check(value: Any, path: str) -> None:
        if value is not None:
            inner(value, path)

    return check


def list_of(item: Check, min_len: int = 0, what: str = "a list") -> Check:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise _Invalid(path, f"expected {what}, got {_type_name(value)}")
        if len(value) < min_len:
            raise _Invalid(path, f"needs at least {min_len} entries, has {len(value)}")
        for i, v in enumerate(value):
            item(v, f"{path}[{i}]")

    return check


def obj(
    fields: Mapping[str, Check], required: tuple[str, ...] = (), what: str = "an object"
) -> Check:
    """An object with only ``fields`` (each checked) and every ``required`` key present."""

    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise _Invalid(path, f"expected {what}, got {_type_name(value)}")
        for key in value:
            if key not in fields:
                raise _Invalid(_join(path, str(key)),
                               f"unknown key (allowed: {', '.join(fields)})")
        for key in required:
            if key not in value:
                raise _Invalid(path, f"missing {key!r}")
        for key, v in value.items():
            fields[key](v, _join(path, key))

    return check


def _pair(first: Check, second: Check, what: str) -> Check:
    def check(value: Any, path: str) -> None:
        if (not isinstance(value, list) or len(value) != 2
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value)):
            raise _Invalid(path, f"expected {what} numbers")
        first(value[0], f"{path}[0]")
        second(value[1], f"{path}[1]")

    return check


latlon = _pair(number(-90, 90, what="a latitude"), number(-180, 180, what="a longitude"),
               "[lat, lon]")
"""``[lat, lon]`` in degrees (WGS 84)."""


def _profile(value: Any, path: str) -> None:
    list_of(_pair(number(), number(), "[distance_ft, elevation_ft]"), min_len=2)(value, path)
    for i in range(1, len(value)):
        if value[i][0] <= value[i - 1][0]:
            raise _Invalid(f"{path}[{i}]", "profile distances must increase strictly")


def _crs(value: Any, path: str) -> None:
    string()(value, path)
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        crs = CRS.from_user_input(value)
    except CRSError as exc:
        raise _Invalid(path, f"{value!r} is not a coordinate reference system ({exc})") from None
    if not crs.is_geographic:
        raise _Invalid(path, f"{value!r} is not geographic; scenario positions are [lat, lon] "
                             "degrees (use EPSG:4326)")


def _any_json(value: Any, path: str) -> None:
    """Free-form (documentation only, e.g. expected results)."""


# -- the scenario


def _protocol_of(kind: str) -> Check:
    def check(value: Any, path: str) -> None:
        from devices.registry import PROTOCOLS

        names = tuple(n for n, p in PROTOCOLS.items() if p.kind == kind)
        string(names)(value, path)

    return check


_FINITE = number()
_ANGLE = number(0, 360, hi_open=True)
_INTERVAL = nullable(positive("a positive number of seconds"))
_SEED = nullable(number(integer=True))

_TREE_FIELDS: dict[str, Check] = {
    "species_number": number(0, integer=True),
    "label": string(),
    "species_label": string(),
    "dbh_in": positive(),
    "length_dm": nullable(positive()),
}
_TALLY_TREE = obj(_TREE_FIELDS, required=("species_number", "dbh_in"))
_STAND_TREE = obj({
    **_TREE_FIELDS, "id": _any_json, "position": latlon, "along_ft": _FINITE,
    "offset_ft": _FINITE, "species_code": string(), "common_name": string(),
    "leaf_habit": string(("deciduous", "evergreen")), "crown_radius_ft": nullable(positive()),
}, required=("species_number", "dbh_in"))


def _gnss_fields() -> dict[str, Check]:
    from devices.sim.gnss import QUALITIES, SENTENCES

    quality = string(tuple(QUALITIES))
    return {
        "waypoints": list_of(latlon, min_len=1),
        "start": latlon,
        "legs": list_of(_pair(number(0), number(), "[distance_m, bearing_deg]")),
        "speed_m_s": number(0),
        "alt_m": _FINITE,
        "rate_hz": number(1, 20),
        "sentences": list_of(string(SENTENCES), min_len=1),
        "quality": quality,
        "quality_schedule": list_of(obj({"at_s": number(0), "quality": quality},
                                        required=("at_s", "quality"))),
        "dropouts": list_of(obj({"at_s": number(0), "duration_s": positive(),
                                 "mode": string(("nofix", "silent"))},
                                required=("at_s", "duration_s"))),
        "bad_rate": number(0, 1),
        "seed": _SEED,
        "talker": string(("GN", "GP", "GL", "GA", "GB")),
        "time_scale": positive(),
    }


def _rangefinder_fields() -> dict[str, Check]:
    from devices.sim.rangefinder import DIALECTS

    return {
        "profile_ft": _profile,
        "targets_ft": list_of(_FINITE, min_len=1),
        "station_ft": _FINITE,
        "azimuth_deg": nullable(_ANGLE),
        "units": string(("F", "Y", "M")),
        "dialect": string(DIALECTS),
        "advance": boolean,
        "interval_s": _INTERVAL,
        "low_quality_rate": number(0, 1),
        "ble": boolean,
        "seed": _SEED,
        "model": string(),
        "firmware": string(),
    }


def _simulator_fields(sim_type: str) -> dict[str, Check]:
    if sim_type == "gnss":
        return _gnss_fields()
    if sim_type == "rangefinder":
        return _rangefinder_fields()
    if sim_type == "caliper":
        return {"tally": list_of(_TALLY_TREE, min_len=1), "interval_s": _INTERVAL,
                "sends_length": boolean, "loop": boolean}
    if sim_type == "inclinometer":
        return {"pitch_deg": number(-90, 90), "roll_deg": number(-180, 180),
                "rate_hz": number(0, 50, lo_open=True), "dialect": string(("ascii", "xdr"))}
    if sim_type == "replay":
        return {"path": string(), "speed": nullable(positive()), "loop": boolean,
                "max_gap_s": number(0)}
    raise AssertionError(sim_type)


_REQUIRED = {"replay": ("path",)}


def _device(name: str, spec: Any, path: str, scenario: dict[str, Any]) -> None:
    from devices.sim.builders import SIMULATOR_KINDS

    if not isinstance(spec, dict):
        raise _Invalid(path, f"expected an object ({{\"simulator\": ...}}), got "
                             f"{_type_name(spec)}")
    sim_type = spec.get("simulator", name)
    if sim_type not in SIMULATOR_KINDS:
        raise _Invalid(_join(path, "simulator"),
                       f"{sim_type!r} is not one of {', '.join(SIMULATOR_KINDS)}"
                       + ("" if "simulator" in spec else " (no 'simulator' key and the device "
                          "name is not a simulator)"))
    kind = SIMULATOR_KINDS[sim_type][0]
    fields = {"simulator": string(tuple(SIMULATOR_KINDS)), "protocol": _protocol_of(kind),
              **_simulator_fields(sim_type)}
    obj(fields, required=_REQUIRED.get(sim_type, ()))(spec, path)
    if sim_type == "gnss":
        if "waypoints" in spec and ("start" in spec or "legs" in spec):
            raise _Invalid(path, "give either 'waypoints' or 'start' + 'legs', not both")
        if "waypoints" not in spec and not ("start" in spec and "legs" in spec):
            raise _Invalid(path, "missing 'waypoints' (or 'start' + 'legs')")
    elif sim_type == "rangefinder":
        if "profile_ft" not in spec and "profile_ft" not in scenario.get("transect", {}):
            raise _Invalid(path, "missing 'profile_ft' and the scenario has no transect "
                                 "profile_ft")
    elif sim_type == "caliper":
        if "tally" not in spec and not scenario.get("stand", {}).get("trees"):
            raise _Invalid(path, "missing 'tally' and the scenario has no stand trees")


def _species_table(value: Any, path: str) -> None:
    from devices.caliper import SpeciesTable, SpeciesTableError

    try:
        SpeciesTable.from_dict(value, path)
    except SpeciesTableError as exc:
        raise _Invalid(path, str(exc).removeprefix(f"{path}: ")) from None


_TOP: dict[str, Check] = {
    "name": string(),
    "description": string(),
    "site": obj({"name": string(), "crs": _crs, "origin": latlon, "notes": string()}),
    "ohwm": list_of(latlon, min_len=2, what="a list of [lat, lon] points"),
    "transect": obj({
        "start": latlon, "end": latlon, "azimuth_deg": _ANGLE, "profile_ft": _profile,
        "stations_ft": list_of(_FINITE, min_len=2),
        "expected_nr341_bank": _any_json,
    }),
    "stand": obj({"boundary": list_of(latlon, min_len=4, what="a list of [lat, lon] points"),
                  "trees": list_of(_STAND_TREE)}),
    "wetland": obj({"boundary": list_of(latlon, min_len=4, what="a list of [lat, lon] points"),
                    "approx_area_sqft": positive()}),
    "species_table": _species_table,
    "devices": _any_json,  # checked entry by entry in validate_scenario
}


def validate_scenario(data: Any, source: str = "<scenario>") -> dict[str, Any]:
    """Check a decoded scenario; returns it unchanged.

    Parameters
    ----------
    data : any
        What ``json.loads`` gave.
    source : str
        The file name for messages.

    Raises
    ------
    ScenarioError
        The first problem, with ``source`` and the key path.
    """
    try:
        if not isinstance(data, dict):
            raise _Invalid("", f"expected a JSON object with a 'devices' object, got "
                               f"{_type_name(data)}")
        if "devices" not in data:
            raise _Invalid("", "missing 'devices' object")
        devices = data["devices"]
        if not isinstance(devices, dict):
            raise _Invalid("devices", f"expected an object (device name -> options), got "
                                      f"{_type_name(devices)}")
        top = {k: v for k, v in data.items() if k != "devices"}
        obj(_TOP)(top, "")
        if not devices:
            raise _Invalid("devices", "no devices to simulate")
        for name, spec in devices.items():
            _device(name, spec, _join("devices", name), data)
    except _Invalid as exc:
        raise ScenarioError(source, exc.path, exc.problem) from None
    return data
