"""The layering promises of DEVELOPERS.md: Qt stays in fieldapp/ui."""

import subprocess
import sys

import pytest

PURE = ["devices", "fieldapp.rules", "fieldapp.cli", "fieldapp.geo", "fieldapp.survey", "fieldapp.store", "fieldapp.sync", "fieldapp.checks", "fieldapp.app"]


@pytest.mark.parametrize("module", PURE)
def test_pure_packages_do_not_import_qt(module):
    code = (
        "import importlib, pkgutil, sys\n"
        f"m = importlib.import_module({module!r})\n"
        "for info in pkgutil.walk_packages(getattr(m, '__path__', []), m.__name__ + '.'):\n"
        "    if '.ui' in info.name or info.name.endswith('__main__'):\n"
        "        continue\n"
        "    importlib.import_module(info.name)\n"
        "bad = [n for n in sys.modules if n.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
