"""Where visits, settings and the log live (fieldapp.app.paths), on a simulated Windows.

platformdirs' Windows class is put in place of the Linux one and asked for its folders through
the environment (LOCALAPPDATA, APPDATA, USERPROFILE), as on a laptop whose shell folders are the
usual ones; the OneDrive case has Windows' shell put Documents in OneDrive.
"""

from __future__ import annotations

import json
from pathlib import Path

import platformdirs
import platformdirs.windows as pw
import pytest

from fieldapp.app import config as C
from fieldapp.app import paths


@pytest.fixture
def windows(tmp_path, monkeypatch):
    """A Windows profile under ``tmp_path``; returns its folders."""
    home = tmp_path / "Users" / "ann"
    local, roaming = home / "AppData" / "Local", home / "AppData" / "Roaming"
    for name in ("FIELDAPP_DATA_DIR", "FIELDAPP_CONFIG_DIR", "FIELDAPP_LOG_DIR", "OneDrive",
                 "OneDriveConsumer", "OneDriveCommercial"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("LOCALAPPDATA", str(local))
    monkeypatch.setenv("APPDATA", str(roaming))
    monkeypatch.setattr(platformdirs, "PlatformDirs", pw.Windows)
    monkeypatch.setattr(pw, "get_win_folder", pw.get_win_folder_from_env_vars)
    return {"home": home, "local": local, "roaming": roaming, "documents": home / "Documents"}


@pytest.fixture
def onedrive(windows, monkeypatch):
    """The same profile with Documents redirected into OneDrive (Windows' "back up folders")."""
    cloud = windows["home"] / "OneDrive"
    monkeypatch.setenv("OneDrive", str(cloud))

    def shell(name: str) -> str:
        if name == "CSIDL_PERSONAL":
            return str(cloud / "Documents")
        return pw.get_win_folder_from_env_vars(name)

    monkeypatch.setattr(pw, "get_win_folder", shell)
    return dict(windows, documents=cloud / "Documents", onedrive=cloud)


def test_windows_folders_are_local_app_data_never_roaming_or_documents(windows):
    local = windows["local"]
    assert paths.app_data_dir() == local / "fieldapp"
    assert paths.default_visits_dir() == local / "fieldapp" / "visits"
    assert paths.config_dir() == local / "fieldapp"
    assert C.config_file() == local / "fieldapp" / "config.json"
    assert paths.log_file() == local / "fieldapp" / "Logs" / "fieldapp.log"
    cfg = C.build({}, use_file=True, environ={})
    assert cfg.data_dir == str(local / "fieldapp" / "visits")
    for where in (cfg.data_dir, paths.config_dir(), paths.log_dir()):
        assert str(windows["roaming"]) not in str(where)
        assert str(windows["documents"]) not in str(where)


def test_onedrive_documents_never_hold_new_visits(onedrive):
    assert platformdirs.user_documents_path() == onedrive["documents"]   # the shell's answer
    cfg = C.build({}, use_file=False, environ={})
    assert Path(cfg.data_dir) == onedrive["local"] / "fieldapp" / "visits"
    assert not paths.in_onedrive(Path(cfg.data_dir) / "a.gpkg")
    old = onedrive["documents"] / "fieldapp" / "bank_2025-06-01_093000.gpkg"
    assert paths.in_onedrive(old)
    words = paths.onedrive_warning(old)
    assert words is not None and str(old) in words and "OneDrive" in words
    assert paths.onedrive_warning(Path(cfg.data_dir) / "a.gpkg") is None


def test_environment_folders_win(windows, tmp_path, monkeypatch):
    monkeypatch.setenv("FIELDAPP_DATA_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("FIELDAPP_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("FIELDAPP_LOG_DIR", str(tmp_path / "logs"))
    assert paths.default_visits_dir() == tmp_path / "mine"
    assert C.config_file() == tmp_path / "cfg" / "config.json"
    assert paths.log_file() == tmp_path / "logs" / "fieldapp.log"
    assert paths.earlier_config_dirs() == []


def test_earlier_visits_in_documents_are_found_not_moved(onedrive):
    old_dir = onedrive["documents"] / "fieldapp"
    old_dir.mkdir(parents=True)
    old = old_dir / "smith_lot_2025-06-01_093000.gpkg"
    old.write_bytes(b"SQLite format 3\x00")
    cfg = C.build({}, use_file=False, environ={})
    assert paths.earlier_visits_dir(cfg.data_dir) == old_dir
    # the Open visit dialog starts there while the new folder holds no visit...
    assert paths.open_dialog_folder(cfg.data_dir) == old_dir
    new_dir = Path(cfg.data_dir)
    new_dir.mkdir(parents=True)
    (new_dir / "n.gpkg").write_bytes(b"SQLite format 3\x00")
    # ...then in the new folder; with a visit open, in that visit's folder
    assert paths.open_dialog_folder(cfg.data_dir) == new_dir
    assert paths.open_dialog_folder(cfg.data_dir, old) == old_dir
    assert old.read_bytes() == b"SQLite format 3\x00" and sorted(old_dir.iterdir()) == [old]
    # a visits folder the user chose is theirs: no earlier folder is offered beside it
    assert paths.earlier_visits_dir(onedrive["home"] / "chosen") is None


def test_no_earlier_folder_without_visits_in_it(windows):
    (windows["documents"] / "fieldapp").mkdir(parents=True)
    (windows["documents"] / "fieldapp" / "notes.txt").write_text("x")
    assert paths.earlier_visits_dir(paths.default_visits_dir()) is None
    assert paths.open_dialog_folder(paths.default_visits_dir()) == paths.default_visits_dir()


def test_earlier_settings_are_read_until_the_next_save(windows):
    """An earlier fieldapp kept config.json in %LOCALAPPDATA%\\fieldapp\\fieldapp (platformdirs'
    author folder): it is read while the new file is missing, and the first save writes the new
    file with everything it held, the old one left as it was."""
    old_dir = windows["local"] / "fieldapp" / "fieldapp"
    assert paths.earlier_config_dirs() == [old_dir]
    old_dir.mkdir(parents=True)
    old_file = old_dir / "config.json"
    old_file.write_text(json.dumps({"gnss_url": "COM7", "crew": "Ann", "last_visit": "C:/v.gpkg"}))
    (old_dir / "secrets.json").write_text(json.dumps({"ntrip://ann@caster:2101/M": "pw1"}))
    assert C.settings_file_read() == old_file
    cfg = C.build({}, environ={})
    assert (cfg.gnss_url, cfg.crew) == ("COM7", "Ann")
    from fieldapp.app import secrets

    assert secrets._read_fallback() == {"ntrip://ann@caster:2101/M": "pw1"}
    written = C.remember(last_visit="C:/w.gpkg")
    assert written == windows["local"] / "fieldapp" / "config.json"
    data = json.loads(written.read_text())
    assert (data["gnss_url"], data["crew"], data["last_visit"]) == ("COM7", "Ann", "C:/w.gpkg")
    assert json.loads(old_file.read_text())["last_visit"] == "C:/v.gpkg"
    assert C.settings_file_read() == written


def test_linux_folders(tmp_path, monkeypatch):
    """On Linux the visits go to XDG_DATA_HOME, the log to XDG_STATE_HOME (no Documents)."""
    if platformdirs.PlatformDirs.__name__ != "Unix":
        pytest.skip("Linux only")
    for name in ("FIELDAPP_DATA_DIR", "FIELDAPP_CONFIG_DIR", "FIELDAPP_LOG_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert paths.default_visits_dir() == tmp_path / "share" / "fieldapp" / "visits"
    assert paths.config_dir() == tmp_path / "config" / "fieldapp"
    assert paths.log_file() == tmp_path / "state" / "fieldapp" / "log" / "fieldapp.log"
    assert paths.earlier_config_dirs() == []
