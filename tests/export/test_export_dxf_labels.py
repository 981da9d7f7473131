"""DXF labels never print over each other (issue 31, item 2, on the dense visit): each tree's
tag and each line's name goes to a free place around its mark, inside the data's extent, clear
of the point symbols; a label with no free place is dropped from the drawing, the attribute
staying on the block (invisible) and a line's attributes in its XDATA. Checked on the boxes
ezdxf measures, as CAD draws them."""

from __future__ import annotations

import ezdxf
import pytest
from ezdxf import bbox

from tests.export.test_export_dxf_cad import demo, dense  # noqa: F401  (module fixtures)

FRAME_LAYERS = {"title_block", "legend"}


def shown_labels(msp):
    """(text, layer, ezdxf box) of every label CAD shows on the data: TEXT outside the title
    block and legend, and the visible attributes of the blocks."""
    out = []
    cache = bbox.Cache()
    for t in msp.query("TEXT"):
        if t.dxf.layer not in FRAME_LAYERS:
            out.append((t.dxf.text, t.dxf.layer, bbox.extents([t], cache=cache)))
    for ref in msp.query("INSERT"):
        for a in ref.attribs:
            if not a.is_invisible:
                out.append((a.dxf.text, a.dxf.layer, bbox.extents([a], cache=cache)))
    return out


def meet(a, b) -> bool:
    return (a.extmin.x < b.extmax.x and b.extmin.x < a.extmax.x
            and a.extmin.y < b.extmax.y and b.extmin.y < a.extmax.y)


def test_dense_labels_do_not_overlap_and_dropped_tags_stay_on_the_block(dense):  # noqa: F811
    _, out, _ = dense
    doc = ezdxf.readfile(out)
    msp = doc.modelspace()
    labels = shown_labels(msp)
    clashes = [(a[0], b[0]) for i, a in enumerate(labels) for b in labels[i + 1:] if meet(a[2], b[2])]
    assert clashes == []
    refs = msp.query('INSERT[layer=="tree_live" | layer=="tree_dead" | layer=="tree_removed"]')
    assert len(refs) == 204
    tags = [next(a for a in ref.attribs if a.dxf.tag == "TAG") for ref in refs]
    shown = [a for a in tags if not a.is_invisible]
    assert 25 <= len(shown) < 204           # 31 placed; the rest dropped from the drawing only
    assert all(a.dxf.text for a in tags)    # ... with the tag still on every block
    assert all(len(ref.attribs) == len(refs[0].attribs) for ref in refs)
    # lines and areas keep their names (placed first)
    assert {t.dxf.text for t in msp.query('TEXT[layer=="transect"]')} == {"T1", "T2"}
    # a shown label stays near its tree: within three symbol widths of the insert point
    for ref in refs:
        a = next(a for a in ref.attribs if a.dxf.tag == "TAG")
        if not a.is_invisible:
            box = bbox.extents([a])
            cx, cy = box.center.x, box.center.y
            assert abs(cx - ref.dxf.insert.x) < 4 * box.size.x and abs(cy - ref.dxf.insert.y) < 4 * box.size.y
    assert not doc.audit().has_errors


def test_demo_keeps_every_label(demo):  # noqa: F811
    _, out, _ = demo
    msp = ezdxf.readfile(out).modelspace()
    labels = shown_labels(msp)
    assert [(a[0], b[0]) for i, a in enumerate(labels) for b in labels[i + 1:] if meet(a[2], b[2])] == []
    assert all(not a.is_invisible for ref in msp.query("INSERT") for a in ref.attribs if a.dxf.tag == "TAG"
               and ref.dxf.layer.startswith("tree"))


def test_dense_renders_with_ezdxfs_drawing_add_on(dense, tmp_path):  # noqa: F811
    """ezdxf's drawing add-on draws the file (docs/dxf-dense.png is made this way)."""
    pytest.importorskip("PySide6")
    from PySide6.QtGui import QImage

    png = tmp_path / "dense.png"
    render_png(dense[1], png, width_px=600)
    img = QImage(str(png))
    assert img.width() == 600 and img.height() > 100
    lit = sum(1 for x in range(0, 600, 5) for y in range(0, img.height(), 5) if img.pixel(x, y) & 0xFFFFFF)
    assert lit > 100


def render_png(dxf_path, png_path, width_px: int = 1600, region=None) -> None:
    """Draw the DXF's model space with ezdxf's drawing add-on (Qt backend) into ``png_path``,
    north up; ``region`` (xmin, ymin, xmax, ymax in drawing units) crops it."""
    from ezdxf.addons.drawing import Frontend, RenderContext
    from ezdxf.addons.drawing.pyqt import PyQtBackend
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QApplication, QGraphicsScene

    _app = QApplication.instance() or QApplication([])
    doc = ezdxf.readfile(dxf_path)
    scene = QGraphicsScene()
    Frontend(RenderContext(doc), PyQtBackend(scene)).draw_layout(doc.modelspace(), finalize=True)
    rect = (scene.itemsBoundingRect() if region is None
            else QRectF(region[0], region[1], region[2] - region[0], region[3] - region[1]))
    height_px = max(1, int(width_px * rect.height() / rect.width()))
    img = QImage(width_px, height_px, QImage.Format.Format_RGB32)
    img.fill(Qt.GlobalColor.black)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.translate(0, height_px)       # the scene is in drawing units, y up: flip to the image's y down
    p.scale(1, -1)
    scene.render(p, QRectF(0, 0, width_px, height_px), rect)
    p.end()
    img.save(str(png_path))
