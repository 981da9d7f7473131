"""Symbolic links in tests on every OS: Windows makes one only with the symlink privilege
(developer mode or an administrator); without it the test skips, saying so."""

from __future__ import annotations

import os

import pytest

NO_SYMLINK_PRIVILEGE = 1314  # ERROR_PRIVILEGE_NOT_HELD


def symlink_or_skip(target, link, target_is_directory: bool = False) -> None:
    """``os.symlink(target, link)``; on Windows without the privilege the test skips."""
    try:
        os.symlink(target, link, target_is_directory=target_is_directory)
    except OSError as exc:
        if getattr(exc, "winerror", None) != NO_SYMLINK_PRIVILEGE:
            raise
        pytest.skip("Windows without the symlink privilege (developer mode off, not an"
                    " administrator): no symbolic link to test with")
