"""The New visit dialog: name, crew, priority waterway, water features with their NR 151 types,
the site CRS (automatic UTM from the first fix, or an EPSG code) and the antenna height.

:meth:`NewVisitDialog.spec` validates and returns a :class:`NewVisitSpec`; an impossible value
(no name, a negative height, an EPSG code that is not a projected CRS) is refused with a message
naming it and the dialog stays open with everything typed kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fieldapp.rules.nr151 import WETLAND_TYPES
from fieldapp.rules.nr341 import bank_parameters
from fieldapp.ui.theme import touch_rows

M_PER_FT = 0.3048  # international foot

#: NR 151.125 protective-area feature types in words (``WaterFeatureType`` values).
WATER_TYPES = (
    ("stream", "Perennial / intermittent stream"),
    ("lake", "Lake"),
    ("wetland", "Wetland"),
    ("outstanding_resource_water", "Outstanding resource water"),
    ("exceptional_resource_water", "Exceptional resource water"),
    ("concentrated_flow_channel", "Concentrated flow channel"),
)
SUSCEPTIBILITY = (("", "–"), ("highly", "highly susceptible"), ("less", "less susceptible"),
                  ("other", "other"))
#: NR 151.125(1)(b): the maps a stream is identified on, as the "Mapped on" list shows them; the
#: crew adds the sheet's name after the colon. "On neither map": (1)(i) concentrated flow.
MAPPED_ON_WORDS = (("usgs_7_5_minute", "USGS 7.5-minute map: "), ("county_soil_survey", "County soil survey map: "),
                   ("none", "On neither map"))


def parse_mapped_on(text: str) -> tuple[str | None, str | None, float | None]:
    """(``mapped_on``, map name, drainage acres) from the "Mapped on" cell: blank -> not
    checked; "USGS 7.5-minute map: Decorah 1994" -> ("usgs_7_5_minute", "Decorah 1994", None);
    "County soil survey map: sheet 12"; "On neither map: 150 ac" (the channel's drainage area,
    for NR 151.125(1)(i); without it the check asks for it).

    Raises
    ------
    ValueError
        Text naming neither map, or a drainage area that is not a number of acres, in words.

    >>> parse_mapped_on("USGS 7.5-minute map: Decorah"), parse_mapped_on("on neither map: 150 ac")
    (('usgs_7_5_minute', 'Decorah', None), ('none', None, 150.0))
    """
    t = text.strip()
    if not t:
        return None, None, None
    low = t.lower()
    rest = t.split(":", 1)[1].strip() if ":" in t else ""
    if low.startswith(("on neither", "neither", "none")):
        if not rest:
            return "none", None, None
        try:
            acres = float(rest.lower().removesuffix("acres").removesuffix("ac").strip().replace(",", ""))
        except ValueError:
            raise ValueError(f"Mapped on '{t}': after 'On neither map:' give the channel's drainage "
                             "area in acres, e.g. On neither map: 150 ac") from None
        if not 0.0 <= acres < 1e9:
            raise ValueError(f"Mapped on '{t}': the drainage area must be 0 acres or more")
        return "none", None, acres
    for value, words in MAPPED_ON_WORDS[:2]:
        head = words.split(":")[0].lower()
        if low.startswith(head) or low.startswith(head.split()[0]):
            return value, rest or None, None
    raise ValueError(f"Mapped on '{t}': choose USGS 7.5-minute map, County soil survey map (then the "
                     "sheet's name after the colon) or On neither map")


@dataclass
class NewVisitSpec:
    """What the dialog asked for (all validated)."""

    name: str
    path: Path
    crew: list[str] = field(default_factory=list)
    priority_waterway: bool = False
    water_features: list[dict[str, Any]] = field(default_factory=list)   # name, type, susceptibility, wetland_type
    #: NR 151.125(4)(b): the in-fill development area (acres; None: not in-fill / not asked)
    #: and whether it is within existing development.
    infill_area_ac: float | None = None
    infill_within_development: bool | None = None
    crs: str | None = None                                     # None: UTM of the first fix
    antenna_height_m: float = 2.0
    antenna_height_unit: str = "m"                             # as entered: m, ft (survey.antenna)
    basemap: Path | None = None                                # an MBTiles fetched for it

def fit_height(dialog: QWidget) -> int:
    """The height (px) a dialog may have on its screen: the screen's free height (less the
    taskbar) less a 30 px title bar."""
    screen = dialog.screen()
    return screen.availableGeometry().height() - 30 if screen is not None else 680


def default_epsg(fix_lat_lon: tuple[float, float] | None) -> int:
    """The EPSG code offered in the dialog: the UTM zone's of ``fix_lat_lon`` (WGS84 lat, lon
    degrees; :meth:`fieldapp.geo.SiteFrame.for_position`), 0 (shown empty) without a fix or
    outside UTM."""
    if fix_lat_lon is None:
        return 0
    from fieldapp.geo import SiteFrame

    try:
        return int(SiteFrame.for_position(*fix_lat_lon).srs_id or 0)
    except Exception:  # noqa: BLE001 - e.g. a polar position: no UTM zone, nothing offered
        return 0


def crs_in_feet(epsg: int) -> bool:
    """Whether the projected CRS ``epsg`` has its coordinates in feet (US survey or
    international: 7637 WISCRS Vernon, 2289 Wisconsin South); False for a metre, geographic or
    unknown code."""
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        crs = CRS.from_epsg(epsg)
    except CRSError:
        return False
    if not crs.is_projected:
        return False
    return any("foot" in (a.unit_name or "").lower() for a in crs.axis_info)


class NewVisitDialog(QDialog):
    """Ask everything a new site visit needs before the first fix."""

    def __init__(self, data_dir: str | Path, *, crew: str = "", antenna_height_m: float = 2.0,
                 priority_waterway: bool = False, fix_lat_lon: tuple[float, float] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data_dir = Path(data_dir)
        from fieldapp.app.paths import earlier_visits_dir

        self.earlier_dir = earlier_visits_dir(self.data_dir)
        self.setWindowTitle("New site visit")
        # the questions scroll, Start visit / Cancel stay below them: the dialog is 760 px
        # tall, more than a 1366x768 laptop shows under its title bar and taskbar
        outer = QVBoxLayout(self)
        body = QWidget()
        body.setObjectName("panelBody")
        lay = QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.name = QLineEdit()
        self.name.setObjectName("visitName")
        self.name.setPlaceholderText("e.g. Smith lot, north bank")
        form.addRow("Site name", self.name)
        self.crew = QLineEdit(crew)
        self.crew.setObjectName("visitCrew")
        self.crew.setPlaceholderText("names or initials, separated by commas")
        form.addRow("Crew", self.crew)
        usual, priority = bank_parameters(False), bank_parameters(True)
        self.priority = QCheckBox(
            f"Priority navigable waterway (NR 341.035: {priority.base_ft:g} ft base,"
            f" {priority.threshold_pct:g} % threshold instead of {usual.base_ft:g} ft,"
            f" {usual.threshold_pct:g} %)")
        self.priority.setObjectName("visitPriority")
        self.priority.setChecked(priority_waterway)
        form.addRow("Waterway", self.priority)
        from fieldapp.rules.rulesets import rule_sets_words
        from fieldapp.survey.place import place_of

        # what this site is checked against, and whether the state's sections apply here
        self.rule_sets = QLabel(rule_sets_words(place_of(*fix_lat_lon) if fix_lat_lon else None))
        self.rule_sets.setObjectName("visitRuleSets")
        self.rule_sets.setWordWrap(True)
        form.addRow("Rules checked", self.rule_sets)
        lay.addLayout(form)

        wf = QGroupBox("Water features (NR 151.125 protective areas)")
        wl = QVBoxLayout(wf)
        self.features = QTableWidget(0, 5)
        self.features.setObjectName("waterFeatures")
        touch_rows(self.features)
        self.features.setHorizontalHeaderLabels(["Name", "Type (NR 151)", "Susceptibility",
                                                 "Wetland type", "Mapped on (streams)"])
        self.features.verticalHeader().setVisible(False)
        self.features.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.features.horizontalHeader().setStretchLastSection(True)
        self.features.setColumnWidth(0, 140)
        self.features.setColumnWidth(1, 230)
        self.features.setColumnWidth(2, 150)
        self.features.setColumnWidth(3, 170)
        self.features.setMinimumHeight(110)        # the header and two rows; it grows with them
        wl.addWidget(self.features)
        row = QHBoxLayout()
        add = QPushButton("Add water feature")
        add.setObjectName("addWaterFeature")
        add.clicked.connect(lambda _checked=False: self.add_feature())
        remove = QPushButton("Remove selected")
        remove.clicked.connect(self._remove_feature)
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        wl.addLayout(row)
        # NR 151.125(4)(b): the engine decides the in-fill exemption from the area (issue 29)
        infill = QHBoxLayout()
        self.infill_area = QDoubleSpinBox()
        self.infill_area.setObjectName("infillArea")
        self.infill_area.setDecimals(2)
        self.infill_area.setRange(0.0, 1_000_000.0)
        self.infill_area.setSuffix(" ac")
        self.infill_area.setSpecialValueText("not in-fill")
        self.infill_area.setToolTip("NR 151.125(4)(b): in-fill development areas less than 5 acres are exempt "
                                    "from the protective-area standard; 0 = not an in-fill site")
        self.infill_within = QCheckBox("within existing development")
        self.infill_within.setObjectName("infillWithin")
        infill.addWidget(QLabel("In-fill development area"))
        infill.addWidget(self.infill_area)
        infill.addWidget(self.infill_within)
        infill.addStretch(1)
        wl.addLayout(infill)
        # laid out below the coordinate system and the antenna height (added after them): at
        # 1366x768 both are read before Start visit without scrolling (issue 35 item 12)

        crs_box = QGroupBox("Site coordinate system")
        cl = QHBoxLayout(crs_box)
        self.crs_auto = QRadioButton("Automatic: county system or UTM")
        self.crs_auto.setObjectName("crsAuto")
        self.crs_auto.setToolTip("From the first fix: in Wisconsin the county's WISCRS in US survey"
                                 " feet (what the county office expects), elsewhere the UTM zone")
        self.crs_epsg = QRadioButton("EPSG code")
        self.crs_epsg.setObjectName("crsEpsg")
        group = QButtonGroup(self)
        group.addButton(self.crs_auto)
        group.addButton(self.crs_epsg)
        self.crs_auto.setChecked(True)
        self.epsg = QSpinBox()
        self.epsg.setObjectName("epsgCode")
        # empty (0) unless there is a fix: then the UTM zone of the current position
        self.epsg.setRange(0, 999999)
        self.epsg.setSpecialValueText(" ")
        self.epsg.setValue(default_epsg(fix_lat_lon))
        self.epsg.setEnabled(False)
        self.epsg.setToolTip("A projected CRS, e.g. 32616 (UTM 16N) or 7599 (WISCRS Dane, US ft)")
        self.crs_epsg.toggled.connect(self.epsg.setEnabled)
        cl.addWidget(self.crs_auto)
        cl.addWidget(self.crs_epsg)
        cl.addWidget(self.epsg)
        cl.addStretch(1)
        lay.addWidget(crs_box)
        self._fix_lat_lon = fix_lat_lon
        self._build_crs_finder(lay)
        self._offer_local_crs()

        ant = QHBoxLayout()
        ant.addWidget(QLabel("Antenna height above the mark"))
        self.antenna = QDoubleSpinBox()
        self.antenna.setObjectName("antennaHeight")
        self.antenna.setDecimals(3)
        self.antenna.setRange(0.0, 99.0)
        self.antenna.setValue(antenna_height_m)
        self.antenna_unit = QComboBox()
        self.antenna_unit.setObjectName("antennaUnit")
        self.antenna_unit.addItem("m", 1.0)
        self.antenna_unit.addItem("ft (international)", M_PER_FT)
        self.antenna_unit.currentIndexChanged.connect(self._unit_changed)
        self._unit_m = 1.0
        # the crew's own height and unit are never changed for them; until they type one, the
        # default follows the coordinate system: feet at a feet CRS (:meth:`_crs_changed`)
        self._antenna_typed = False
        self._antenna_auto = False      # True while the dialog itself sets the height or unit
        self.antenna.valueChanged.connect(self._antenna_edited)
        self.antenna_unit.currentIndexChanged.connect(self._antenna_edited)
        self.epsg.valueChanged.connect(self._crs_changed)
        self.crs_epsg.toggled.connect(self._crs_changed)
        ant.addWidget(self.antenna)
        ant.addWidget(self.antenna_unit)
        ant.addStretch(1)
        lay.addLayout(ant)
        lay.addWidget(wf)

        self.where = QLabel("")
        self.where.setWordWrap(True)
        lay.addWidget(self.where)
        self.name.textChanged.connect(self._update_where)
        self._update_where()

        buttons = QDialogButtonBox()
        ok = buttons.addButton("Start visit", QDialogButtonBox.ButtonRole.AcceptRole)
        ok.setObjectName("startVisit")
        ok.setDefault(True)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        from fieldapp.ui.workflows.base import PanelScroll

        scroll = PanelScroll(body)
        # shadows QWidget.scroll(dx, dy) (nothing calls it); the tests and tablet checks read it
        self.scroll = scroll  # type: ignore[method-assign, assignment]
        outer.addWidget(scroll, 1)
        outer.addWidget(buttons)
        self.result_spec: NewVisitSpec | None = None
        self._crs_changed()             # a county system offered from the fix: feet from the start
        self.resize(900, min(680, fit_height(self)))

    # ---------------------------------------------------------------- rows
    def add_feature(self, name: str = "", type_: str = "stream", susceptibility: str = "",
                    wetland_type: str = "", mapped_on: str = "") -> int:
        r = self.features.rowCount()
        self.features.insertRow(r)
        self.features.setItem(r, 0, QTableWidgetItem(name))
        types = QComboBox()
        for value, words in WATER_TYPES:
            types.addItem(words, value)
        types.setCurrentIndex(max(types.findData(type_), 0))
        self.features.setCellWidget(r, 1, types)
        sus = QComboBox()
        for value, words in SUSCEPTIBILITY:
            sus.addItem(words, value)
        sus.setCurrentIndex(max(sus.findData(susceptibility), 0))
        self.features.setCellWidget(r, 2, sus)
        wtypes = QComboBox()  # editable: the types of NR 151.125(1)(e) and (f), or the crew's own
        wtypes.setEditable(True)
        wtypes.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        # the statute's long names must not widen the panel: the list opens as wide as they need
        wtypes.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        wtypes.setMinimumContentsLength(14)
        wtypes.addItems([""] + list(WETLAND_TYPES))
        wtypes.view().setMinimumWidth(wtypes.view().sizeHintForColumn(0) + 24)
        wtypes.setCurrentText(wetland_type)
        wtypes.setToolTip("Wetland type: NR 151.125(1)(e) (highly susceptible), then (1)(f) (less "
                          "susceptible); another type needs its susceptibility")
        self.features.setCellWidget(r, 3, wtypes)
        mapped = QComboBox()   # NR 151.125(1)(b): the map, then the sheet's name after the colon
        mapped.setEditable(True)
        mapped.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        mapped.addItems([""] + [w for _v, w in MAPPED_ON_WORDS])
        mapped.setCurrentText(mapped_on)
        mapped.setToolTip("Streams, NR 151.125(1)(b): the map that shows it and the sheet's name "
                          "(e.g. USGS 7.5-minute map: Decorah 1994); On neither map: a concentrated "
                          "flow channel, (1)(i): add its drainage area (On neither map: 150 ac)")
        self.features.setCellWidget(r, 4, mapped)
        return r

    def _remove_feature(self) -> None:
        rows = sorted({i.row() for i in self.features.selectedIndexes()}, reverse=True)
        for r in rows or ([self.features.rowCount() - 1] if self.features.rowCount() else []):
            self.features.removeRow(r)

    def _antenna_edited(self) -> None:
        """The crew changed the antenna height or its unit: theirs from now on."""
        if not self._antenna_auto:
            self._antenna_typed = True

    def _crs_changed(self) -> None:
        """The default antenna height in the chosen coordinate system's unit: feet (the same
        height converted, 2.000 m = 6.562 ft) when the EPSG code chosen is in feet, metres
        otherwise; never once the crew typed a height or chose a unit. Automatic without a
        county system offered (no fix yet, or the UTM zone): metres."""
        if self._antenna_typed:
            return
        code = self.epsg.value() if self.crs_epsg.isChecked() else 0
        want = 1 if code and crs_in_feet(code) else 0
        if want != self.antenna_unit.currentIndex():
            self._antenna_auto = True
            try:
                self.antenna_unit.setCurrentIndex(want)     # converts the shown height
            finally:
                self._antenna_auto = False

    def _unit_changed(self) -> None:
        new = float(self.antenna_unit.currentData())
        metres = self.antenna.value() * self._unit_m
        self._unit_m = new
        self.antenna.setValue(metres / new)

    def _update_where(self) -> None:
        from fieldapp.app.visit import new_visit_path

        self._path = new_visit_path(self.data_dir, self.name.text().strip() or "visit")
        where = f"Saved as {self._path}"
        if self.earlier_dir is not None:
            where += (f"\nVisits of earlier versions stay in {self.earlier_dir} (not moved):"
                      " Visit ▸ Open visit… (Ctrl+O) opens them.")
        self.where.setText(where)

    # ---------------------------------------------------------------- result
    def _build_crs_finder(self, lay: Any) -> None:
        """Find a CRS by name or code in PROJ's database (``fieldapp.geo.find_projected_crs``):
        "wiscrs dane", "wisconsin south us survey feet", "7599". PROJ's list is read on a worker
        thread when the dialog opens; picking a result sets the EPSG code."""
        import threading

        from PySide6.QtCore import QTimer

        from fieldapp import geo

        row = QHBoxLayout()
        self.crs_find = QLineEdit()
        self.crs_find.setObjectName("crsFind")
        self.crs_find.setPlaceholderText("Find a CRS: e.g. WISCRS Dane, Wisconsin South US survey feet, 7599")
        self.crs_results = QComboBox()
        self.crs_results.setObjectName("crsResults")
        self.crs_results.setMinimumWidth(360)
        row.addWidget(QLabel("Find"))
        row.addWidget(self.crs_find, 1)
        row.addWidget(self.crs_results, 2)
        lay.addLayout(row)
        brow = QHBoxLayout()
        self.basemap_path: Path | None = None
        self.basemap_button = QPushButton("Prepare basemap (online)…")
        self.basemap_button.setObjectName("prepareBasemap")
        self.basemap_button.clicked.connect(lambda _c=False: self.prepare_basemap())
        self.basemap_label = QLabel("No basemap")
        brow.addWidget(self.basemap_button)
        brow.addWidget(self.basemap_label, 1)
        lay.addLayout(brow)
        self._crs_ready = threading.Event()

        def load() -> None:
            geo._projected_crs_list()
            self._crs_ready.set()

        threading.Thread(target=load, name="crs-list", daemon=True).start()
        self._crs_timer = QTimer(self)
        self._crs_timer.setSingleShot(True)
        self._crs_timer.setInterval(200)
        self._crs_timer.timeout.connect(self._search_crs)
        self.crs_find.textChanged.connect(lambda _t: self._crs_timer.start())
        self.crs_results.activated.connect(self._pick_crs)

    def _offer_local_crs(self) -> None:
        """With a fix: the systems an office here expects, by county (:mod:`fieldapp.app.localcrs`:
        WISCRS, State Plane in US survey feet, ...) in the list, the usual one chosen."""
        if self._fix_lat_lon is None:
            return
        from fieldapp.app.localcrs import local_crs_choices, usual_crs

        lat, lon = self._fix_lat_lon
        choices = local_crs_choices(lat, lon)
        for code, words in choices:
            self.crs_results.addItem(f"{code}  {words}", code)
        usual = usual_crs(lat, lon)
        if usual is not None:
            self.crs_results.setCurrentIndex([c for c, _ in choices].index(usual))
            self._pick_crs(self.crs_results.currentIndex())

    def prepare_basemap(self, dialog: Any = None) -> Path | None:
        """Fetch an MBTiles basemap around the fix (or a typed position) for the new visit
        (:class:`fieldapp.ui.basemapfetch.BasemapFetchDialog`); ``dialog`` for tests."""
        from fieldapp.ui.basemapfetch import BasemapFetchDialog

        dlg = dialog or BasemapFetchDialog(self._path.with_suffix(".mbtiles"), self._fix_lat_lon, self)
        if dialog is None:
            dlg.exec()
        if dlg.result_path is not None:
            self.basemap_path = dlg.result_path
            self.basemap_label.setText(f"Basemap: {dlg.result_path.name}")
        return self.basemap_path

    def _search_crs(self) -> None:
        from fieldapp import geo

        if not self._crs_ready.is_set():
            self.crs_results.clear()
            self.crs_results.addItem("Reading PROJ's list of coordinate systems…", None)
            self._crs_timer.start()
            return
        hits = geo.find_projected_crs(self.crs_find.text(), near=self._fix_lat_lon)
        self.crs_results.clear()
        if not hits and self.crs_find.text().strip():
            self.crs_results.addItem("No projected CRS by that name or code", None)
        for code, name in hits:
            self.crs_results.addItem(f"{code}  {name}", code)
        if hits:
            self._pick_crs(0)

    def _pick_crs(self, index: int) -> None:
        code = self.crs_results.itemData(index)
        if code:
            self.crs_epsg.setChecked(True)
            self.epsg.setValue(int(code.split(":")[1]))

    def _combo(self, row: int, column: int) -> QComboBox:
        """The list in the water features' table at ``row``, ``column`` (type, susceptibility,
        wetland type: each row is made with its three lists)."""
        widget = self.features.cellWidget(row, column)
        assert isinstance(widget, QComboBox), (row, column)
        return widget

    def spec(self) -> NewVisitSpec:
        """The validated answers; ValueError naming the field otherwise."""
        name = self.name.text().strip()
        if not name:
            raise ValueError("Site name: give the site a name")
        features = []
        for r in range(self.features.rowCount()):
            item = self.features.item(r, 0)
            fname = item.text().strip() if item else ""
            ftype = self._combo(r, 1).currentData()
            if not fname:
                raise ValueError(f"Water feature {r + 1}: give it a name")
            sus = self._combo(r, 2).currentData() or None
            wtype = self._combo(r, 3).currentText().strip() or None
            if ftype != "wetland" and (sus or wtype):
                raise ValueError(f"Water feature {fname}: susceptibility and wetland type are for"
                                 " wetlands only")
            try:
                mapped_on, map_name, drainage_ac = parse_mapped_on(self._combo(r, 4).currentText())
            except ValueError as exc:
                raise ValueError(f"Water feature {fname}: {exc}") from None
            if mapped_on is not None and ftype != "stream":
                raise ValueError(f"Water feature {fname}: 'mapped on' is for streams only (NR 151.125(1)(b))")
            features.append({"name": fname, "type": ftype, "susceptibility": sus,
                             "wetland_type": wtype, "mapped_on": mapped_on, "map_name": map_name,
                             "drainage_area_ac": drainage_ac})
        crs = None
        if self.crs_epsg.isChecked():
            if self.epsg.value() == 0:
                raise ValueError("EPSG code: type the code of the site's projected CRS"
                                 " (or choose Automatic)")
            crs = f"EPSG:{self.epsg.value()}"
            try:
                from pyproj import CRS

                parsed = CRS.from_user_input(crs)
            except Exception as exc:  # noqa: BLE001 - pyproj's own words
                raise ValueError(f"EPSG code {self.epsg.value()}: not known to PROJ ({exc})"
                                 ) from exc
            if not parsed.is_projected:
                raise ValueError(f"EPSG code {self.epsg.value()} ({parsed.name}) is not a"
                                 " projected CRS; the site needs one in metres or feet")
        height_m = self.antenna.value() * float(self.antenna_unit.currentData())
        if not 0.0 <= height_m < 100.0:
            raise ValueError(f"Antenna height {height_m:.3f} m: must be 0..100 m")
        crew = [c.strip() for c in self.crew.text().split(",") if c.strip()]
        return NewVisitSpec(name=name, path=self._path, crew=crew,
                            priority_waterway=self.priority.isChecked(),
                            water_features=features, crs=crs, antenna_height_m=round(height_m, 4),
                            antenna_height_unit=("m", "ft")[self.antenna_unit.currentIndex()],
                            basemap=self.basemap_path,
                            infill_area_ac=self.infill_area.value() or None,
                            infill_within_development=self.infill_within.isChecked()
                            if self.infill_area.value() else None)

    def _accept(self) -> None:
        try:
            self.result_spec = self.spec()
        except ValueError as exc:
            self.error_text = str(exc)
            QMessageBox.warning(self, "New site visit", str(exc))
            return
        self.accept()


def ask_new_visit(window: Any) -> NewVisitSpec | None:
    """Show the New visit dialog for ``window`` (its settings and latest fix); the
    :class:`NewVisitSpec`, or None when cancelled."""
    cfg = window.config
    fix = getattr(window, "latest_fix", None)
    lat, lon = getattr(fix, "lat_deg", None), getattr(fix, "lon_deg", None)
    dlg = NewVisitDialog(cfg.data_dir, crew=cfg.crew, antenna_height_m=cfg.antenna_height_m,
                         priority_waterway=cfg.priority_waterway,
                         fix_lat_lon=(lat, lon) if lat is not None and lon is not None else None,
                         parent=window if window.isVisible() else None)
    return dlg.result_spec if dlg.exec() else None


__all__ = ["NewVisitDialog", "NewVisitSpec", "WATER_TYPES", "ask_new_visit", "crs_in_feet"]
