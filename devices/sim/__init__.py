"""Simulated field devices: each writes the instrument's real bytes to a pseudo-terminal (or a
TCP socket), so the app opens it exactly like hardware.

Simulators (all have ``start()``, ``stop()``, ``port``, ``unplug()``/``replug()`` and are
context managers; each runs one daemon thread ``fieldapp-sim-<name>``):

- :class:`~devices.sim.gnss.GnssSim` -- walks a path, GGA RMC GSA GSV GST VTG ZDA at 1-20 Hz.
- :class:`~devices.sim.replay.ReplaySim` -- plays an NMEA log by its time stamps.
- :class:`~devices.sim.rangefinder.RangefinderSim` -- TruPulse / Vertex shots on a terrain
  profile (``shoot()``).
- :class:`~devices.sim.caliper.CaliperSim` -- Digitech SPC + DIA per tree (``squeeze()``).
- :class:`~devices.sim.inclinometer.InclinometerSim` -- ASCII ``X=``/``Y=`` (8E1) or XDR.

One registry of simulators: :func:`~devices.sim.builders.build_simulator` (one builder per
simulator name, :data:`~devices.sim.builders.SIMULATORS`); the app's ``--simulate`` devices:
:func:`~devices.sim.factory.start_demo`.

Scenarios: :func:`~devices.sim.scenario.start_scenario` (``"demo"`` ships in
``devices/sim/scenarios``). Command line: ``python -m devices.sim`` / ``fieldapp-sim``.

Nothing is re-exported here: import each name from its module (``import devices.sim`` stays
cheap).
"""
