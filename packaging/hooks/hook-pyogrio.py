"""PyInstaller hook for pyogrio (GDAL): its compiled submodules and the wheel's data folders.

pyogrio finds GDAL's support files in ``pyogrio/gdal_data`` and PROJ's database in
``pyogrio/proj_data`` beside its own modules (``pyogrio._ogr.init_gdal_data`` /
``init_proj_data``), so both folders are collected to the same place. The GDAL shared
library in ``pyogrio.libs`` is found by PyInstaller's binary analysis of ``pyogrio/_io``.
No hook for pyogrio ships with pyinstaller-hooks-contrib (2026.9).
"""

from PyInstaller.utils.hooks import collect_data_files, collect_submodules

hiddenimports = collect_submodules("pyogrio", filter=lambda name: not name.startswith("pyogrio.tests"))
# The standard-library modules its compiled modules import (pyogrio/_*.pyx), which the analysis
# cannot see inside a .so: without uuid, `import pyogrio` fails in a bundle (pyogrio._vsi).
hiddenimports += ["contextlib", "datetime", "fnmatch", "functools", "io", "itertools", "locale",
                  "logging", "math", "pathlib", "struct", "tempfile", "uuid", "warnings"]
datas = collect_data_files("pyogrio", subdir="gdal_data") + collect_data_files("pyogrio", subdir="proj_data")
