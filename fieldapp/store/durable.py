"""Flushing a file, and the folder a rename happened in, to the device, on every platform.

Windows: ``FlushFileBuffers`` (what :func:`os.fsync` calls there) needs a handle opened for
writing, so a file is opened ``rb+``; a folder cannot be opened at all, and NTFS journals the
rename itself, so the folder step does nothing there. POSIX: a read-only descriptor of the
folder is ``fsync``-ed so a rename inside it survives a power cut.
"""
from __future__ import annotations

import os
from pathlib import Path

#: Windows: no folder handle to flush (the rename is journalled by NTFS).
WINDOWS = os.name == "nt"


def fsync_file(path: Path | str) -> None:
    """Flush the content of the file at ``path`` to the device (a writable handle: Windows).

    Raises :class:`OSError` when the file cannot be opened for writing or flushed.
    """
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def fsync_dir(folder: Path | str) -> None:
    """Flush ``folder``'s entries (a rename inside it) to the device; nothing on Windows, where
    a folder cannot be opened and NTFS journals the rename, nor where the OS refuses."""
    if WINDOWS:
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
