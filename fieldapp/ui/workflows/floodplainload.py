"""The Boundary tab's "Load floodplain from file…": a floodplain (F-1 district) from a
GeoPackage, Shapefile or GeoJSON instead of walked (:mod:`fieldapp.app.floodplainfile`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFileDialog, QLabel, QPushButton, QVBoxLayout, QWidget

__all__ = ["FloodplainLoad"]

#: The file dialog's filter.
FILE_FILTER = "Floodplain polygons (*.gpkg *.shp *.geojson *.json);;All files (*)"


class FloodplainLoad:
    """A button on the Boundary panel, shown while Kind is Floodplain; the polygons of the
    chosen file are added as floodplain areas labelled with the panel's Label (else the file's
    name); the outcome under the button (a refusal, in field words, also on the banner)."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.button = QPushButton("Load floodplain from file…")
        self.button.setObjectName("loadFloodplain")
        self.button.setToolTip("Polygons of the F-1 district from a GeoPackage, Shapefile or GeoJSON; "
                               "reprojected to the site's coordinate system")
        self.button.clicked.connect(lambda: self.load())
        self.outcome = QLabel("")
        self.outcome.setObjectName("floodplainLoaded")
        self.outcome.setWordWrap(True)
        #: the button and its outcome line, for the panel's layout
        self.widget = QWidget()
        box = QVBoxLayout(self.widget)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.button)
        box.addWidget(self.outcome)
        panel.kind.currentIndexChanged.connect(lambda _i: self.follow_kind())
        self.follow_kind()

    def follow_kind(self) -> None:
        """Shown while the panel's Kind is Floodplain."""
        self.widget.setVisible(self.panel.kind.currentData() == "floodplain")

    def load(self, path: str | None = None) -> bool:
        """Load ``path`` (None: ask with a file dialog); True when areas were added."""
        from fieldapp.app.floodplainfile import FloodplainFileError, load_floodplains

        visit = self.panel.visit
        if visit is None:
            return False
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.panel, "Load a floodplain", "", FILE_FILTER)
            if not path:
                return False
        try:
            _added, words = load_floodplains(visit.model, path, self.panel.label.text())
        except FloodplainFileError as exc:
            self.panel.error(f"Floodplain not loaded: {exc}")
            self.outcome.setText(f"Floodplain not loaded: {exc}")
            return False
        self.panel.label.clear()
        self.outcome.setText(words)
        return True
