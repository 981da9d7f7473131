"""The Photos tab: the selected record's photos as thumbnails; attach, drop, detach, delete.

:func:`install_photos` adds to the window (after :func:`fieldapp.ui.editing.install_editing`):

* the *Photos* tab under the map: thumbnails of the selected record's photos (with nothing
  selected: the site's, and the photos on their own), the time taken, direction and caption in
  each tooltip; *Attach photos…* (``Ctrl+Shift+P``; a file dialog for image files) to the
  selected record, *Attach to the site…*, *Caption…*, *Detach*, *Delete photo* and
  *Camera clock…* (the camera clock offset, typed or read from one photo of the app's clock);
* image files dropped on the map: attached to the selected record, or, with nothing selected,
  kept on their own and placed by EXIF GPS, else by EXIF time on the GNSS track; the photos on
  their own are drawn on the map as yellow squares.

Files are read (decoded, size-capped) on a worker thread; the photos are kept by one undoable
command on the GUI thread (:mod:`fieldapp.app.photos`), what happened said in the status line.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app import photos as P
from fieldapp.app.editing import Selection
from fieldapp.app.visitphotos import VisitPhotos
from fieldapp.survey.attach import PHOTO_LAYERS
from fieldapp.survey.features import Layer
from fieldapp.ui import theme

if TYPE_CHECKING:
    from fieldapp.ui.mapview import MapView

log = logging.getLogger(__name__)

THUMB_SHOWN_PX = 96


class PhotosView(QWidget):
    """The Photos tab (see the module docstring)."""

    def __init__(self, photos: VisitPhotos, selection: Callable[[], Selection | None],
                 status: QStatusBar) -> None:
        super().__init__()
        self.photos = photos
        self._selection = selection      # the editor's selection (fieldapp.ui.editing), if any
        self._status = status
        self.setObjectName("photosView")
        self.drop: MapDrop | None = None       # image files dropped on the map (install_photos)
        self.marks: Any = None                 # the photos on the map, a PhotoMarks (install_photos)
        self.job: Any = None
        self.folder = ""
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        left = QVBoxLayout()
        self.title = QLabel("")
        self.title.setObjectName("photosTitle")
        self.title.setWordWrap(True)
        left.addWidget(self.title)
        self.list = QListWidget()
        self.list.setObjectName("photoList")
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setIconSize(QSize(THUMB_SHOWN_PX, THUMB_SHOWN_PX))
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setMovement(QListView.Movement.Static)
        self.list.setSpacing(4)
        self.list.setGridSize(QSize(THUMB_SHOWN_PX + 8, THUMB_SHOWN_PX + 44))
        self.list.setWordWrap(True)
        self.list.itemDoubleClicked.connect(lambda _i: self.caption())
        left.addWidget(self.list, 1)
        lay.addLayout(left, 1)
        column = QWidget()
        column.setObjectName("photoButtons")
        buttons = QVBoxLayout(column)
        buttons.setContentsMargins(0, 0, 0, 0)
        self.attach_button = self._button("Attach photos…\n[Ctrl+⇧+P]", "attachPhotos",
                                          self.attach)   # two lines: the tab fits 1024 px
        self.attach_button.setToolTip("Attach image files to the selected record, or to the site"
                                      " when nothing is selected (Ctrl+Shift+P)")
        self.site_button = self._button("Attach to the site…", "attachSitePhotos",
                                        lambda: self.attach(Layer.SITE, None))
        self.caption_button = self._button("Caption…", "photoCaption", self.caption)
        self.detach_button = self._button("Detach", "detachPhoto", self.detach)
        self.detach_button.setToolTip("Take the photo off its record: it is placed by its EXIF"
                                      " GPS position or its time on the track")
        self.delete_button = self._button("Delete photo", "deletePhoto", self.delete)
        self.clock_button = self._button("Camera clock…", "cameraClock", self.camera_clock)
        for b in (self.attach_button, self.site_button, self.caption_button, self.detach_button,
                  self.delete_button, self.clock_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        # the buttons scroll when the tab is low (a 1024 x 600 tablet), never cut off
        from fieldapp.ui.workflows.base import PanelScroll

        self.buttons_scroll = PanelScroll(column)
        self.buttons_scroll.setObjectName("photoButtonsScroll")
        lay.addWidget(self.buttons_scroll)
        self.dirty = True

    def _button(self, text: str, name: str, fn: Any) -> QPushButton:
        b = QPushButton(text)
        b.setObjectName(name)
        b.setMinimumHeight(theme.TOUCH_PX)
        b.clicked.connect(lambda _checked=False: fn())
        return b

    # -------------------------------------------------------------- what is shown
    def target(self) -> tuple[Layer, str | None]:
        """The record photos go to: the selection when photos can show it, else the site."""
        sel = self._selection()
        if sel is not None and sel.layer in PHOTO_LAYERS:
            return sel.layer, sel.uuid
        return Layer.SITE, None

    def target_words(self) -> str:
        layer, uuid = self.target()
        return self.photos.target_words(layer, uuid)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        super().showEvent(event)
        if self.dirty:
            self.refresh()

    def refresh(self) -> None:
        """The thumbnails of the target's photos (and, for the site, the photos on their own)."""
        self.dirty = False
        self.list.clear()
        has_visit = self.photos.recording.visit is not None
        for b in (self.attach_button, self.site_button):
            b.setEnabled(has_visit)
        if not has_visit:
            self.title.setText("Open a visit to attach photos.")
            return
        layer, uuid = self.target()
        shown = self.photos.shown(layer, uuid)
        words = self.target_words()
        self.title.setText(f"<b>Photos of {words}</b> ({len(shown)})"
                           + (" and the photos on their own" if layer is Layer.SITE else "")
                           + " — drop image files on the map to attach them")
        for p in shown:
            pix = QPixmap()
            pix.loadFromData(p.image)
            when = p.taken
            short = when[11:] if len(when) > 11 else when          # "14:02 UTC": the day in the tip
            short = short.replace("camera local time (no zone)", "camera")   # in full there
            item = QListWidgetItem(QIcon(pix), f"{short}\n{p.facing}")
            item.setData(Qt.ItemDataRole.UserRole, p.uuid)
            item.setToolTip(f"{p.file_name}: {p.of}, taken {p.taken}, facing "
                            f"{p.facing}" + (f"\n{p.caption}" if p.caption else ""))
            self.list.addItem(item)
        if shown:
            self.list.setCurrentRow(0)
        for b in (self.caption_button, self.detach_button, self.delete_button):
            b.setEnabled(bool(shown))

    def _chosen(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def _say(self, text: str) -> None:
        self._status.showMessage(text, 15000)

    # -------------------------------------------------------------- commands
    def attach(self, layer: Layer | None = None, uuid: str | None = None) -> None:
        """Ctrl+Shift+P: a file dialog for image files, attached to the target."""
        if self.photos.recording.visit is None:
            return
        if layer is None:
            layer, uuid = self.target()
        words = self.photos.target_words(layer, uuid)
        paths, _ = QFileDialog.getOpenFileNames(self.window(), f"Attach photos to {words}",
                                                self.folder, P.FILE_FILTER)
        if paths:
            self.folder = str(Path(paths[0]).parent)
            self.start_reading(paths, layer, uuid)

    def start_reading(self, paths: list[Any], layer: Layer | None, uuid: str | None) -> None:
        """Read ``paths`` off the GUI thread, then keep them on ``layer``/``uuid`` (None: placed)."""
        from fieldapp.ui.jobs import BackgroundJob

        if self.job is not None and self.job.running():
            self._say("Still reading the photos chosen before; try again in a moment.")
            return
        self._say(f"Reading {len(paths)} photo file{'s' if len(paths) != 1 else ''}…")
        job = BackgroundJob("photos", lambda _progress, _cancel: self.photos.read(paths), self)
        job.sigDone.connect(lambda result: self._keep(result, layer, uuid))
        job.sigFailed.connect(lambda exc: self._say(f"Photos not read: {exc}"))
        self.job = job
        job.start()

    def _keep(self, result: tuple[Any, ...], layer: Layer | None, uuid: str | None) -> None:
        photos, refused = result
        if self.photos.recording.visit is None:
            return
        try:
            out = self.photos.keep(photos, refused, layer, uuid)
        except Exception as exc:  # noqa: BLE001 - said in words, nothing kept
            from fieldapp.app.editing import refusal_words

            self._say(f"Photos not kept: {refusal_words(exc)}")
            return
        self._say(out.message[:1].upper() + out.message[1:] + (" Ctrl+Z undoes it." if out.kept else ""))
        self.refresh()

    def caption(self) -> None:
        uuid = self._chosen()
        if uuid is None or self.photos.recording.visit is None:
            return
        text, ok = QInputDialog.getMultiLineText(self.window(), "Photo caption", "Caption:",
                                                 self.photos.caption_of(uuid))
        if ok:
            self.photos.set_caption(uuid, text)
            self._say("Caption kept — Ctrl+Z undoes it")
            self.refresh()

    def detach(self) -> None:
        uuid = self._chosen()
        if uuid is None or self.photos.recording.visit is None:
            return
        where = self.photos.detach(uuid)
        self._say(f"Photo detached, {where} — Ctrl+Z undoes it")
        self.refresh()

    def delete(self) -> None:
        uuid = self._chosen()
        if uuid is None or self.photos.recording.visit is None:
            return
        self.photos.delete(uuid)
        self._say("Photo deleted — Ctrl+Z brings it back")
        self.refresh()

    def camera_clock(self) -> None:
        """The camera clock offset: typed, or from a photo of the app's clock."""
        dlg = CameraClockDialog(self.window(), self.photos.camera_offset_s)
        if dlg.exec() == QDialog.DialogCode.Accepted:
            self.photos.remember_camera_offset(dlg.offset.value())
            self._say(f"Camera clock offset {dlg.offset.value():+.0f} s kept for photos placed by time")


class CameraClockDialog(QDialog):
    """The camera clock offset (s, camera minus UTC): typed, or read from a photo of the app's
    clock and the UTC it showed."""

    def __init__(self, parent: Any, offset_s: float) -> None:
        super().__init__(parent)
        self.setWindowTitle("Camera clock")
        self.setObjectName("cameraClockDialog")
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Photograph this laptop's clock with the camera, then pick that photo"
                             " and type the UTC time the clock showed. Photos placed by their time"
                             " on the GNSS track are corrected by the offset."))
        form = QFormLayout()
        self.offset = QDoubleSpinBox()
        self.offset.setObjectName("cameraOffset")
        self.offset.setRange(-7 * 86400, 7 * 86400)
        self.offset.setDecimals(0)
        self.offset.setSuffix(" s (camera minus UTC)")
        self.offset.setValue(offset_s)
        form.addRow("Offset", self.offset)
        # PySide6 takes a Python datetime here; its stubs list only QDate / QDateTime / QTime
        self.shown = QDateTimeEdit(datetime.now(UTC).replace(tzinfo=None))  # type: ignore[call-overload]
        self.shown.setDisplayFormat("yyyy-MM-dd HH:mm:ss 'UTC'")
        self.shown.setObjectName("clockShown")
        form.addRow("The clock showed", self.shown)
        lay.addLayout(form)
        self.problem = QLabel("")
        self.problem.setObjectName("clockProblem")
        self.problem.setWordWrap(True)
        lay.addWidget(self.problem)
        pick = QPushButton("From the photo of the clock…")
        pick.setObjectName("clockPhoto")
        pick.clicked.connect(self.from_photo)
        lay.addWidget(pick)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        lay.addWidget(box)

    def from_photo(self, path: str | None = None) -> None:
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "The photo of the app's clock", "", P.FILE_FILTER)
        if not path:
            return
        shown = self.shown.dateTime().toPython().replace(tzinfo=UTC)
        try:
            self.offset.setValue(P.offset_from_clock_photo(path, shown))
            self.problem.setText("")
        except ValueError as exc:   # PhotoError: not a photo, no EXIF time
            self.problem.setText(str(exc))


