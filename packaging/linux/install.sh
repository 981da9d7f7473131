#!/bin/sh
# Put the unpacked fieldapp bundle in the applications menu for the current user:
#   ./install.sh              menu entry (+ "with simulated devices" action), icon, `fieldapp` command
#   ./install.sh --uninstall  remove them again (the bundle folder, settings and visits are kept)
# The bundle runs from where it was unpacked, so unpack it where it will stay (e.g. ~/Apps/fieldapp).
# PREFIX (default ~/.local) decides where the entry goes: PREFIX=/usr/local sudo ./install.sh for all users.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}
applications="$prefix/share/applications"
icons="$prefix/share/icons/hicolor"
bindir="$prefix/bin"

refresh() {
    # Menus pick the change up on their own; these only speed it up, where installed.
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$applications" 2>/dev/null || true
    fi
    # An icon cache is kept only where one exists already (system folders): a stale one hides icons.
    if [ -f "$icons/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache -q -t "$icons" 2>/dev/null || true
    fi
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$applications/fieldapp.desktop" \
          "$icons/scalable/apps/fieldapp.svg" \
          "$icons/256x256/apps/fieldapp.png"
    if [ -L "$bindir/fieldapp" ]; then
        rm -f "$bindir/fieldapp"
    fi
    refresh
    echo "fieldapp: menu entry, icon and command removed; $here and your visits are kept."
    exit 0
fi
if [ $# -gt 0 ]; then
    echo "usage: $0 [--uninstall]" >&2
    exit 2
fi
if [ ! -x "$here/fieldapp" ]; then
    echo "install.sh: no executable fieldapp beside this script in $here; run it from the unpacked bundle." >&2
    exit 1
fi

mkdir -p "$applications" "$icons/scalable/apps" "$icons/256x256/apps" "$bindir"
cp "$here/fieldapp.svg" "$icons/scalable/apps/fieldapp.svg"
cp "$here/fieldapp.png" "$icons/256x256/apps/fieldapp.png"
# Exec/TryExec get the absolute path (a menu does not search ~/.local/bin); Exec quotes it, so a
# path with spaces works, and doubles "%" as the desktop entry spec asks.
case $here in
    *[\"\`\$\\]*)
        echo "install.sh: move the bundle to a folder whose path has no \" \` \$ or \\ in it" >&2
        exit 1
        ;;
esac
sed_escape() { printf '%s\n' "$1" | sed 's/[&|]/\\&/g'; }
exec_path=$(sed_escape "$(printf '%s\n' "$here/fieldapp" | sed 's/%/%%/g')")
tryexec_path=$(sed_escape "$here/fieldapp")
sed -e "s|^Exec=fieldapp|Exec=\"$exec_path\"|" -e "s|^TryExec=fieldapp|TryExec=$tryexec_path|" \
    "$here/fieldapp.desktop" > "$applications/fieldapp.desktop"
chmod 644 "$applications/fieldapp.desktop"
if [ -e "$bindir/fieldapp" ] && [ ! -L "$bindir/fieldapp" ]; then
    echo "install.sh: $bindir/fieldapp exists and is not a link; left as it is." >&2
else
    ln -sfn "$here/fieldapp" "$bindir/fieldapp"
fi
refresh
echo "fieldapp: added to the applications menu ($applications/fieldapp.desktop) and as $bindir/fieldapp"
