"""Benchmark: the site report of a visit with 2,000 trees and 20 transects (target <= 10 s).

Run: ``QT_QPA_PLATFORM=offscreen python bench/bench_report.py``. Prints the time to build the
visit (not counted), the report time, pages and file size; also an export of each format.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fieldapp.export import FORMATS, export_visit
from fieldapp.report import build_report
from tests.report.test_report_visit import build_sample_visit

TARGET_S = 10.0


def main() -> None:
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 - fonts need it
    with tempfile.TemporaryDirectory() as tmp:
        visit = Path(tmp) / "big.gpkg"
        t = time.perf_counter()
        build_sample_visit(visit, trees=2000, transects=20)
        print(f"built visit: 2,000 trees, 20 transects in {time.perf_counter() - t:.1f} s (not counted)")
        out = Path(tmp) / "report.pdf"
        t = time.perf_counter()
        s = build_report(visit, out)
        dt = time.perf_counter() - t
        print(f"report: {dt:.2f} s (target <= {TARGET_S:g} s) -> {s['pages']} pages, "
              f"{s['verdicts']} verdicts, {out.stat().st_size / 1e6:.2f} MB "
              f"[{'OK' if dt <= TARGET_S else 'OVER TARGET'}]")
        for fmt in FORMATS:
            target = Path(tmp) / (f"x.{fmt}" if fmt in ("kml", "dxf") else f"x-{fmt}")
            t = time.perf_counter()
            export_visit(visit, target, fmt)
            print(f"export {fmt}: {time.perf_counter() - t:.2f} s")
        if len(sys.argv) > 1:  # keep the PDF to look at: bench_report.py OUT.pdf
            Path(sys.argv[1]).write_bytes(out.read_bytes())


if __name__ == "__main__":
    main()