class MapDrop(QObject):
    """Image files dropped on the map: attached to the selected record, or placed on their own
    (an event filter on the map's viewport: the map widget itself is left as it is)."""

    def __init__(self, view: PhotosView, map_view: MapView) -> None:
        super().__init__(view)
        self.view = view
        target = map_view.plot.viewport()
        target.setAcceptDrops(True)
        map_view.plot.setAcceptDrops(True)
        target.installEventFilter(self)

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt name
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if self._paths(event):
                event.acceptProposedAction()
                return True
            return False
        if kind == QEvent.Type.Drop:
            paths = self._paths(event)
            if not paths:
                return False
            event.acceptProposedAction()
            self.dropped(paths)
            return True
        return False

    @staticmethod
    def _paths(event: Any) -> list[Any]:
        md = event.mimeData()
        if md is None or not md.hasUrls():
            return []
        return P.photo_files(u.toLocalFile() for u in md.urls() if u.isLocalFile())

    def dropped(self, paths: list[Any]) -> None:
        """Attach ``paths`` to the selected record, else keep them placed on their own."""
        if self.view.photos.recording.visit is None:
            self.view._say("Open a visit before dropping photos on the map.")
            return
        sel = self.view._selection()
        if sel is not None and sel.layer in PHOTO_LAYERS:
            self.view.start_reading([str(p) for p in paths], sel.layer, sel.uuid)
        else:
            self.view.start_reading([str(p) for p in paths], None, None)


