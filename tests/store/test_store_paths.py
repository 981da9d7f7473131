"""fieldapp.store.paths: SQLite URIs, long paths, network drives, safe names, write probes.

Windows' rules are checked on Linux through the functions' ``windows`` parameter and
``PureWindowsPath`` inputs; the network-drive check through a monkeypatched ``GetDriveTypeW``
and a stand-in ``/proc/self/mounts``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from pathlib import Path, PureWindowsPath

import pytest

from fieldapp.store import VisitOnNetworkDrive, create_visit, gpkg, inspect, open_visit, paths
from fieldapp.store.paths import (
    MAX_PATH,
    PathTooLong,
    can_write_file,
    can_write_folder,
    check_path_length,
    is_remote,
    is_reserved_name,
    long_path,
    safe_file_name,
    sqlite_uri,
)
from fieldapp.survey import Visit
from fieldapp.sync.files import connect as sync_connect

ON_WINDOWS = os.name == "nt"
#: names that cannot exist on Windows ('?' in a name; a trailing dot is dropped by Windows)
NOT_A_WINDOWS_NAME = pytest.mark.skipif(ON_WINDOWS, reason="Windows refuses '?' in a file name and"
                                        " drops a trailing dot: no such file to open there")
LINUX_MOUNTS = pytest.mark.skipif(ON_WINDOWS, reason="Linux's mount table (/proc/self/mounts);"
                                  " Windows asks GetDriveTypeW, tested by the drive-type test")

ODD = "Łąka #1 ?50% a.gpkg"     # every character a URI must encode


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_visit(path: Path, trees: int = 2) -> Path:
    v = Visit.new("Łąka – Wisła", crs="EPSG:3070", who="t")
    store = create_visit(path, v)
    x0, y0 = (float(c) for c in v.frame.to_local(-89.4, 43.07))
    for i in range(trees):
        v.add_tree(x=x0 + 3 * i, y=y0, dbh_in=10 + i)
    store.close()
    return path


# ---------------------------------------------------------------- SQLite URIs
@pytest.mark.parametrize("path, uri", [
    (r"C:\x\v.gpkg", "file:///C:/x/v.gpkg?mode=ro"),
    (r"N:\Office\sites\v.gpkg", "file:///N:/Office/sites/v.gpkg?mode=ro"),       # drive kept
    (r"\\server\share\v.gpkg", "file:////server/share/v.gpkg?mode=ro"),
    (r"\\?\UNC\server\share\v.gpkg", "file:////server/share/v.gpkg?mode=ro"),
    (r"\\?\C:\x\v.gpkg", "file:///C:/x/v.gpkg?mode=ro"),
    ("C:/x/old/../v.gpkg", "file:///C:/x/v.gpkg?mode=ro"),
    (r"C:\Łąka – Wisła\a #1?50%.gpkg",
     "file:///C:/%C5%81%C4%85ka%20%E2%80%93%20Wis%C5%82a/a%20%231%3F50%25.gpkg?mode=ro"),
])
def test_windows_uri_is_the_form_sqlite_documents(path, uri):
    assert sqlite_uri(PureWindowsPath(path), windows=True, mode="ro") == uri
    assert sqlite_uri(path, windows=True, mode="ro") == uri


def test_resolve_as_uri_was_wrong_for_a_share():
    # what the code did: SQLite on Windows refuses this ("invalid uri authority")
    assert PureWindowsPath(r"\\server\share\v.gpkg").as_uri() == "file://server/share/v.gpkg"
    assert not sqlite_uri(r"\\server\share\v.gpkg", windows=True).startswith("file://server")


def test_posix_uri_and_params():
    assert sqlite_uri("/d/a b.gpkg", windows=False, mode="ro", immutable=1) == \
        "file:///d/a%20b.gpkg?mode=ro&immutable=1"
    assert sqlite_uri("//d/x.gpkg", windows=False) == "file:///d/x.gpkg"   # never an authority


@pytest.mark.parametrize("name", [pytest.param(ODD, marks=NOT_A_WINDOWS_NAME), ODD.replace("?", "")])
def test_a_real_file_with_odd_characters_opens_read_only(tmp_path, name):
    folder = tmp_path / "Łąka – Wisła"
    folder.mkdir()
    path = make_visit(folder / name)
    before = sha(path)
    uri = sqlite_uri(path, mode="ro")
    assert "%23" in uri and "%25" in uri and "%C5%81" in uri and ("%3F" in uri) == ("?" in name)
    with sqlite3.connect(uri, uri=True) as conn:   # mode=ro really applies: nothing can be written
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("CREATE TABLE x (a)")
    conn.close()
    assert inspect(path)["application"] == "fieldapp"
    with open_visit(path, readonly=True) as store:
        assert len(store.visit.trees()) == 2
    conn = sync_connect(path, readonly=True)
    try:
        assert conn.execute("SELECT count(*) FROM tree").fetchone()[0] == 2
    finally:
        conn.close()
    assert sha(path) == before
    assert sorted(p.name for p in folder.iterdir()) == [name]   # no stray file of a mangled name


def test_no_path_becomes_a_uri_any_other_way():
    root = Path(gpkg.__file__).parent.parent
    users = [str(p.relative_to(root)) for p in root.rglob("*.py")
             if "as_uri(" in p.read_text(encoding="utf-8") and p.name != "paths.py"]
    assert users == []


# ---------------------------------------------------------------- long paths (pygeodiff)
@pytest.mark.parametrize("path, long", [
    (r"\\server\share\a.gpkg", r"\\?\UNC\server\share\a.gpkg"),
    (r"N:\sites\a.gpkg", r"\\?\N:\sites\a.gpkg"),
    ("C:/x/./y/../a.gpkg", r"\\?\C:\x\a.gpkg"),
    (r"\\?\UNC\server\share\a.gpkg", r"\\?\UNC\server\share\a.gpkg"),
])
def test_long_path_form(path, long):
    assert long_path(PureWindowsPath(path), windows=True) == long
    assert long_path("/tmp/a b.gpkg", windows=False) == "/tmp/a b.gpkg"


def test_path_length_limit_named():
    short = "C:\\" + "d" * 200 + "\\v.gpkg"
    check_path_length(short, "the office folder", windows=True)
    deep = "C:\\" + "\\".join(["folder" * 8] * 6) + "\\v.gpkg"
    assert len(deep) >= MAX_PATH
    with pytest.raises(PathTooLong, match="the office folder is too deep for Windows: a path in it would be"
                                          " 3.. characters long, over Windows' limit of 259"):
        check_path_length(deep, "the office folder", windows=True)
    check_path_length("/" + "d" * 400, "the office folder", windows=False)   # Linux has no such limit


# ---------------------------------------------------------------- network drives
def test_share_and_network_drive_are_remote(monkeypatch):
    asked = []
    monkeypatch.setattr(paths, "_drive_type", lambda root: asked.append(root) or (4 if root == "N:\\" else 3))
    assert is_remote(PureWindowsPath(r"\\server\share\office\master.gpkg"), windows=True)
    assert is_remote(r"\\?\UNC\server\share\v.gpkg", windows=True)
    assert is_remote(PureWindowsPath(r"N:\office\master.gpkg"), windows=True)
    assert not is_remote(PureWindowsPath(r"C:\Users\crew\visits\v.gpkg"), windows=True)
    assert asked == ["N:\\", "C:\\"]


@LINUX_MOUNTS
def test_linux_network_mounts_are_remote(tmp_path, monkeypatch):
    mounts = tmp_path / "mounts"
    mounts.write_text("/dev/sda1 / ext4 rw 0 0\n"
                      "server:/export /mnt/office nfs4 rw 0 0\n"
                      "//server/share /mnt/crew\\040share cifs rw 0 0\n"
                      "tmpfs /mnt/office/tmp tmpfs rw 0 0\n")
    monkeypatch.setattr(paths, "MOUNTS", str(mounts))
    assert is_remote("/mnt/office/sites/master.gpkg", windows=False)
    assert is_remote("/mnt/crew share/v.gpkg", windows=False)
    assert not is_remote("/mnt/officeX/v.gpkg", windows=False)
    assert not is_remote("/mnt/office/tmp/v.gpkg", windows=False)   # the deeper mount wins
    assert not is_remote("/home/crew/v.gpkg", windows=False)


def test_a_visit_is_not_recorded_on_a_network_drive(tmp_path, monkeypatch):
    path = make_visit(tmp_path / "v.gpkg")
    before = sha(path)
    monkeypatch.setattr(gpkg, "is_remote", lambda p: True)
    with pytest.raises(VisitOnNetworkDrive, match="record visits on this laptop's own disk; copy or sync"):
        open_visit(path)
    with pytest.raises(VisitOnNetworkDrive, match="network drive"):
        create_visit(tmp_path / "new.gpkg", Visit.new("x", crs="EPSG:3070"))
    assert not (tmp_path / "new.gpkg").exists()
    with open_visit(path, readonly=True) as store:       # viewing, report, export still work
        assert len(store.visit.trees()) == 2
    assert sha(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.gpkg"]


# ---------------------------------------------------------------- names
@pytest.mark.parametrize("text, name", [
    ("CON", "_CON"), ("con", "_con"), ("Nul.gpkg", "_Nul.gpkg"), ("aux.tar.gz", "_aux.tar.gz"),
    ("PRN ", "_PRN"), ("COM1", "_COM1"), ("lpt9.txt", "_lpt9.txt"), ("COM\u00b9", "_COM\u00b9"),
    ("CON .txt", "_CON .txt"),
    ("COM10", "COM10"), ("CONSOLE", "CONSOLE"), ("Connor's lot", "Connor's lot"),
    ("site.", "site"), ("site. . ", "site"), ("  site  ", "site"),
    ('a:b*c?d"e<f>g|h\\i/j', "a_b_c_d_e_f_g_h_i_j"), ("tab\there\x7f", "tab_here_"),
    ("Łąka – Wisła", "Łąka – Wisła"), ("Wisła, 3 May", "Wisła, 3 May"),
    ("", "visit"), ("...", "visit"), ("///", "visit"),
])
def test_safe_file_name(text, name):
    assert safe_file_name(text) == name
    assert not is_reserved_name(name) and name == name.rstrip(". ")


def test_safe_file_name_is_bounded():
    assert len(safe_file_name("Ł" * 300)) == 80


# ---------------------------------------------------------------- write probes
def test_write_probes_try_for_real(tmp_path, monkeypatch):
    f = tmp_path / "v.gpkg"
    f.write_bytes(b"data")
    before = os.stat(f).st_mtime_ns
    assert can_write_file(f) and can_write_folder(tmp_path)
    assert f.read_bytes() == b"data" and os.stat(f).st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.gpkg"]       # the probe file is gone
    assert not can_write_file(tmp_path / "missing.gpkg")                  # never created
    assert not (tmp_path / "missing.gpkg").exists()
    assert not can_write_folder(tmp_path / "missing")

    def denied(*a, **k):   # what Windows says for an access list that denies writing
        raise PermissionError(13, "Access is denied")
    monkeypatch.setattr(paths.os, "open", denied)
    monkeypatch.setattr(paths.tempfile, "mkstemp", denied)
    assert not can_write_file(f) and not can_write_folder(tmp_path)


def test_recording_refused_when_only_the_real_attempt_fails(tmp_path, monkeypatch):
    # os.access says yes (Windows ignores access lists there); the real attempt says no
    path = make_visit(tmp_path / "v.gpkg")
    before = sha(path)
    monkeypatch.setattr(gpkg, "can_write_folder", lambda folder: False)
    with pytest.raises(gpkg.ReadOnlyVisitFile, match="is read-only"):
        open_visit(path)
    assert sha(path) == before


@pytest.mark.parametrize("text, name", [
    # what Windows reserves besides CON..LPT9 (Python 3.13's ntpath.isreserved agrees): the
    # console's own names, superscript digits, spaces before the extension, any case
    ("CONIN$", "_CONIN$"), ("conout$.txt", "_conout$.txt"), ("lpt\u00b3", "_lpt\u00b3"),
    ("COM\u00b2 .gpkg", "_COM\u00b2 .gpkg"), ("NUL.", "_NUL"), ("aux . .", "_aux"),
    # not reserved: COM0/LPT0 (RtlIsDosDeviceName_U takes 1-9 and the superscripts only), a
    # leading space, a full-width digit
    ("COM0", "COM0"), ("LPT0.txt", "LPT0.txt"), (" CON", "_CON"), ("COM\uff11", "COM\uff11"),
    # NFD typed (macOS, some keyboards) is stored NFC: one file, not two that look alike
    ("Wis\u0142a Z\u0301", "Wis\u0142a \u0179"),
])
def test_safe_file_name_windows_rules(text, name):
    assert safe_file_name(text) == name


def test_safe_file_name_is_bounded_in_bytes_too():
    assert len(safe_file_name("🌲" * 80).encode("utf-8")) == 200          # 50 whole emoji
    assert safe_file_name("林" * 80) == "林" * 66                           # 198 bytes
    assert safe_file_name("ab" * 99 + ". é", max_chars=300) == "ab" * 99   # no trailing '.' left


@LINUX_MOUNTS
def test_mounts_unreadable_or_odd_count_as_local_and_never_raise(tmp_path, monkeypatch):
    """/proc/self/mounts missing (a container without /proc) or holding odd lines: what cannot be
    told counts as local, never an exception; an escaped tab or backslash in a mount point is
    read as the character."""
    monkeypatch.setattr(paths, "MOUNTS", str(tmp_path / "no-such-file"))
    assert not is_remote("/mnt/office/master.gpkg", windows=False)
    mounts = tmp_path / "mounts"
    mounts.write_bytes(b"garbage\n\n/dev/sda1 / ext4 rw 0 0\n"
                       b"//srv/s /mnt/a\\011b\\134c cifs rw 0 0\n"
                       b"//srv/t /mnt/\xff cifs rw 0 0\n")
    monkeypatch.setattr(paths, "MOUNTS", str(mounts))
    assert is_remote("/mnt/a\tb\\c/v.gpkg", windows=False)
    assert not is_remote("/mnt/a/v.gpkg", windows=False)


@pytest.mark.parametrize("name", ["a&mode=rw.gpkg", "x=1&y.gpkg",
                                  pytest.param("q?mode=memory.gpkg", marks=NOT_A_WINDOWS_NAME),
                                  "%2F.gpkg", "a+b.gpkg", "🌲 lot.gpkg", "Wis\u0142a e\u0301.gpkg",
                                  pytest.param("trail.", marks=NOT_A_WINDOWS_NAME)])
def test_names_that_look_like_uri_syntax_open_the_file_itself_read_only(tmp_path, name):
    """A file name holding a query ('&mode=rw', '?mode=memory'), an escape ('%2F'), a '+', an
    emoji or NFD letters opens that very file, read-only, and makes no other file."""
    path = tmp_path / name
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("CREATE TABLE t (a)")
    with contextlib.closing(sqlite3.connect(sqlite_uri(path, mode="ro"), uri=True)) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("CREATE TABLE x (a)")
    assert [p.name for p in tmp_path.iterdir()] == [name]
