"""Print the Windows test environment's requirements, one a line (used by .ci/windows).

The project's runtime ``dependencies`` from pyproject.toml, the parts of the ``test`` extra that
run on Windows CPython under wine, and the packages that pip would pull in only through a
``sys_platform == "win32"`` marker (``pip download --platform`` evaluates markers for the Linux
machine it runs on, so they are named here). Pins for wine 8 go in ``constraints.txt``.
"""

import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The test extra, less import-linter (tests/test_layout.py runs on Linux) and cryptography
# (its Rust extension needs bcryptprimitives.dll, which wine 8 lacks).
TEST_ON_WINDOWS = ("pytest", "pytest-qt", "pytest-timeout", "hypothesis", "pypdfium2", "pyinstaller")
# Behind win32 markers: keyring and pyinstaller (pywin32-ctypes), psycopg (tzdata), pytest and
# click (colorama), pyinstaller (pefile).
WINDOWS_ONLY = ["pywin32-ctypes", "tzdata", "colorama", "pefile"]


def main():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for requirement in project["optional-dependencies"]["test"]:
        name = re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0]
        if name in TEST_ON_WINDOWS:
            wanted.append(requirement)
    missing = set(TEST_ON_WINDOWS) - {re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0] for r in wanted}
    if missing:
        sys.exit(f"requirements.py: the test extra no longer names {sorted(missing)}")
    for line in wanted + WINDOWS_ONLY:
        print(line.split("#")[0].strip())


if __name__ == "__main__":
    main()
