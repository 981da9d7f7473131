"""The report's photos section: thumbnails (at most 56 mm, 200 dpi) grouped under the feature
they show, each with its time and direction; no section at all without photos; a photo that
cannot be read is named in words; rows of thumbnails never split across a page. JPEGs are
made here with Pillow."""

from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import FrozenInstanceError, replace

import pytest
from PIL import Image as PILImage

from fieldapp.report.photos import THUMB_MM, PhotoEntry, thumbnail
from tests.report.sample_visit import build_sample_visit

pypdf = pytest.importorskip("pypdf")


def jpeg(w: int, h: int, colour=(200, 40, 40), orientation: int | None = None) -> bytes:
    out = io.BytesIO()
    im = PILImage.new("RGB", (w, h), colour)
    exif = PILImage.Exif()
    if orientation:
        exif[0x0112] = orientation
    im.save(out, "JPEG", quality=90, exif=exif.tobytes())
    return out.getvalue()


def test_thumbnail_is_upright_and_at_most_56_mm():
    # 4000 x 3000 px landscape -> longer side 56 mm at 200 dpi = 440.9, so 440 px: 440 x 330 px
    data, w_mm, h_mm = thumbnail(jpeg(4000, 3000))
    assert w_mm == pytest.approx(440 / 200 * 25.4) and w_mm <= THUMB_MM
    assert PILImage.open(io.BytesIO(data)).size == (440, 330)
    # EXIF orientation 6 (rotate 90° clockwise to view): the stored 4000 x 3000 shows portrait
    _, w_mm, h_mm = thumbnail(jpeg(4000, 3000, orientation=6))
    assert h_mm > w_mm and h_mm == pytest.approx(440 / 200 * 25.4)
    with pytest.raises(ValueError, match="could not be read as an image"):
        thumbnail(b"not a jpeg")


def test_photo_entry_is_frozen():
    p = PhotoEntry("Tree tag 12", "2026-06-01 14:02 UTC", "312° true", "north face", b"")
    with pytest.raises(FrozenInstanceError):
        p.caption = "x"


def _pdftotext(path, *args) -> str:
    tool = shutil.which("pdftotext")
    if tool is None:
        pytest.skip("pdftotext is not installed")
    return subprocess.run([tool, *args, str(path), "-"], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory, qapp):
    from fieldapp.report import content as C
    from fieldapp.report.content import gather, load_visit
    from fieldapp.report.document import write_pdf

    folder = tmp_path_factory.mktemp("photos")
    visit = folder / "v.gpkg"
    build_sample_visit(visit, conflict=False)
    content = gather(load_visit(visit), visit, conflicts=[])
    photos = [PhotoEntry("Tree tag 12", f"2026-06-01 14:0{i} UTC", f"{300 + i}° true", f"crown {i}",
                         jpeg(1600, 1200, (30 * i, 120, 60))) for i in range(5)]
    photos.insert(2, PhotoEntry("OHWM point 3", "2026-06-01 15:10 UTC", "—", "", jpeg(1200, 1600)))
    photos.append(PhotoEntry("OHWM point 3", "2026-06-01 15:12 UTC", "90° true", "scour", b"broken"))
    photos += [PhotoEntry(f"Tree tag {20 + i}", "2026-06-01 16:00 UTC", "—", "", jpeg(800, 600, (10 * i, 10, 200)))
               for i in range(12)]
    with_photos = folder / "with.pdf"
    without = folder / "without.pdf"
    write_pdf(replace(content, photos=tuple(photos)), str(with_photos), step=lambda f, m: None)
    write_pdf(content, str(without), step=lambda f, m: None)
    assert C.ReportContent.__dataclass_fields__["photos"].default == ()
    return dict(with_photos=with_photos, without=without, photos=photos)


def test_no_photos_no_section(built):
    lines = [ln.strip() for ln in _pdftotext(built["without"]).splitlines()]
    assert "Photos" not in lines
    titles = [o.title for o in pypdf.PdfReader(built["without"]).outline if not isinstance(o, list)]
    assert "Photos" not in titles


def test_photos_grouped_under_their_feature_with_time_and_direction(built):
    reader = pypdf.PdfReader(built["with_photos"])
    outline = reader.outline
    titles = [o.title for o in outline if not isinstance(o, list)]
    i = titles.index("Photos")
    # the features in the order they first appear, as subsections under "Photos"
    subs = [o.title for o in outline[[k for k, o in enumerate(outline) if not isinstance(o, list)][i] + 1]]
    assert subs[:3] == ["Tree tag 12", "OHWM point 3", "Tree tag 20"] and len(subs) == 14
    lines = [ln.strip() for ln in _pdftotext(built["with_photos"]).splitlines()]
    assert lines.count("Photos") == 1  # the heading once: nothing hidden or drawn twice
    raw = " ".join(_pdftotext(built["with_photos"], "-raw").split())
    assert "2026-06-01 14:03 UTC · direction 303° true crown 3" in raw
    assert "2026-06-01 15:10 UTC · direction —" in raw
    assert "the photo could not be read as an image" in raw
    # the six readable photos of the first two features and twelve more: 18 images placed
    # (the map and two profiles are images too)
    placed = sum(len(p.images) for p in reader.pages)
    assert placed == 18 + 3


def test_a_row_of_thumbnails_is_never_split(built):
    pages = _pdftotext(built["with_photos"], "-raw").split("\f")
    for t in range(5):
        holding = [n for n, p in enumerate(pages) if f"crown {t}" in p]
        assert len(holding) == 1


def test_no_feature_heading_is_left_at_a_page_foot(built):
    reader = pypdf.PdfReader(built["with_photos"])
    titles = {p.feature for p in built["photos"]} | {"Photos"}
    # -raw gives each page's text in drawing order: header and footer first, then the body, so
    # a page's last line is the last thing in its body
    for n, page in enumerate(_pdftotext(built["with_photos"], "-raw").split("\f")[:-1], 1):
        last = [ln.strip() for ln in page.splitlines() if ln.strip()][-1]
        assert last not in titles, (n, last)
    assert len(reader.pages) >= 12


def test_photos_attached_in_the_app_reach_the_report(tmp_path):
    # the store's rows (fieldapp.store.photos.photo_entries) fill the section: a photo attached
    # to a tree appears under "Tree tag N" with its EXIF time and direction
    from fieldapp.app.config import AppConfig
    from fieldapp.app.photos import attach_files
    from fieldapp.report import build_report
    from fieldapp.store import open_visit
    from fieldapp.survey import Layer
    from tests.photo_sample import jpeg as exif_jpeg

    visit = tmp_path / "site.gpkg"
    build_sample_visit(visit, conflict=False)
    photo = exif_jpeg(tmp_path / "IMG_0412.jpg", when="2024:05:14 10:02:00", direction=312.0)
    with open_visit(visit) as store:
        tree = store.visit.trees()[0]
        out = attach_files(store.visit, [photo], layer=Layer.TREE, uuid=tree.uuid,
                           config=AppConfig(data_dir=str(tmp_path)))
        assert len(out.kept) == 1
    pdf = tmp_path / "site.pdf"
    build_report(visit, pdf)
    text = "\n".join(page.extract_text() for page in pypdf.PdfReader(str(pdf)).pages)
    assert "Photos" in text
    assert f"Tree tag {tree.tag}" in text
    assert "312° true" in text
