"""The main screen at 1366x768 and 1280x720 (issue 35 item 11: the map is the largest thing
on screen), on the report tests' sample visit with the Transect tab shown (offscreen).
Writes main-1366x768.png and main-1280x720.png next to this script and prints each widget's
size: the map's area is larger than the workflow panel's."""
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
OUT = Path(__file__).resolve().parent
sys.path.insert(0, str(OUT.parent.parent))
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

tmp = Path(tempfile.mkdtemp(prefix="mainshot-"))
os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp / "cfg")
app = QApplication([])
from fieldapp.app import config as C
from fieldapp.ui import app as appmod
from fieldapp.ui import theme
from tests.report.sample_visit import build_sample_visit

theme.apply(app)
visit = tmp / "data" / "mill-creek.gpkg"
visit.parent.mkdir(parents=True)
build_sample_visit(visit, conflict=False)
cfg = C.build({"data_dir": str(tmp / "data"), "visit": str(visit)}, use_file=False)
w = appmod.create_window(cfg)
w.show()
while w.visit is None or w.checks_panel.table.rowCount() < 5:
    QTest.qWait(50)
for width, height in ((1366, 768), (1280, 720)):
    w.resize(width, height)
    QTest.qWait(400)
    w.tabs.setCurrentWidget(w.panels["transect"])
    QTest.qWait(300)
    w.map.zoom_to_all()
    QTest.qWait(500)
    m, t = w.map.size(), w.tabs.size()
    print(f"{width}x{height}: map {m.width()}x{m.height()} = {m.width() * m.height():,} px,"
          f" workflow panel {t.width()}x{t.height()} = {t.width() * t.height():,} px")
    w.grab().save(str(OUT / f"main-{width}x{height}.png"))
w.session.stop()
w.close()
