"""Start and stop the devices the config names: simulators, a replayed log, real ports.

No Qt here: readers run on their own threads (named ``fieldapp-...`` by :mod:`devices`) and
report through the bridge's callbacks (:class:`DeviceCallbacks`; in the app the UI's
:class:`fieldapp.ui.bridge.DeviceBridge`, which hands them to the GUI thread). The simulators
come from the one factory :mod:`devices.sim.factory`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from devices.sim import factory as sim_factory
from fieldapp.app.config import AppConfig

log = logging.getLogger(__name__)

#: A fix carries the mountpoint while the last correction is at most this old, seconds (a
#: receiver keeps using corrections for a while; older ones are not what it computed with).
CORRECTIONS_KEPT_S = 60.0


class DeviceCallbacks(Protocol):
    """Where the device readers report (called on the readers' threads)."""

    def on_fix(self, fix: Any) -> None:
        """A GNSS fix (:class:`devices.nmea.Fix`)."""

    def status_callback(self, kind: str) -> Callable[[Any], None]:
        """The status callback of device ``kind`` (``gnss``, ``rangefinder``, ``caliper``)."""

    def reading_callback(self, kind: str) -> Callable[[Any], None]:
        """The reading callback of instrument ``kind``."""

    def close(self) -> None:
        """No more callbacks are delivered."""


@dataclass
class DeviceSession:
    """The running devices of one app session.

    Parameters
    ----------
    config : AppConfig
        Which devices (URLs, protocols, baud) or ``simulate`` / ``replay``.
    bridge : DeviceCallbacks
        Receives every callback.
    scripted_events : callable, optional
        Asked when the simulators start: play the demo receiver's scripted quality changes and
        dropouts (the UI passes :func:`fieldapp.ui.simsupport.scripted_events_wanted`); None
        gives a steady fix.
    """

    config: AppConfig
    bridge: DeviceCallbacks
    gnss: Any = None
    instruments: dict[str, Any] = field(default_factory=dict)
    simulators: list[Any] = field(default_factory=list)
    sim_ports: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    scenario: Any = None
    sim_time_scale: float = 1.0
    sim_gnss_rate_hz: float | None = 5.0
    sim_gnss_waypoints: list[Any] | None = None
    scripted_events: Callable[[], bool] | None = None
    corrections: Any = None
    corrections_port: Any = None

    # ------------------------------------------------------------------ start
    def start(self) -> None:
        """Start what the config asks for; failures are collected in :attr:`errors`."""
        cfg = self.config
        urls = {"gnss": cfg.gnss_url, "rangefinder": cfg.rangefinder_url,
                "caliper": cfg.caliper_url}
        if cfg.simulate:
            try:
                urls.update(self._start_simulators())
            except Exception as exc:  # noqa: BLE001 - shown to the user, app keeps running
                self._failed(f"Simulators could not start: {exc}", exc)
        if cfg.replay:
            try:
                urls["gnss"] = self._start_replay(cfg.replay, cfg.replay_speed)
            except Exception as exc:  # noqa: BLE001
                self._failed(f"Replay of {cfg.replay} could not start: {exc}", exc)
        if urls["gnss"]:
            try:
                self._start_gnss(urls["gnss"])
            except Exception as exc:  # noqa: BLE001
                self._failed(f"GNSS receiver at {urls['gnss']}: {exc}", exc)
        if cfg.ntrip_caster and self.gnss is not None:
            try:
                self._start_corrections(cfg.ntrip_caster)
            except Exception as exc:  # noqa: BLE001
                self._failed(f"Corrections from {cfg.ntrip_caster}: {exc}", exc)
        for kind in ("rangefinder", "caliper"):
            url = urls[kind]
            if url:
                try:
                    self._start_instrument(kind, url)
                except Exception as exc:  # noqa: BLE001
                    self._failed(f"{kind.capitalize()} at {url}: {exc}", exc)

    def _failed(self, words: str, exc: BaseException) -> None:
        """A device that could not start: ``words`` go to :attr:`errors` (shown to the user) and
        to the log, one line for what a user can fix (a missing file, a port, a bad value), with
        the traceback only for anything else."""
        self.errors.append(words)
        if isinstance(exc, (OSError, ValueError)):
            log.error("%s", words)
        else:
            log.exception("%s", words)

    def _start_gnss(self, url: str) -> None:
        from devices.nmea import GnssReader
        from devices.transport import SerialSettings

        cfg = self.config
        settings = SerialSettings(url=url, baudrate=cfg.gnss_baud, autobaud=cfg.gnss_autobaud)
        self.gnss = GnssReader(settings, on_fix=self._on_fix,
                               on_status=self.bridge.status_callback("gnss"),
                               max_age_s=cfg.max_fix_age_s,
                               antenna_height_m=cfg.antenna_height_m,
                               no_nmea_timeout_s=cfg.gnss_no_nmea_s)
        _start(self.gnss)

    def _start_corrections(self, caster_text: str) -> None:
        """The NTRIP client of ``caster_text`` (the config's ``ntrip_caster``), writing RTCM to the
        receiver's own port or ``rtcm_url``."""
        import fieldapp.app.secrets as secrets
        from devices.ntrip import Caster, NtripClient, corrections_port

        cfg = self.config
        caster = Caster.parse(caster_text)
        if not caster.password:
            caster = Caster.parse(caster_text, secrets.load_password(caster.url()) or "")
        write = self.gnss.write
        if cfg.rtcm_url:
            self.corrections_port = corrections_port(cfg.rtcm_url)
            write = self.corrections_port.write
        self.corrections = NtripClient(caster, write, position=self.gnss.latest_fix,
                                       gga_interval_s=cfg.ntrip_gga_interval_s).start()

    def _on_fix(self, fix: Any) -> None:
        """Every fix (reader thread): while corrections flow, it carries their mountpoint and the
        client's age of the last one (``Fix.correction_mount``, ``Fix.correction_age_s``)."""
        client = self.corrections
        if client is not None:
            st = client.status(fix.t_monotonic_s)
            age = st.age_s(fix.t_monotonic_s)
            if age is not None and age <= CORRECTIONS_KEPT_S:
                fix = replace(fix, correction_mount=st.mountpoint, correction_age_s=round(age, 2))
        self.bridge.on_fix(fix)

    def corrections_status(self) -> Any:
        """The NTRIP client's :class:`devices.ntrip.CorrectionStatus`, or None without one."""
        return self.corrections.status() if self.corrections is not None else None

    def _start_instrument(self, kind: str, url: str) -> None:
        from devices import registry

        cfg = self.config
        protocol = cfg.rangefinder_protocol if kind == "rangefinder" else cfg.caliper_protocol
        baud = cfg.rangefinder_baud if kind == "rangefinder" else cfg.caliper_baud
        options: dict[str, Any] = {}
        if kind == "caliper" and self.scenario is not None:
            table = sim_factory.write_species_table(self.scenario)
            if table:
                options["species_table"] = table
        simulated = url in self.sim_ports.values()
        config = registry.DeviceConfig(kind=kind, protocol=protocol, url=url,
                                       baudrate=None if simulated else baud, options=options)
        reader = registry.open_device(config, on_reading=self.bridge.reading_callback(kind),
                                      on_status=self.bridge.status_callback(kind),
                                      check_port=False)
        _start(reader)
        self.instruments[kind] = reader

    def _start_simulators(self) -> dict[str, str]:
        scripted = bool(self.scripted_events()) if self.scripted_events is not None else False
        ports, sims, scenario = sim_factory.start_demo(
            time_scale=self.sim_time_scale, gnss_rate_hz=self.sim_gnss_rate_hz,
            gnss_waypoints=self.sim_gnss_waypoints, scripted_events=scripted)
        self.simulators.extend(sims)
        self.sim_ports.update(ports)
        self.scenario = scenario
        return ports

    def _start_replay(self, path: str, speed: float) -> str:
        if not Path(path).is_file():
            raise FileNotFoundError(f"no NMEA log at {path}")
        port, sim = sim_factory.start_replay(path, speed)
        self.simulators.append(sim)
        self.sim_ports["replay"] = port
        return port

    # ------------------------------------------------------------------ use
    def gnss_stats(self) -> Any:
        stats = getattr(self.gnss, "stats", None)
        try:
            return stats() if callable(stats) else None
        except Exception:  # noqa: BLE001 - a tooltip, never fatal
            return None

    def simulator(self, kind: str) -> Any:
        return sim_factory.find(self.simulators, kind)

    # ------------------------------------------------------------------ stop
    def stop(self) -> None:
        """Stop readers first (no more callbacks), then simulators. Idempotent."""
        self.bridge.close()
        for reader in [self.corrections, self.corrections_port, self.gnss, *self.instruments.values()]:
            if reader is not None:
                _stop(reader)
        self.gnss = self.corrections = self.corrections_port = None
        self.instruments.clear()
        for sim in reversed(self.simulators):
            _stop(sim)
        self.simulators.clear()


def _start(obj: Any) -> None:
    start = getattr(obj, "start", None)
    if callable(start) and not getattr(obj, "_fieldapp_started", False):
        try:
            start()
        except RuntimeError:
            pass  # already started by its constructor


def _stop(obj: Any) -> None:
    for name in ("close", "stop"):
        fn = getattr(obj, name, None)
        if callable(fn):
            try:
                fn()
            except Exception:  # noqa: BLE001 - stopping must go on
                log.exception("stopping %r", obj)
            return
