"""Layered, frozen application settings (no Qt).

The settings are merged once at start-up, in this order, later layers winning:

1. the defaults of :class:`AppConfig`;
2. the settings file ``config.json`` in the local user config folder (``~/.config/fieldapp`` on
   Linux, ``%LOCALAPPDATA%\\fieldapp`` on Windows; ``FIELDAPP_CONFIG_DIR`` overrides the folder;
   :mod:`fieldapp.app.paths`). While it is missing, the one an earlier version kept is read
   (:func:`fieldapp.app.paths.earlier_config_dirs`); the next save writes the new one;
3. ``FIELDAPP_<FIELD>`` environment variables (e.g. ``FIELDAPP_GNSS_URL=/dev/ttyACM0``,
   ``FIELDAPP_MAX_FIX_AGE_S=3``);
4. the command line (``--gnss-url``, ``--simulate``, ...).

The result is a frozen :class:`AppConfig` passed down; the device dialog writes a new file and
the app rebuilds a new config from it, never mutating the old one.
"""

from __future__ import annotations

import json
import math
import os
import typing
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import fieldapp.app.paths as paths
from devices import registry
from fieldapp.app.paths import ENV_PREFIX

#: Fields stored in the settings file (device choices and field settings, not per-run flags).
PERSISTED = (
    "gnss_url",
    "gnss_baud",
    "gnss_autobaud",
    "rangefinder_url",
    "rangefinder_protocol",
    "rangefinder_baud",
    "caliper_url",
    "caliper_protocol",
    "caliper_baud",
    "antenna_height_m",
    "max_fix_age_s",
    "gnss_no_nmea_s",
    "average_epochs",
    "priority_waterway",
    "last_visit",
    "crew",
    "simulate",
    "office_dir",
    "ntrip_caster",
    "ntrip_gga_interval_s",
    "rtcm_url",
    "high_contrast",
    "photo_max_px",
    "photo_max_bytes",
    "camera_offset_s",
)


