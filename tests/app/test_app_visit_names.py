"""A new visit's file name is made from the site name the crew typed: Windows must accept it,
and the crew must still read it (issue 28)."""

from __future__ import annotations

import re

import pytest

from fieldapp.app.visit import new_visit_path
from fieldapp.store.paths import is_reserved_name

STAMP = r"_\d{4}-\d\d-\d\d_\d{6}\.gpkg"


@pytest.mark.parametrize("site, stem", [
    ("Łąka – Wisła", "Łąka – Wisła"),
    ("Smith lot, north", "Smith lot, north"),
    ("a/b\\c:d*e?f\"g<h>i|j", "a_b_c_d_e_f_g_h_i_j"),
    ("CON", "_CON"),
    ("lot 7.", "lot 7"),
    ("", "visit"),
    (None, "visit"),
])
def test_new_visit_path_from_a_site_name(tmp_path, site, stem):
    path = new_visit_path(tmp_path, site)
    assert path.parent == tmp_path
    assert re.fullmatch(re.escape(stem) + STAMP, path.name), path.name
    assert not is_reserved_name(path.name) and not path.stem.endswith((".", " "))
    path.write_bytes(b"")          # a name this file system takes as it is
    assert path.exists()


@pytest.mark.parametrize("site", ["林" * 80, "🌲" * 80], ids=["chinese", "emoji"])
def test_a_long_site_name_in_any_script_makes_a_file_linux_accepts(tmp_path, site):
    """80 characters of a script beyond Latin are more than Linux's 255 bytes of a file name (80
    Chinese characters 240 bytes, 80 emoji 320, before the time stamp): the new visit could not
    be made ("File name too long"). The name is cut to 200 bytes in UTF-8, whole characters."""
    path = new_visit_path(tmp_path, site)
    stem = path.name[: -len("_2026-12-07_145302.gpkg")]
    assert site.startswith(stem) and len(stem.encode("utf-8")) <= 200
    assert len(stem.encode("utf-8")) > 196        # as much of the name as fits is kept
    path.write_bytes(b"")
    (tmp_path / (path.name + "-journal")).write_bytes(b"")   # SQLite's sidecar fits too
