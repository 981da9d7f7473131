"""The plant list import: choose a CSV, say which column is which, load it (Data point tab).

The columns are listed from the file's header (:func:`fieldapp.rules.plantlist.read_header`)
with a first guess (:func:`~fieldapp.rules.plantlist.guess_mapping`: the NWPL export's
``Scientific Name``, ``Common Name`` and the region's ``NCNE`` / ``MW`` column); the crew
changes any of them, then *Load*. A list that cannot be loaded says why (the row and species)
and nothing changes; a loaded list is kept in the settings folder for the next runs
(:meth:`fieldapp.app.plantlist.PlantList.save`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app.plantlist import PlantList, from_loaded
from fieldapp.rules import plantlist as rules_plants
from fieldapp.rules.wetland_regions import REGIONS
from fieldapp.ui import theme

__all__ = ["PlantListDialog"]

NO_COMMON = "(no common name column)"


class PlantListDialog(QDialog):
    """Load a plant list from ``path`` (or a file chosen with *Choose file…*) for ``region``;
    :attr:`loaded` is the list once *Load* succeeded."""

    def __init__(self, parent: QWidget | None = None, *, path: str | Path | None = None,
                 region: str = "northcentral-northeast", recent: list[str] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Load plant list")
        self.setObjectName("plantListDialog")
        self.loaded: PlantList | None = None
        self.save_problem = ""      # loaded but not kept for the next run (why)
        self.path: Path | None = None
        self._recent = list(recent or [])
        lay = QVBoxLayout(self)
        intro = QLabel("The National Wetland Plant List export for your state (CSV), or any CSV with"
                       " scientific name, common name and indicator status columns.")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        self.file_button = QPushButton("Choose file…")
        self.file_button.setObjectName("chooseFile")
        self.file_button.setMinimumHeight(theme.TOUCH_PX)
        self.file_button.clicked.connect(self.choose_file)
        lay.addWidget(self.file_button)
        self.file_words = QLabel("No file chosen.")
        self.file_words.setObjectName("plantFile")
        self.file_words.setWordWrap(True)
        lay.addWidget(self.file_words)
        form = QFormLayout()
        self.region = QComboBox()
        self.region.setObjectName("plantRegion")
        for key, r in REGIONS.items():
            self.region.addItem(r.name, key)
        self.region.setCurrentIndex(max(self.region.findData(region), 0))
        self.region.currentIndexChanged.connect(lambda _i: self._guess())
        self.scientific = QComboBox()
        self.scientific.setObjectName("scientificColumn")
        self.common = QComboBox()
        self.common.setObjectName("commonColumn")
        self.status = QComboBox()
        self.status.setObjectName("statusColumn")
        for w in (self.region, self.scientific, self.common, self.status):
            w.setMinimumHeight(theme.TOUCH_PX)
        form.addRow("Region (for the NWPL status column)", self.region)
        form.addRow("Scientific name column", self.scientific)
        form.addRow("Common name column", self.common)
        form.addRow("Indicator status column", self.status)
        lay.addLayout(form)
        self.problem = QLabel("")
        self.problem.setObjectName("plantListProblem")
        self.problem.setProperty("role", "reason")
        self.problem.setWordWrap(True)
        lay.addWidget(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.load_button = buttons.addButton("Load", QDialogButtonBox.ButtonRole.AcceptRole)
        self.load_button.setObjectName("loadPlantList")
        self.load_button.setEnabled(False)
        self.load_button.clicked.connect(self.load)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        if path is not None:
            self.set_file(path)

    def choose_file(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Plant list (CSV)", "", "CSV files (*.csv *.txt);;All files (*)")
        if name:
            self.set_file(name)

    def set_file(self, path: str | Path) -> None:
        """Read ``path``'s header into the column lists (a first guess chosen)."""
        self.problem.setText("")
        try:
            header = rules_plants.read_header(path)
        except rules_plants.PlantListError as exc:
            self.problem.setText(str(exc))
            self.load_button.setEnabled(False)
            return
        self.path = Path(path)
        self.file_words.setText(f"{self.path.name}: {len(header)} columns")
        for combo in (self.scientific, self.status):
            combo.clear()
            combo.addItems(header)
        self.common.clear()
        self.common.addItem(NO_COMMON)
        self.common.addItems(header)
        self._header = header
        self._guess()
        self.load_button.setEnabled(True)

    def _guess(self) -> None:
        header = getattr(self, "_header", None)
        if not header:
            return
        guess = rules_plants.guess_mapping(header, self.region.currentData())
        if guess is None:
            self.problem.setText("Say which column is which: the names were not recognised.")
            return
        self.scientific.setCurrentText(guess.scientific)
        self.status.setCurrentText(guess.status)
        self.common.setCurrentText(guess.common or NO_COMMON)

    def mapping(self) -> Any:
        common = self.common.currentText()
        return rules_plants.ColumnMapping(scientific=self.scientific.currentText(), status=self.status.currentText(),
                                          common=None if common == NO_COMMON else common)

    def load(self) -> None:
        """Load with the columns chosen; kept in the settings folder. A refusal is shown and the
        dialog stays open."""
        if self.path is None:
            return
        try:
            loaded = rules_plants.load_plant_list(self.path, self.mapping())
        except rules_plants.PlantListError as exc:
            self.problem.setText(str(exc))
            return
        plants = from_loaded(loaded, self._recent)
        try:
            plants.save()
        except OSError as exc:
            self.save_problem = f"Plant list loaded for this run only: it could not be kept ({exc})"
        self.loaded = plants
        self.accept()