@dataclass(frozen=True)
class AppConfig:
    """Every setting the app reads, frozen.

    Attributes
    ----------
    gnss_url, rangefinder_url, caliper_url : str or None
        Port name or pyserial URL of each device (``/dev/ttyUSB0``, ``COM7``,
        ``socket://127.0.0.1:10110``, a pty path); None when the device is not used.
    gnss_baud, rangefinder_baud, caliper_baud : int
        Baud rates (4800-921600).
    gnss_autobaud : bool
        Try the common rates and keep the first that yields checksummed NMEA.
    rangefinder_protocol, caliper_protocol : str
        Protocol names as ``devices.registry`` lists them (``trupulse``, ``digitech`` ...).
    antenna_height_m : float
        Antenna height above the ground mark, metres.
    max_fix_age_s : float
        A fix older than this (monotonic seconds) is stale and cannot be recorded.
    gnss_no_nmea_s : float
        A GNSS link that yields no valid NMEA for this many seconds is closed and retried like
        an unplug (default 10 s).
    average_epochs : int
        Usable epochs averaged for one OHWM point.
    priority_waterway : bool
        NR 341.035: the 300 ft base and 10 % threshold apply instead of 75 ft / 12 %.
    simulate : bool
        Start the demo scenario's simulators on ptys and connect to them.
    replay : str or None
        An NMEA log played as the receiver.
    replay_speed : float
        Replay speed factor (1 = real time by the log's time stamps).
    visit : str or None
        GeoPackage of the site visit to open (created when missing).
    last_visit : str or None
        The visit opened last time (from the settings file).
    quit_after_s : float or None
        Smoke test: quit after this many seconds; exit 0 only if fixes arrived and a record
        was stored.
    data_dir : str
        Where new visits are created (default :func:`fieldapp.app.paths.default_visits_dir`:
        the local app-data folder, never Documents, which OneDrive may sync).
    redraw_hz : float
        Most draws a second of the map's position and of the transect profile: each draws
        only when something changed (the newest fix winning), by a timer that idles stopped.
    crew : str
        Recorded as who made each feature.
    office_dir : str or None
        The office folder the Sync button syncs with (chosen once, remembered).
    new_visit : bool
        ``--new``: show the New visit dialog at start instead of opening the last visit.
    ntrip_caster : str or None
        RTK corrections from this NTRIP caster, gpsd's form ``ntrip://user@host:port/MOUNT``
        (the password is kept apart: :mod:`fieldapp.app.secrets`; one given in the URL is used
        for this run but never saved). None: no corrections.
    ntrip_gga_interval_s : float
        Seconds between the receiver's GGA sent to the caster (VRS networks need it).
    rtcm_url : str or None
        A second port for the corrections (a receiver taking RTCM apart from its NMEA);
        None: the GNSS receiver's own port.
    high_contrast : bool
        The high-contrast theme for direct sun (``Ctrl+Shift+H`` toggles it; remembered).
    photo_max_px, photo_max_bytes : int
        The size cap of a kept photo: a file with a longer side (pixels) or more bytes is kept
        as a resized JPEG (the original's path with it). Defaults 2048 px, 1,000,000 bytes.
    camera_offset_s : float
        The camera clock minus true UTC, seconds (from one photo of the app's clock): photos
        placed by their EXIF time on the GNSS track are corrected by it.
    """

    gnss_url: str | None = None
    gnss_baud: int = 9600
    gnss_autobaud: bool = False
    rangefinder_url: str | None = None
    rangefinder_protocol: str = "trupulse"
    rangefinder_baud: int = 4800
    caliper_url: str | None = None
    caliper_protocol: str = "digitech"
    caliper_baud: int = 9600
    antenna_height_m: float = 2.0
    max_fix_age_s: float = 2.0
    gnss_no_nmea_s: float = 10.0
    average_epochs: int = 10
    priority_waterway: bool = False
    simulate: bool = False
    replay: str | None = None
    replay_speed: float = 1.0
    visit: str | None = None
    last_visit: str | None = None
    quit_after_s: float | None = None
    data_dir: str = ""
    redraw_hz: float = 30.0
    crew: str = ""
    office_dir: str | None = None
    new_visit: bool = False
    ntrip_caster: str | None = None
    ntrip_gga_interval_s: float = 10.0
    rtcm_url: str | None = None
    high_contrast: bool = False
    photo_max_px: int = 2048
    photo_max_bytes: int = 1_000_000
    camera_offset_s: float = 0.0

    def __post_init__(self) -> None:
        if not self.data_dir:
            object.__setattr__(self, "data_dir", str(default_data_dir()))
        for name in ("gnss_baud", "rangefinder_baud", "caliper_baud"):
            baud = getattr(self, name)
            if not 300 <= baud <= 921600:
                raise ValueError(f"{name} must be 300..921600, got {baud}")
        if not 0.0 <= self.antenna_height_m < 100.0:
            raise ValueError(f"antenna_height_m must be 0..100 m, got {self.antenna_height_m}")
        if not self.max_fix_age_s > 0:
            raise ValueError(f"max_fix_age_s must be > 0, got {self.max_fix_age_s}")
        if not (math.isfinite(self.gnss_no_nmea_s) and 0 < self.gnss_no_nmea_s <= 3600):
            raise ValueError(f"gnss_no_nmea_s must be 0..3600 seconds, got {self.gnss_no_nmea_s}")
        if not 1 <= self.average_epochs <= 10000:
            raise ValueError(f"average_epochs must be 1..10000, got {self.average_epochs}")
        if not self.redraw_hz > 0:
            raise ValueError(f"redraw_hz must be > 0, got {self.redraw_hz}")
        if not (math.isfinite(self.replay_speed) and self.replay_speed > 0):
            raise ValueError(f"replay_speed must be a finite number > 0, got {self.replay_speed}")
        if self.quit_after_s is not None and not (math.isfinite(self.quit_after_s)
                                                  and 0 < self.quit_after_s <= 86400):
            raise ValueError(f"quit_after_s must be 0..86400 seconds, got {self.quit_after_s}")
        if self.ntrip_caster:
            from devices.ntrip import Caster

            Caster.parse(self.ntrip_caster)  # ValueError in the caster's words
        if not 1 <= self.ntrip_gga_interval_s <= 3600:
            raise ValueError(f"ntrip_gga_interval_s must be 1..3600 s, got {self.ntrip_gga_interval_s}")
        if not 64 <= self.photo_max_px <= 20000:
            raise ValueError(f"photo_max_px must be 64..20000 pixels, got {self.photo_max_px}")
        if not 50_000 <= self.photo_max_bytes <= 100_000_000:
            raise ValueError(f"photo_max_bytes must be 50,000..100,000,000 bytes, got {self.photo_max_bytes}")
        if not (math.isfinite(self.camera_offset_s) and abs(self.camera_offset_s) <= 7 * 86400):
            raise ValueError(f"camera_offset_s must be within a week (±604800 s), got {self.camera_offset_s}")
        for kind in ("rangefinder", "caliper"):
            protocol = getattr(self, f"{kind}_protocol")
            known = [p.name for p in registry.protocols(kind)]
            if protocol not in known:
                raise ValueError(f"{kind}_protocol {protocol!r} unknown; {kind} protocols: "
                                 f"{', '.join(known)}")


