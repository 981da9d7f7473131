"""Layered frozen config: defaults -> settings file -> FIELDAPP_* -> command line."""

from __future__ import annotations

import dataclasses
import json

import pytest

from fieldapp.app import config as C


@pytest.fixture
def cfgdir(tmp_path, monkeypatch):
    monkeypatch.setenv("FIELDAPP_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("FIELDAPP_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "cfg"


def test_layers_in_order(cfgdir):
    cfgdir.mkdir()
    (cfgdir / "config.json").write_text(json.dumps(
        {"gnss_url": "/dev/ttyUSB0", "gnss_baud": 38400, "max_fix_age_s": 3.0,
         "antenna_height_m": 1.5, "unknown_key": 1}))
    env = {"FIELDAPP_GNSS_BAUD": "115200", "FIELDAPP_MAX_FIX_AGE_S": "4"}
    cfg = C.build({"max_fix_age_s": 5.0, "gnss_url": None}, environ=env)
    # file sets url and antenna height; env overrides baud and age; cli overrides age;
    # a cli None (option not given) does not hide the file's url.
    assert cfg.gnss_url == "/dev/ttyUSB0"
    assert cfg.antenna_height_m == 1.5
    assert cfg.gnss_baud == 115200
    assert cfg.max_fix_age_s == 5.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.gnss_baud = 9600  # type: ignore[misc]


def test_defaults_without_file(cfgdir):
    cfg = C.build({}, environ={})
    assert cfg.gnss_url is None and cfg.max_fix_age_s == 2.0 and cfg.simulate is False
    assert cfg.data_dir.endswith("data")


def test_bad_values_named(cfgdir):
    with pytest.raises(ValueError, match="gnss_baud"):
        C.build({}, environ={"FIELDAPP_GNSS_BAUD": "fast"})
    with pytest.raises(ValueError, match="max_fix_age_s"):
        C.build({"max_fix_age_s": 0.0}, environ={})
    with pytest.raises(ValueError, match="simulate"):
        C.build({}, environ={"FIELDAPP_SIMULATE": "maybe"})


def test_save_round_trip(cfgdir):
    cfg = C.build({"caliper_url": "/dev/rfcomm0", "simulate": True, "quit_after_s": 3.0},
                  environ={})
    path = C.save(cfg)
    data = json.loads(path.read_text())
    assert data["caliper_url"] == "/dev/rfcomm0" and data["simulate"] is True
    assert "quit_after_s" not in data            # per-run flags are not persisted
    again = C.build({}, environ={})
    assert again.caliper_url == "/dev/rfcomm0" and again.simulate is True


def test_unreadable_file_is_an_error_naming_it(cfgdir):
    cfgdir.mkdir()
    (cfgdir / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match="config.json"):
        C.build({}, environ={})


@pytest.mark.parametrize("cli, words", [
    ({"quit_after_s": float("nan")}, "quit_after_s must be 0..86400 seconds, got nan"),
    ({"quit_after_s": float("inf")}, "quit_after_s must be 0..86400 seconds, got inf"),
    ({"quit_after_s": -1.0}, "quit_after_s must be 0..86400 seconds, got -1.0"),
    ({"replay_speed": -1.0}, "replay_speed must be a finite number > 0, got -1.0"),
    ({"replay_speed": float("nan")}, "replay_speed must be a finite number > 0, got nan"),
    ({"rangefinder_protocol": "bogus"},
     "rangefinder_protocol 'bogus' unknown; rangefinder protocols: trupulse, trupulse-200,"),
    ({"caliper_protocol": "trupulse"}, "caliper_protocol 'trupulse' unknown; caliper protocols: digitech"),
])
def test_impossible_run_options_are_refused_before_anything_starts(cfgdir, cli, words):
    # were a traceback in the window's timer (nan, inf), a Qt warning and FAILED (-1), or a
    # device that never started while the smoke test said "ok" (unknown protocol)
    with pytest.raises(ValueError) as err:
        C.build(cli, environ={})
    assert str(err.value).startswith(words)


def test_the_cli_refuses_them_in_one_line(cfgdir, capsys):
    from fieldapp.ui.app import main

    assert main(["--no-settings-file", "--simulate", "--rangefinder-protocol", "bogus",
                 "--quit-after", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["fieldapp: rangefinder_protocol 'bogus' unknown; rangefinder protocols: "
                   "trupulse, trupulse-200, laserace-trimble, laserace-mdl, vertex"]
