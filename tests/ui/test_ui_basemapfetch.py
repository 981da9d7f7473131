"""The basemap dialog's tile URL box never shows a ``user:password@`` password (issue 31, item
12): the box reads ``crew:•••@``, the fetch gets the whole URL."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")


def _dialog(qtbot, tmp_path: Path):
    from fieldapp.ui.basemapfetch import BasemapFetchDialog

    dlg = BasemapFetchDialog(tmp_path / "lot.mbtiles", (43.07, -89.40))
    qtbot.addWidget(dlg)
    dlg.zoom_from.setValue(15)
    dlg.zoom_to.setValue(15)
    dlg.radius.setValue(100.0)
    return dlg


def test_typed_password_is_masked_and_the_fetch_gets_it(qtbot, tmp_path, monkeypatch):
    import fieldapp.ui.basemapfetch as mod
    from fieldapp.basemap.fetch import FetchRefused

    got: list[str] = []

    def fake_fetch(url, *_a, **_k):
        got.append(url)
        raise FetchRefused("stopped by the test")

    monkeypatch.setattr(mod, "fetch", fake_fetch)
    dlg = _dialog(qtbot, tmp_path)
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.url.setFocus()
    qtbot.keyClicks(dlg.url, "https://crew:pa%40ss@tiles.example.org/{z}/{x}/{y}.png")
    assert dlg.url.text() == "https://crew:•••@tiles.example.org/{z}/{x}/{y}.png"
    dlg.grab().save(str(tmp_path / "dialog.png"))
    dlg.begin()
    qtbot.waitUntil(lambda: dlg.start.isEnabled(), timeout=10_000)
    assert got == ["https://crew:pa%40ss@tiles.example.org/{z}/{x}/{y}.png"]
    assert "stopped by the test" in dlg.state.text() and "pa%40ss" not in dlg.state.text()
    # a pasted URL too; a box edited to another server keeps the password with its user name
    dlg.url.setText("https://ann:hunter2@a.example.org/{z}/{x}/{y}.png")
    assert dlg.url.text() == "https://ann:•••@a.example.org/{z}/{x}/{y}.png"
    dlg.url.setText(dlg.url.text().replace("a.example.org", "b.example.org"))
    assert dlg.tile_url() == "https://ann:hunter2@b.example.org/{z}/{x}/{y}.png"
    # without the mask the kept password is forgotten
    dlg.url.setText("https://b.example.org/{z}/{x}/{y}.png")
    assert dlg.tile_url() == "https://b.example.org/{z}/{x}/{y}.png"
    dlg.url.setText("https://ann:•••@b.example.org/{z}/{x}/{y}.png")
    assert dlg.tile_url() == "https://ann:•••@b.example.org/{z}/{x}/{y}.png"


def test_password_over_http_refused_without_printing_it(qtbot, tmp_path):
    """The real fetch: over http:// the password is refused (nothing asked of the server) and
    the reason names neither the password nor shows it in the box."""
    from tests.basemap.test_basemap_fetch import TileServer

    server = TileServer()
    try:
        dlg = _dialog(qtbot, tmp_path)
        dlg.url.setText(server.url.replace("http://", "http://crew:s3cret@"))
        assert "s3cret" not in dlg.url.text() and "crew:•••@127.0.0.1" in dlg.url.text()
        dlg.begin()
        qtbot.waitUntil(lambda: dlg.start.isEnabled(), timeout=10_000)
        assert "https://" in dlg.state.text() and "s3cret" not in dlg.state.text()
        assert server.requests == [] and dlg.result_path is None
    finally:
        server.close()