def config_dir() -> Path:
    """The folder of ``config.json`` (:func:`fieldapp.app.paths.config_dir`)."""
    return paths.config_dir()


def default_data_dir() -> Path:
    """Where new visits go (:func:`fieldapp.app.paths.default_visits_dir`)."""
    return paths.default_visits_dir()


def config_file() -> Path:
    """The settings file written by :func:`save`: ``config.json`` in :func:`config_dir`."""
    return config_dir() / "config.json"


def settings_file_read() -> Path:
    """The settings file :func:`read_file` reads: :func:`config_file`, or while that is missing
    the one an earlier version kept (:func:`fieldapp.app.paths.earlier_config_dirs`), if any."""
    new = config_file()
    if not new.exists():
        for folder in paths.earlier_config_dirs():
            if (folder / "config.json").is_file():
                return folder / "config.json"
    return new


_HINTS = typing.get_type_hints(AppConfig)


def _convert(name: str, raw: Any) -> Any:
    """Convert a file or environment value to the field's type; ValueError naming the field."""
    hint = _HINTS[name]
    optional = type(None) in typing.get_args(hint)
    base = next((a for a in typing.get_args(hint) if a is not type(None)), hint)
    if raw is None or (optional and isinstance(raw, str) and raw.strip() in ("", "none", "None")):
        if optional:
            return None
        raise ValueError(f"{name} cannot be empty")
    try:
        if base is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if base is int:
            return int(raw)
        if base is float:
            return float(raw)
        return str(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: cannot read {raw!r} as {base.__name__}") from exc


def read_file(path: Path | None = None) -> dict[str, Any]:
    """The settings file as a dict of known fields ({} when absent); ValueError when unreadable.

    ``path`` None: :func:`settings_file_read` (the current file, or an earlier version's)."""
    path = settings_file_read() if path is None else path
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"settings file {path} is not readable JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"settings file {path} must hold a JSON object")
    known = {f.name for f in fields(AppConfig)}
    return {k: _convert(k, v) for k, v in data.items() if k in known}


def read_env(environ: typing.Mapping[str, str] | None = None) -> dict[str, Any]:
    """``FIELDAPP_<FIELD>`` variables as a dict of known fields."""
    environ = os.environ if environ is None else environ
    out = {}
    for f in fields(AppConfig):
        key = ENV_PREFIX + f.name.upper()
        if key in environ:
            out[f.name] = _convert(f.name, environ[key])
    return out


def build(cli: dict[str, Any] | None = None, *, use_file: bool = True,
          environ: typing.Mapping[str, str] | None = None) -> AppConfig:
    """Merge defaults -> file -> environment -> command line into a frozen config.

    ``cli`` holds only the options the user actually gave (None values are dropped).
    """
    merged: dict[str, Any] = {}
    if use_file:
        merged.update(read_file())
    merged.update(read_env(environ))
    merged.update({k: v for k, v in (cli or {}).items() if v is not None})
    return AppConfig(**merged)


def save(config: AppConfig, path: Path | None = None) -> Path:
    """Write the persisted fields of ``config`` to the settings file (atomically)."""
    path = config_file() if path is None else path
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {name: getattr(config, name) for name in PERSISTED}
    if data.get("ntrip_caster"):  # never a password in the settings file
        from devices.ntrip import Caster

        data["ntrip_caster"] = Caster.parse(data["ntrip_caster"]).url(with_password=False)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def remember(path: Path | None = None, **changes: Any) -> Path:
    """Write ``changes`` into the settings file, keeping everything else it holds.

    Unlike :func:`save` this never writes the current run's flags (``--simulate`` ...): only the
    file's own values and ``changes`` (validated through :class:`AppConfig`).
    """
    read_from = path          # None: the current file, or an earlier version's (settings_file_read)
    path = config_file() if path is None else path
    try:
        current = read_file(read_from)
    except ValueError:
        current = {}
    current.update(changes)
    return save(AppConfig(**current), path)


def with_changes(config: AppConfig, **changes: Any) -> AppConfig:
    """A new frozen config with ``changes`` applied (validated)."""
    return replace(config, **changes)


__all__ = ["AppConfig", "build", "save", "read_file", "read_env", "config_file", "config_dir",
           "default_data_dir", "settings_file_read", "with_changes", "remember", "PERSISTED"]