class PhotoMarks:
    """The photos on their own, placed by EXIF GPS or on the track, as camera marks on the map
    (an item of the map's plot, as the selection mark is: the map widget is left as it is)."""

    def __init__(self, photos: VisitPhotos, map_view: MapView) -> None:
        import pyqtgraph as pg

        from fieldapp.ui.mapview import set_points

        self.photos = photos
        self.map = map_view
        self.item = pg.ScatterPlotItem(size=16, symbol="s", brush=pg.mkBrush("#ffd400"),
                                       pen=pg.mkPen("#000000", width=2))
        self.item.setZValue(25)
        map_view.plot.getPlotItem().addItem(self.item)
        set_points(self.item, [], [])            # hidden until a photo is placed

    def refresh(self) -> None:
        pts = self.photos.placed_ft()
        from fieldapp.ui.mapview import set_points

        local = self.map._to_local(pts) if pts else []
        set_points(self.item, [x for x, _ in local], [y for _, y in local])


def install_photos(window: Any, editor: Any) -> PhotosView:
    """Add the Photos tab, Ctrl+Shift+P and the map drop to ``window`` after ``editor`` (the
    :class:`fieldapp.ui.editing.Editor`, whose selection a photo is attached to; None: the
    site); returns the view (the window keeps it as ``window.photos``)."""
    photos = VisitPhotos(window.recording, window.settings)
    view = PhotosView(photos, lambda: editor.selection if editor is not None else None,
                      window.statusBar())
    window.lower_tabs.addTab(view, "Photos")
    def attach() -> None:
        window.lower_tabs.setCurrentWidget(view)
        view.attach()

    window._action("Attach photos…", "Ctrl+Shift+P", attach,
                   tip="Attach photos to the selected record, or to the site")
    view.drop = MapDrop(view, window.map)          # declared by PhotosView
    view.marks = PhotoMarks(photos, window.map)
    if editor is not None:
        editor.selection_listeners.append(lambda _sel: _refresh_soon(view))
    window.recording.on_shown(lambda visit: _visit_shown(view, visit))
    return view


def _refresh_soon(view: PhotosView) -> None:
    view.marks.refresh()
    if view.isVisible():
        view.refresh()
    else:
        view.dirty = True


def _visit_shown(view: PhotosView, visit: Any) -> None:
    if visit is not None:
        visit.change_listeners.append(lambda only_track: None if only_track else _refresh_soon(view))
    _refresh_soon(view)
