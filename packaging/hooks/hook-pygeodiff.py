"""PyInstaller hook for pygeodiff: the geodiff library it opens with ``ctypes.CDLL``.

``pygeodiff.geodifflib`` loads ``libpygeodiff-VERSION-python.so`` (``.pyd`` / ``.dylib``) from its
own folder by a computed name, which binary analysis cannot see; its sqlite dependency in
``pygeodiff.libs`` then follows from the library's own links.
"""

from PyInstaller.utils.hooks import collect_dynamic_libs

# Linux libpygeodiff-V-python.so, macOS libpygeodiff-V-python[-arm64].dylib, Windows pygeodiff-V-python[-win32].pyd
binaries = collect_dynamic_libs("pygeodiff", search_patterns=["*pygeodiff-*-python*"])
