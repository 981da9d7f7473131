#!/usr/bin/env bash
# Build the field-laptop app from this checkout, in its own virtual environment:
#
#   bash packaging/build.sh               dist/fieldapp/ (one-folder bundle) and, on Linux,
#                                         dist/fieldapp-VERSION-linux-ARCH.tar.gz
#   bash packaging/build.sh --installer   on Windows (Git Bash), also the Inno Setup installer
#                                         dist/fieldapp-VERSION-setup.exe (needs Inno Setup 6)
#
# Build from a clean clone: the bundle holds what `pip install .` installs from the working tree.
# Environment: PYTHON (default python3, or python/py), BUILD_VENV (default build/venv),
# ISCC (path of Inno Setup's ISCC.exe when it is not on PATH or in its default folder).
set -euo pipefail
cd "$(dirname "$0")/.."

installer=0
for arg in "$@"; do
    case $arg in
        --installer) installer=1 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
    esac
done

case "$(uname -s)" in
    MINGW*|MSYS*|CYGWIN*) windows=1 ;;
    *) windows=0 ;;
esac

python=${PYTHON:-}
if [ -z "$python" ]; then
    for candidate in python3 python py; do
        if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
    done
fi
[ -n "$python" ] || { echo "build.sh: no python3 found; set PYTHON" >&2; exit 1; }

if [ -n "$(git status --porcelain 2>/dev/null || true)" ]; then
    echo "build.sh: note: the working tree has uncommitted changes; they go into the bundle." >&2
fi

venv=${BUILD_VENV:-build/venv}
echo "== virtual environment $venv ($python)"
"$python" -m venv "$venv"
if [ -x "$venv/bin/python" ]; then vpy=$venv/bin/python; else vpy=$venv/Scripts/python.exe; fi
"$vpy" -m pip install -q --upgrade pip
# The app (not editable: the bundle must not depend on the checkout) and PyInstaller (`package` extra).
"$vpy" -m pip install -q ".[package]"

echo "== PyInstaller"
"$vpy" -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller \
    packaging/fieldapp.spec

version=$("$vpy" -c "import fieldapp; print(fieldapp.__version__)")
if [ "$windows" = 0 ]; then
    archive="dist/fieldapp-$version-linux-$(uname -m).tar.gz"
    echo "== $archive"
    tar -C dist -czf "$archive" fieldapp
fi

if [ "$installer" = 1 ]; then
    [ "$windows" = 1 ] || { echo "build.sh: --installer builds the Windows installer; run it on Windows" >&2; exit 1; }
    iscc=${ISCC:-}
    if [ -z "$iscc" ]; then
        if command -v iscc >/dev/null 2>&1; then
            iscc=iscc
        else
            for dir in "C:/Program Files (x86)" "C:/Program Files" "${LOCALAPPDATA:-}/Programs"; do
                if [ -x "$dir/Inno Setup 6/ISCC.exe" ]; then iscc="$dir/Inno Setup 6/ISCC.exe"; break; fi
            done
        fi
    fi
    [ -n "$iscc" ] || { echo "build.sh: Inno Setup 6 not found (https://jrsoftware.org/isinfo.php); set ISCC" >&2; exit 1; }
    echo "== Inno Setup ($iscc)"
    "$iscc" "/DAppVersion=$version" packaging/windows/fieldapp.iss
fi

echo "== done: dist/fieldapp/"
