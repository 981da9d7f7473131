"""Plot workflow (the "Plot" tab, Ctrl+7): a wetland determination data point placed at the GNSS fix or a map
click, named, given its side (wetland / upland), paired across a walked wetland boundary, and
its data form typed: vegetation by stratum with a species picker over the loaded plant list,
the hydrology and hydric soil checklists of the region's supplement, the soil profile. The
determination (:func:`fieldapp.rules.wetland_form.determine`) updates as the crew types, each
verdict with how it was reached.

Every change is kept at once (one undoable command; Ctrl+Z in the Records tab takes it back);
the app layer is :class:`fieldapp.app.datapoints.DataPointDesk`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app.datapoints import ROLES, DataPointDesk, Outcome
from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.plantlist import PlantList
from fieldapp.app.recording import Recording
from fieldapp.rules.wetland_form import species_key
from fieldapp.rules.wetland_regions import REGIONS, STRATA, STRATUM_NAMES
from fieldapp.ui import theme
from fieldapp.ui.notices import Notices
from fieldapp.ui.recordgate import RecordGate
from fieldapp.ui.theme import touch_rows
from fieldapp.ui.workflows.base import (
    WorkflowPanel,
    add_field,
    big_button,
    field_grid,
    state_label,
)

if TYPE_CHECKING:
    from fieldapp.ui.simsupport import SimulatedSurveyor

#: Depths the form records (inches; blank = not observed).
DEPTHS = (("surface_water_in", "Surface water depth"), ("water_table_in", "Water table depth"),
          ("saturation_in", "Saturation depth"))
PROFILE_COLUMNS = (("depth_in", "Depth (in)"), ("matrix", "Matrix colour (moist)"),
                   ("redox", "Redox features (colour, %)"), ("texture", "Texture"))
#: How long after the last change the form is kept (ms): one command per burst of typing.
SAVE_AFTER_MS = 250


def _mark(value: bool | None) -> str:
    return "–" if value is None else ("YES" if value else "no")


class DataPointPanel(WorkflowPanel):
    """Place, pair and fill in wetland determination data points."""

    title = "Plot"      # the tab: short, seven tabs on a 1024 px tablet

    def __init__(self, *, recording: Recording, devices: DeviceFeed, gate: RecordGate, notices: Notices,
                 surveyor: Callable[[], SimulatedSurveyor | None], parent: Any = None) -> None:
        super().__init__(recording=recording, gate=gate, notices=notices, parent=parent)
        self.devices = devices
        self._sim_surveyor = surveyor
        self.plants = PlantList.load_saved()
        self._sample_tried = False      # the demo's SAMPLE list offered once (simulate, no list)
        self.current: str | None = None         # the data point shown (uuid)
        self._form: dict[str, Any] = {}         # its form as last loaded or kept
        self._shown_json: str | None = None     # its form_json then (an undo elsewhere reloads)
        self._click_waits = False
        self._loading = False
        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(SAVE_AFTER_MS)
        self._save_timer.timeout.connect(self.save_form)
        lay = self.body_layout
        self.state = state_label("Place a data point at the receiver or at a map click.")
        self.state.setObjectName("dataPointState")
        lay.addWidget(self.state)
        lay.addWidget(self._point_box())
        self.verdict = QLabel("")       # the determination in one line, in view while typing
        self.verdict.setObjectName("determinationLine")
        self.verdict.setWordWrap(True)
        lay.addWidget(self.verdict)
        lay.addWidget(self._vegetation_box())
        lay.addWidget(self._hydrology_box())
        lay.addWidget(self._soil_box())
        self.determination = QLabel("")
        self.determination.setObjectName("determination")
        self.determination.setWordWrap(True)
        self.determination.setTextFormat(Qt.TextFormat.RichText)
        det_box = QGroupBox("Determination")
        QVBoxLayout(det_box).addWidget(self.determination)
        lay.addWidget(det_box)
        lay.addStretch(1)
        gate.register(self.place_button)
        self._region_changed_fields()
        self.refresh()

    # ================================================================== layout
    def _point_box(self) -> QGroupBox:
        box = QGroupBox("Data point")
        g = field_grid()
        g.setContentsMargins(9, 4, 9, 9)
        box.setLayout(g)
        self.points = QComboBox()
        self.points.setObjectName("dataPoints")
        self.points.setMinimumHeight(theme.TOUCH_PX)
        self.points.currentIndexChanged.connect(self._point_chosen)
        self.name = QLineEdit()
        self.name.setObjectName("dataPointName")
        self.name.setPlaceholderText("e.g. DP-1")
        self.name.setToolTip("The data point's name on the form; a new point gets the next DP number")
        self.name.editingFinished.connect(self._name_changed)
        self.role = QComboBox()
        self.role.setObjectName("roleCombo")
        for value, words in ROLES:
            self.role.addItem(words, value)
        self.role.currentIndexChanged.connect(self._role_changed)
        self.region = QComboBox()
        self.region.setObjectName("regionCombo")
        for key, r in REGIONS.items():
            self.region.addItem(r.name, key)
        self.region.currentIndexChanged.connect(self._region_changed)
        self.boundary = QComboBox()
        self.boundary.setObjectName("boundaryCombo")
        self.partner = QComboBox()
        self.partner.setObjectName("partnerCombo")
        add_field(g, 0, 0, "Data point", self.points, span=2)
        add_field(g, 1, 0, "Name", self.name)
        add_field(g, 1, 1, "Side", self.role)
        self.region.setAccessibleName("Region (supplement)")
        self.region_note = QLabel("")       # what a region change kept and dropped, under it
        self.region_note.setObjectName("regionNote")
        self.region_note.setProperty("role", "state")
        self.region_note.setWordWrap(True)
        region_cell = QWidget()
        rv = QVBoxLayout(region_cell)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(self.region)
        rv.addWidget(self.region_note)
        self.region_note.setVisible(False)
        add_field(g, 2, 0, "Region (supplement)", region_cell, span=2).setBuddy(self.region)
        add_field(g, 3, 0, "Boundary it supports", self.boundary)
        add_field(g, 3, 1, "Paired with", self.partner)
        self.new_role = QComboBox()
        self.new_role.setObjectName("newRoleCombo")
        for value, words in ROLES:
            self.new_role.addItem(words, value)
        self.new_role.setToolTip("The side of the next data point placed")
        add_field(g, 4, 0, "Next point's side", self.new_role, span=2)
        self.place_button = big_button("Place at receiver", "G", "A new data point at the GNSS position")
        self.place_button.setObjectName("placeDataPoint")
        self.click_button = big_button("Place at map click", "K", "The next click on the map places it")
        self.click_button.setObjectName("placeAtClick")
        self.pair_button = big_button("Pair", "Ctrl+P", "Pair this point with the one chosen across the boundary")
        self.pair_button.setObjectName("pairDataPoints")
        self.delete_button = big_button("Delete point", "Ctrl+Del", "Delete this data point (Ctrl+Z brings it back)")
        self.delete_button.setObjectName("deleteDataPoint")
        row = QHBoxLayout()
        for b in (self.place_button, self.click_button):
            row.addWidget(b, 1)
        row2 = QHBoxLayout()
        for b in (self.pair_button, self.delete_button):
            row2.addWidget(b, 1)
        g.addLayout(row, 10, 0, 1, 2)
        g.addLayout(row2, 11, 0, 1, 2)
        self.bind("G", self.place_here, self.place_button)
        self.bind("K", self.place_at_click, self.click_button)
        self.bind("Ctrl+P", self.pair, self.pair_button)
        self.bind("Ctrl+Del", self.delete, self.delete_button)
        return box

    def _vegetation_box(self) -> QGroupBox:
        box = QGroupBox("Vegetation (absolute % cover; plot radius per stratum)")
        v = QVBoxLayout(box)
        sizes = field_grid()
        self.plot_sizes: dict[str, QDoubleSpinBox] = {}
        for i, s in enumerate(STRATA):
            spin = QDoubleSpinBox()
            spin.setObjectName(f"plot_{s}")
            spin.setRange(0.0, 500.0)
            spin.setDecimals(0)
            spin.setSuffix(" ft")
            spin.setAccessibleName(f"{STRATUM_NAMES[s]} plot radius")
            spin.setToolTip(f"{STRATUM_NAMES[s]}: plot radius (the supplement's size; change it if the plot differs)")
            spin.valueChanged.connect(self._changed)
            self.plot_sizes[s] = spin
            add_field(sizes, i // 2, i % 2, f"{STRATUM_NAMES[s].replace(' Stratum', '')} plot radius", spin)
        v.addLayout(sizes)
        pick = QGridLayout()
        self.stratum = QComboBox()
        self.stratum.setObjectName("stratumCombo")
        for s in STRATA:
            self.stratum.addItem(STRATUM_NAMES[s], s)
        self.stratum.setCurrentIndex(STRATA.index("herb"))
        self.search = QLineEdit()
        self.search.setObjectName("speciesSearch")
        self.search.setAccessibleName("Species")
        self.search.setPlaceholderText("scientific or common name, e.g. cattail")
        self.search.setMinimumHeight(theme.TOUCH_PX)
        self.search.textChanged.connect(self._search_changed)
        self.cover = QSpinBox()
        self.cover.setObjectName("coverSpin")
        self.cover.setRange(0, 100)
        self.cover.setSuffix(" %")
        self.cover.setAccessibleName("Cover")
        self.add_button = big_button("Add species", "Ctrl+Return", "Add the species picked (or typed) with its cover")
        self.add_button.setObjectName("addSpecies")
        pick.addWidget(QLabel("Stratum"), 0, 0)
        pick.addWidget(QLabel("Cover"), 0, 1)
        pick.addWidget(self.stratum, 1, 0)
        pick.addWidget(self.cover, 1, 1)
        pick.addWidget(QLabel("Species (search the plant list)"), 2, 0, 1, 2)
        pick.addWidget(self.search, 3, 0, 1, 2)
        self.match_words = QLabel("")      # whether the species typed is on the list
        self.match_words.setObjectName("speciesMatch")
        self.match_words.setWordWrap(True)
        pick.addWidget(self.match_words, 4, 0, 1, 2)
        pick.addWidget(self.add_button, 5, 0, 1, 2)
        pick.setColumnStretch(0, 1)
        v.addLayout(pick)
        self.picker = QListWidget()
        self.picker.setObjectName("speciesPicker")
        self.picker.setMaximumHeight(4 * (theme.TOUCH_PX + 4) + 4)
        self.picker.itemClicked.connect(self._picked)
        v.addWidget(self.picker)
        self.list_words = QLabel("")
        self.list_words.setObjectName("plantListWords")
        self.list_words.setProperty("role", "state")
        self.list_words.setWordWrap(True)
        load = QPushButton("Load plant list…")
        load.setObjectName("loadPlantListButton")
        load.setMinimumHeight(theme.TOUCH_PX)
        load.setToolTip("Load the National Wetland Plant List export (or any CSV);"
                        " the import asks which column is which")
        load.clicked.connect(lambda _c=False: self.load_plant_list())
        words_row = QHBoxLayout()
        words_row.addWidget(self.list_words, 1)
        words_row.addWidget(load)
        v.addLayout(words_row)
        self.species = QTableWidget(0, 4)
        self.species.setObjectName("speciesTable")
        self.species.setHorizontalHeaderLabels(["Stratum", "Species", "Status", "Cover %"])
        self.species.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.species.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.species.setMinimumHeight(5 * theme.TOUCH_PX)
        touch_rows(self.species)
        self.species.itemChanged.connect(self._table_edited)
        v.addWidget(self.species)
        self.remove_button = QPushButton("Remove species row")
        self.remove_button.setObjectName("removeSpecies")
        self.remove_button.setMinimumHeight(theme.TOUCH_PX)
        self.remove_button.clicked.connect(self._remove_species)
        self.prob_veg = QCheckBox("Problematic vegetation")
        self.prob_veg.setToolTip("Problematic hydrophytic vegetation (explain in the notes)")
        self.prob_veg.setObjectName("problematicVegetation")
        self.prob_veg.toggled.connect(self._changed)
        v.addWidget(self.remove_button)
        v.addWidget(self.prob_veg)
        self.bind("Ctrl+Return", self.add_species, self.add_button)
        return box

    def _checklist(self, title: str, prefix: str) -> tuple[QGroupBox, dict[str, dict[str, QCheckBox]]]:
        """A group of one checkbox per code of every region (the other region's hidden)."""
        box = QGroupBox(title)
        grid = QGridLayout(box)
        out: dict[str, dict[str, QCheckBox]] = {}
        n = 0
        for key, r in REGIONS.items():
            codes = {"primary": r.primary, "secondary": r.secondary, "soil": {**r.hydric_soil},
                     "soil_problematic": {**r.problematic_soil}}[prefix]
            out[key] = {}
            for i, (code, name) in enumerate(codes.items()):
                cb = QCheckBox(f"{code}  {name}")
                cb.setObjectName(f"{prefix}_{key}_{code}")
                cb.setMinimumHeight(theme.TOUCH_PX)
                cb.toggled.connect(self._changed)
                grid.addWidget(cb, n + i, 0)     # one a row: the supplements' long names stay whole
                out[key][code] = cb
            n += len(codes)
        return box, out

    def _hydrology_box(self) -> QWidget:
        w = QGroupBox("Hydrology")
        v = QVBoxLayout(w)
        primary, self.primary = self._checklist("Primary indicators (any one is enough)", "primary")
        secondary, self.secondary = self._checklist("Secondary indicators (two are needed)", "secondary")
        v.addWidget(primary)
        v.addWidget(secondary)
        g = field_grid()
        self.depths: dict[str, QLineEdit] = {}
        for i, (key, words) in enumerate(DEPTHS):
            e = QLineEdit()
            e.setObjectName(key)
            e.setPlaceholderText("in; blank = not observed")
            e.editingFinished.connect(self._changed)
            self.depths[key] = e
            add_field(g, i // 2, i % 2, f"{words} (in)", e)
        v.addLayout(g)
        self.prob_hyd = QCheckBox("Hydrology problematic / atypical situation")
        self.prob_hyd.setObjectName("problematicHydrology")
        self.prob_hyd.toggled.connect(self._changed)
        v.addWidget(self.prob_hyd)
        return w

    def _soil_box(self) -> QWidget:
        w = QGroupBox("Soil")
        v = QVBoxLayout(w)
        self.profile = QTableWidget(0, len(PROFILE_COLUMNS))
        self.profile.setObjectName("soilProfile")
        self.profile.setHorizontalHeaderLabels([words for _k, words in PROFILE_COLUMNS])
        self.profile.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.profile.setMinimumHeight(3 * theme.TOUCH_PX)
        touch_rows(self.profile)
        self.profile.itemChanged.connect(lambda _item: self._changed())
        v.addWidget(self.profile)
        add = QPushButton("Add soil layer")
        add.setObjectName("addSoilLayer")
        add.setMinimumHeight(theme.TOUCH_PX)
        add.clicked.connect(self._add_layer)
        v.addWidget(add)
        hydric, self.soil = self._checklist("Hydric soil indicators", "soil")
        problem, self.soil_problem = self._checklist("Indicators for problematic hydric soils", "soil_problematic")
        v.addWidget(hydric)
        v.addWidget(problem)
        self.prob_soil = QCheckBox("Soil problematic")
        self.prob_soil.setObjectName("problematicSoil")
        self.prob_soil.toggled.connect(self._changed)
        v.addWidget(self.prob_soil)
        return w

    # ================================================================== the desk
    @property
    def desk(self) -> DataPointDesk | None:
        v = self.visit
        return None if v is None else DataPointDesk(v, self.plants)

    def set_plants(self, plants: PlantList) -> None:
        """The plant list just loaded (the import dialog keeps it in the data folder)."""
        self.plants = plants
        self._search_changed(self.search.text())

    def load_plant_list(self, path: str | None = None) -> Any:
        """Open the plant list import (:class:`fieldapp.ui.plantlistdialog.PlantListDialog`,
        window-modal); a list loaded there is used at once. Returns the dialog."""
        from fieldapp.ui.plantlistdialog import PlantListDialog

        dlg = PlantListDialog(self, path=path, region=self.region.currentData(), recent=self.plants.recent)

        def done() -> None:
            if dlg.loaded is not None:
                self.set_plants(dlg.loaded)
                if dlg.save_problem:
                    self.error(dlg.save_problem)
        dlg.accepted.connect(done)
        dlg.open()
        return dlg

    # ================================================================== placing
    def place_here(self) -> None:
        fix = self.devices.usable_fix()
        desk = self.desk
        if fix is None or desk is None:
            return
        self._place(lambda: desk.place(self.new_role.currentData(), fix=fix, region=self.region.currentData()))

    def place_at_click(self) -> None:
        if self.visit is None or not self.visit.model.has_frame:
            self.error("A data point at a map click needs the site's coordinates: wait for a usable fix.")
            return
        self._click_waits = True
        self.state.setText("Click the map where the data point stands.")

    def map_clicked(self, x_ft: float, y_ft: float) -> bool:
        """A map click (site feet): the data point waiting for it; True when it was used."""
        if not self._click_waits or self.visit is None:
            return False
        self._click_waits = False
        desk = self.desk
        assert desk is not None
        self._place(lambda: desk.place(self.new_role.currentData(), at_ft=(x_ft, y_ft),
                                       region=self.region.currentData()))
        return True

    def _place(self, make: Callable[[], Any]) -> None:
        self.save_form()
        try:
            dp = make()
        except Exception as exc:  # noqa: BLE001 - refused in words, nothing recorded
            self.error("Data point not placed", exc)
            return
        self.current = dp.uuid
        self._note_region("")
        self.refresh()
        other = "upland" if dp.role.value == "wetland" else "wetland"
        self.new_role.setCurrentIndex(self.new_role.findData(other))     # its pair next
        self.state.setText(f"{dp.name} placed ({dp.role.value}); fill in its form.")

    # ================================================================== the point's fields
    def _point_chosen(self, _i: int = -1) -> None:
        if self._loading:
            return
        self.save_form()
        self.current = self.points.currentData()
        self._note_region("")
        self._load_form()

    def _name_changed(self) -> None:
        desk, uuid = self.desk, self.current
        text = self.name.text().strip()
        if desk is None or uuid is None or not text or text == desk.get(uuid).name:
            return
        self._do(lambda: desk.update(uuid, name=text), "Name refused")

    def _role_changed(self, _i: int = -1) -> None:
        desk, uuid = self.desk, self.current
        if self._loading or desk is None or uuid is None:
            return
        if desk.get(uuid).pair_uuid is not None:
            desk.unpair(uuid)       # a pair is one wetland and one upland point
        self._do(lambda: desk.update(uuid, role=self.role.currentData()), "Side refused")

    def _region_changed(self, _i: int = -1) -> None:
        """A new region for the point shown: the ticks its form also lists carried over
        (:meth:`DataPointDesk.change_region`), the ones dropped named under the region."""
        self._region_changed_fields()
        desk, uuid = self.desk, self.current
        if self._loading or desk is None or uuid is None:
            return
        old, new = desk.get(uuid).region.value, self.region.currentData()
        if old == new:
            return
        self._save_timer.stop()
        try:        # the form as shown, read in the old region's lists
            _dp, _out, dropped = desk.change_region(uuid, self.collect(region=old), new)
        except Exception as exc:  # noqa: BLE001 - refused in words, nothing changed
            self.error("Region refused", exc)
            dropped = None
        self._shown_json = None         # the form again, ticked in the new region's lists
        self.refresh()
        if dropped is not None:
            self._note_region(
                f"Now {REGIONS[new].name}: ticked indicators kept." if not dropped else
                f"Now {REGIONS[new].name}: dropped {', '.join(dropped)} (not on this region's form);"
                " the other ticks kept. Ctrl+Z in the Records tab brings them back.")

    def _note_region(self, text: str) -> None:
        self.region_note.setText(text)
        self.region_note.setVisible(bool(text))

    def _region_changed_fields(self) -> None:
        key = self.region.currentData()
        for lists in (self.primary, self.secondary, self.soil, self.soil_problem):
            for region, boxes in lists.items():
                for cb in boxes.values():
                    cb.setVisible(region == key)

    def _do(self, fn: Callable[[], Any], what: str) -> None:
        try:
            fn()
        except Exception as exc:  # noqa: BLE001
            self.error(what, exc)
        self.refresh()

    def pair(self) -> None:
        desk, uuid = self.desk, self.current
        other = self.partner.currentData()
        if desk is None or uuid is None or other is None:
            self.error("Choose the data point across the boundary in Paired with first.")
            return
        self.save_form()
        self._do(lambda: desk.pair(uuid, other, self.boundary.currentData()), "Not paired")

    def delete(self) -> None:
        desk, uuid = self.desk, self.current
        if desk is None or uuid is None:
            return
        self._save_timer.stop()
        self._do(lambda: desk.delete(uuid), "Not deleted")
        self.current = None
        self.refresh()

    # ================================================================== species
    def _show_match(self, text: str) -> None:
        """Under the species typed: the list's species it is, or that it is not on the list."""
        name = " ".join(text.split())
        listed = self._listed_name(name) if name else None
        self.match_words.setText("" if not name else
                                 f"On the plant list: {listed} ({self._status_words(listed)})" if listed else
                                 f"“{name}” is not on the plant list: counted UPL"
                                 " (pick it below if the list has it under another name)")
        self.match_words.setProperty("role", "reason" if name and not listed else "")
        self.match_words.style().unpolish(self.match_words)
        self.match_words.style().polish(self.match_words)

    def _search_changed(self, text: str) -> None:
        self._show_match(text)
        desk = self.desk
        plants = desk.search(text) if desk is not None else self.plants.search(text)
        self.picker.clear()
        for p in plants:
            item = QListWidgetItem(f"{p.scientific} — {p.common}  ({p.status or 'not listed'})"
                                   if p.common else f"{p.scientific}  ({p.status or 'not listed'})")
            item.setData(Qt.ItemDataRole.UserRole, p.scientific)
            item.setSizeHint(QSize(0, theme.TOUCH_PX + 4))      # a gloved finger's row
            self.picker.addItem(item)
        self.list_words.setText(
            f"Plant list: {self.plants.source} ({len(self.plants)} species)" if len(self.plants) else
            "No plant list loaded (Load plant list…): species are counted as not listed (UPL).")

    def _picked(self, item: QListWidgetItem) -> None:
        name = item.data(Qt.ItemDataRole.UserRole)
        with QSignalBlocker(self.search):
            self.search.setText(name)
        self._show_match(name)
        self.cover.setFocus()
        self.cover.selectAll()

    def add_species(self) -> None:
        """The species typed or picked, with the cover typed, into the stratum chosen."""
        name = self.search.text().strip()
        if self.current is None:
            self.error("Place or choose a data point first.")
            return
        if not name:
            self.error("Type or pick a species first.")
            return
        listed = self._listed_name(name)
        name = listed or " ".join(name.split())
        self._add_row(self.stratum.currentData(), name, float(self.cover.value()))
        if listed is not None:          # a typo stays out of the recent species
            self.plants.picked(name)
        self.search.clear()
        self.cover.setValue(0)
        self.search.setFocus()
        self._changed()

    def _listed_name(self, name: str) -> str | None:
        """``name`` as the loaded list (or the status the form kept) spells it, matched in any
        case, repeated spaces as one, "x" as "×"; None when it has no status."""
        p = self.plants.get(name)
        if p is not None:
            return p.scientific
        key = species_key(name)
        return next((k for k in (self._form.get("indicators") or {}) if species_key(k) == key), None)

    def _status_words(self, name: str) -> str:
        listed = self._listed_name(name)
        if listed is None:
            return "not listed (UPL)"
        return self.plants.status(listed) or str((self._form.get("indicators") or {}).get(listed))

    def _add_row(self, stratum: str, name: str, cover: float) -> None:
        with QSignalBlocker(self.species):
            r = self.species.rowCount()
            self.species.insertRow(r)
            it = QTableWidgetItem(STRATUM_NAMES[stratum].replace(" Stratum", ""))
            it.setData(Qt.ItemDataRole.UserRole, stratum)
            it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.species.setItem(r, 0, it)
            self.species.setItem(r, 1, QTableWidgetItem(name))
            st = QTableWidgetItem(self._status_words(name))
            st.setFlags(st.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.species.setItem(r, 2, st)
            self.species.setItem(r, 3, QTableWidgetItem(f"{cover:g}"))

    def _table_edited(self, item: QTableWidgetItem) -> None:
        if item.column() == 1:
            st = self.species.item(item.row(), 2)
            if st is not None:
                with QSignalBlocker(self.species):
                    st.setText(self._status_words(item.text().strip()))
        self._changed()

    def _remove_species(self) -> None:
        rows = sorted({i.row() for i in self.species.selectedIndexes()}, reverse=True)
        for r in rows:
            self.species.removeRow(r)
        if rows:
            self._changed()

    def _add_layer(self) -> None:
        with QSignalBlocker(self.profile):
            r = self.profile.rowCount()
            self.profile.insertRow(r)
            for c in range(self.profile.columnCount()):
                self.profile.setItem(r, c, QTableWidgetItem(""))
        self.profile.setCurrentCell(r, 0)

    # ================================================================== the form
    def collect(self, region: str | None = None) -> dict[str, Any]:
        """The form as typed (the app layer adds the statuses and the plot's name); its
        checklists read in ``region``'s lists (default: the region chosen)."""
        veg: dict[str, list[dict[str, Any]]] = {s: [] for s in STRATA}
        for r in range(self.species.rowCount()):
            s_item, n_item, c_item = (self.species.item(r, c) for c in (0, 1, 3))
            if s_item is None or n_item is None or not n_item.text().strip():
                continue
            text = c_item.text().strip().rstrip("%").strip() if c_item is not None else ""
            try:
                cover: Any = float(text) if text else 0.0
            except ValueError:
                cover = text            # kept as typed: the rules say what is wrong with it
            veg[s_item.data(Qt.ItemDataRole.UserRole)].append({"species": n_item.text().strip(), "cover": cover})
        key = region or self.region.currentData()
        depths: dict[str, Any] = {}
        for k, e in self.depths.items():
            t = e.text().strip()
            try:
                depths[k] = float(t) if t else None
            except ValueError:
                depths[k] = t
        profile = []
        for r in range(self.profile.rowCount()):
            cells = [self.profile.item(r, c) for c in range(len(PROFILE_COLUMNS))]
            row = {k: (cell.text().strip() if cell is not None else "")
                   for (k, _w), cell in zip(PROFILE_COLUMNS, cells, strict=True)}
            if any(row.values()):
                profile.append(row)
        return {
            "region": key,
            "indicators": dict(self._form.get("indicators") or {}),
            "vegetation": veg,
            "plot_sizes_ft": {s: self.plot_sizes[s].value() for s in STRATA},
            "hydrology": {"primary": [c for c, cb in self.primary[key].items() if cb.isChecked()],
                          "secondary": [c for c, cb in self.secondary[key].items() if cb.isChecked()],
                          **depths},
            "soil": {"indicators": [c for c, cb in {**self.soil[key], **self.soil_problem[key]}.items()
                                    if cb.isChecked()],
                     "profile": profile},
            "problematic": {"vegetation": self.prob_veg.isChecked(), "soil": self.prob_soil.isChecked(),
                            "hydrology": self.prob_hyd.isChecked()},
        }

    def _changed(self, *_args: Any) -> None:
        if self._loading or self.current is None:
            return
        desk = self.desk
        if desk is not None:        # the determination at once; kept a moment later
            self._show_outcome(desk.outcome(desk.with_statuses({**self.collect(), "plot": self._plot_name()})))
        self._save_timer.start()

    def _plot_name(self) -> str:
        desk = self.desk
        return desk.get(self.current).name if desk is not None and self.current else ""

    def save_form(self) -> None:
        """Keep the form typed on the point shown (one command; nothing when unchanged)."""
        self._save_timer.stop()
        desk, uuid = self.desk, self.current
        if desk is None or uuid is None or self._loading:
            return
        if uuid not in {d.uuid for d in desk.data_points()}:
            return
        try:
            _dp, out = desk.save_form(uuid, self.collect())
        except Exception as exc:  # noqa: BLE001
            self.error("Form not kept", exc)
            return
        self._form = desk.form(uuid)
        self._shown_json = _dp.form_json
        self._show_outcome(out)

    def _load_form(self) -> None:
        desk, uuid = self.desk, self.current
        self._loading = True
        try:
            with QSignalBlocker(self.species), QSignalBlocker(self.profile):
                self.species.setRowCount(0)
                self.profile.setRowCount(0)
            if desk is None or uuid is None:
                self._form = {}
                self.determination.setText("")
                self.verdict.setText("")
                return
            dp = desk.get(uuid)
            self._form = form = desk.form(uuid)
            self._shown_json = dp.form_json
            with QSignalBlocker(self.name):
                self.name.setText(dp.name)
            self.role.setCurrentIndex(self.role.findData(dp.role.value))
            self.region.setCurrentIndex(self.region.findData(dp.region.value))
            self._region_changed_fields()
            for s in STRATA:
                self.plot_sizes[s].setValue(float((form.get("plot_sizes_ft") or {}).get(s) or 0.0))
                for row in (form.get("vegetation") or {}).get(s) or []:
                    cover = row.get("cover")
                    self._add_row(s, str(row.get("species", "")), cover if isinstance(cover, (int, float)) else 0.0)
            hyd, soil = form.get("hydrology") or {}, form.get("soil") or {}
            key = dp.region.value
            for lists, chosen in ((self.primary, hyd.get("primary")), (self.secondary, hyd.get("secondary")),
                                  (self.soil, soil.get("indicators")), (self.soil_problem, soil.get("indicators"))):
                for code, cb in lists[key].items():
                    cb.setChecked(code in (chosen or []))
            for k, e in self.depths.items():
                v = hyd.get(k)
                e.setText("" if v is None else f"{v:g}" if isinstance(v, (int, float)) else str(v))
            with QSignalBlocker(self.profile):
                for row in soil.get("profile") or []:
                    r = self.profile.rowCount()
                    self.profile.insertRow(r)
                    for c, (k, _w) in enumerate(PROFILE_COLUMNS):
                        self.profile.setItem(r, c, QTableWidgetItem(str(row.get(k, ""))))
            prob = form.get("problematic") or {}
            self.prob_veg.setChecked(bool(prob.get("vegetation")))
            self.prob_soil.setChecked(bool(prob.get("soil")))
            self.prob_hyd.setChecked(bool(prob.get("hydrology")))
        finally:
            self._loading = False
        self._show_outcome(desk.outcome(form))

    def _show_outcome(self, out: Outcome) -> None:
        det = out.determination
        if det is None:
            self.determination.setText(f"<b>Not decided yet</b>: {out.problem}" if out.problem else
                                       "<b>Not decided yet</b>: nothing recorded.")
            self.verdict.setText(self.determination.text())
            return
        self.verdict.setText(
            f"<b>{det.plot or 'Data point'}: {'WETLAND' if det.wetland else 'NOT wetland'}</b> — hydrophytic"
            f" vegetation {_mark(det.hydrophytic_vegetation)}, wetland hydrology {_mark(det.wetland_hydrology)},"
            f" hydric soil {_mark(det.hydric_soil)} (how: Determination below)")
        how = det.how
        dom = "; ".join(f"{STRATUM_NAMES[s].replace(' Stratum', '')}: {', '.join(det.dominants[s]) or '–'}"
                        for s in STRATA)
        pi = "–" if det.prevalence_index is None else f"{det.prevalence_index:.2f}"
        rows = [
            ("Dominants (50/20 rule)", dom, how.get("dominants", "")),
            ("Rapid Test", _mark(det.rapid_test), how.get("rapid_test", "")),
            ("Dominance Test", _mark(det.dominance_passes), how.get("dominance_test", "")),
            ("Prevalence Index", f"{pi} ({'≤ 3.0' if det.prevalence_passes else 'not ≤ 3.0'})",
             how.get("prevalence_index", "")),
            ("Hydrophytic vegetation", _mark(det.hydrophytic_vegetation), how.get("hydrophytic_vegetation", "")),
            ("Wetland hydrology", _mark(det.wetland_hydrology), how.get("wetland_hydrology", "")),
            ("Hydric soil", _mark(det.hydric_soil), how.get("hydric_soil", "")),
        ]
        body = "".join(f"<tr><td><b>{t}</b></td><td>{v}</td><td><small>{h}</small></td></tr>" for t, v, h in rows)
        verdict = "WETLAND" if det.wetland else "NOT wetland"
        colour = "#0a6b1f" if det.wetland else "#8a4b00"
        self.determination.setText(
            f"<p style='font-size:large'><b style='color:{colour}'>{det.plot or 'Data point'}: {verdict}</b>"
            f" — <small>{how.get('wetland', '')}</small></p><table cellspacing='4'>{body}</table>")

    # ================================================================== refresh
    def _demo_sample(self) -> None:
        """In the demo (simulated devices) with no list loaded, the SAMPLE list that ships for
        it, marked so (never kept: a real run starts without a list)."""
        if self._sample_tried or len(self.plants) or not self.devices.simulating:
            return
        self._sample_tried = True
        from fieldapp.app.plantlist import from_loaded
        from fieldapp.rules import plantlist as rules_plants

        try:
            mapping = rules_plants.guess_mapping(rules_plants.read_header(rules_plants.SAMPLE_PATH))
            if mapping is not None:
                self.plants = from_loaded(rules_plants.load_plant_list(rules_plants.SAMPLE_PATH, mapping))
        except rules_plants.PlantListError as exc:
            self.error("The demo's sample plant list could not be read", exc)

    def refresh(self) -> None:
        self._demo_sample()
        desk = self.desk
        self._loading = True
        try:
            pts = desk.data_points() if desk is not None else []
            if self.current not in {d.uuid for d in pts}:
                self.current = pts[-1].uuid if pts else None
                changed = True
            else:       # changed elsewhere (an undo, the Records tab) while nothing waits to be kept
                now = next(d.form_json for d in pts if d.uuid == self.current)
                changed = now != self._shown_json and not self._save_timer.isActive()
            with QSignalBlocker(self.points):
                self.points.clear()
                for d in pts:
                    self.points.addItem(f"{d.name} — {d.role.value}"
                                        + ("" if d.wetland is None else (" — wetland" if d.wetland else
                                                                         " — not wetland")), d.uuid)
                self.points.setCurrentIndex(self.points.findData(self.current))
            cur = desk.get(self.current) if desk is not None and self.current else None
            with QSignalBlocker(self.boundary):
                self.boundary.clear()
                self.boundary.addItem("(none yet)", None)
                for uuid, words in desk.wetland_boundaries() if desk is not None else []:
                    self.boundary.addItem(words, uuid)
                if cur is not None and cur.boundary_uuid is not None:
                    self.boundary.setCurrentIndex(max(self.boundary.findData(cur.boundary_uuid), 0))
                elif self.boundary.count() > 1:
                    self.boundary.setCurrentIndex(self.boundary.count() - 1)
            with QSignalBlocker(self.partner):
                self.partner.clear()
                self.partner.addItem("(choose the point across)", None)
                for d in pts:
                    if cur is not None and d.uuid != cur.uuid and d.role != cur.role:
                        self.partner.addItem(f"{d.name} ({d.role.value})", d.uuid)
                if cur is not None and cur.pair_uuid is not None:
                    self.partner.setCurrentIndex(max(self.partner.findData(cur.pair_uuid), 0))
                elif self.partner.count() == 2:
                    self.partner.setCurrentIndex(1)
            self.gate.set_extra_ok(self.place_button, desk is not None)
            self.click_button.setEnabled(desk is not None)
            self.pair_button.setEnabled(cur is not None)
            self.delete_button.setEnabled(cur is not None)
            if cur is not None and not self._click_waits:
                pair = desk.get(cur.pair_uuid).name if desk is not None and cur.pair_uuid else None
                self.state.setText(f"{cur.name} ({cur.role.value}): "
                                   + (f"paired with {pair}, {desk.boundary_words(cur)}" if pair and desk
                                      else "not paired yet: choose the boundary and the point across, then Pair"))
        finally:
            self._loading = False
        if changed:
            self._load_form()
        self._search_changed(self.search.text())
