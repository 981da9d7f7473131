"""Windows has no termios, fcntl or pty: every module of devices/ and fieldapp/ still imports
(POSIX-only modules only inside a POSIX branch), and the simulators then serve socket:// on
loopback (issue 15 item 13)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# Run in a fresh interpreter: pyserial is imported first (its POSIX backend is its own concern,
# "pyserial itself aside"), then termios, fcntl, pty and tty are dropped from sys.modules and a
# meta-path finder refuses them to any importer in devices.* or fieldapp.* -- as on Windows,
# where they do not exist. The stdlib's and other libraries' own POSIX branches are theirs.
BLOCKER = textwrap.dedent(r"""
    import importlib, importlib.abc, json, pkgutil, sys, traceback
    import serial, serial.tools.list_ports, serial.urlhandler.protocol_socket
    BLOCKED = {"termios", "fcntl", "pty", "tty"}
    for name in BLOCKED:
        sys.modules.pop(name, None)
    refused = []

    def importer():
        f = sys._getframe(2)
        while f is not None and f.f_code.co_filename.startswith("<frozen importlib"):
            f = f.f_back
        return (f.f_globals.get("__name__") or "") if f is not None else ""

    class NoPosix(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name in BLOCKED:
                who = importer()
                if who.split(".")[0] in ("devices", "fieldapp"):
                    refused.append((who, name))
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoPosix())
    import devices, fieldapp
    names, failed = [], {}
    for pkg in (devices, fieldapp):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if info.name == "fieldapp.__main__":
                continue  # runs the app (python -m fieldapp); it imports fieldapp.cli only
            names.append(info.name)
            try:
                importlib.import_module(info.name)
            except BaseException:
                failed[info.name] = traceback.format_exc(limit=3)
    from devices.sim import endpoint, base
    ep = base.make_endpoint()
    url = ep.url
    ep.close()
    print(json.dumps({"names": names, "failed": failed, "refused": refused,
                      "pty": endpoint.pty_available(), "url": url}))
""")


def test_every_module_imports_without_termios_fcntl_and_pty():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    env.pop("FIELDAPP_SIM_PTY", None)
    out = subprocess.run([sys.executable, "-c", BLOCKER], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    # the walk really covered both trees (a blocker that imported nothing would pass)
    assert "devices.sim.endpoint" in result["names"]
    assert "devices.transport" in result["names"]
    assert "fieldapp.ui.mainwindow" in result["names"]
    assert len(result["names"]) > 80
    assert result["failed"] == {}
    # endpoint.py and transport.py asked for termios (in their POSIX branch) and were refused
    assert ("devices.sim.endpoint", "termios") in [tuple(r) for r in result["refused"]]
    # no ptys: the default simulator endpoint is a TCP server on loopback
    assert result["pty"] is False
    assert result["url"].startswith("socket://127.0.0.1:")


def test_pty_backend_switched_off_serves_tcp(monkeypatch):
    from devices.sim import base, endpoint

    monkeypatch.setenv(endpoint.PTY_ENV, "0")
    assert endpoint.pty_available() is False
    ep = base.make_endpoint(link=None)
    try:
        assert isinstance(ep, endpoint.TcpEndpoint)
        assert ep.url == f"socket://127.0.0.1:{ep.port}"
    finally:
        ep.close()


def test_no_termios_means_a_clear_pty_refusal(monkeypatch):
    from devices.sim import endpoint

    monkeypatch.setattr(endpoint, "termios", None)
    with pytest.raises(OSError, match="no pseudo-terminals on this system"):
        endpoint.PtyEndpoint()
