"""``fieldapp --help``, ``fieldapp rules`` examples and the subcommand help texts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fieldapp import cli

REPO = Path(__file__).resolve().parents[1]


def test_fieldapp_help_lists_subcommands_then_app_options(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("rules", "sync", "report", "export"):
        assert any(line.split()[:1] == [name] for line in out.splitlines()), name
    # the app's own options follow (delegated to fieldapp.ui.app's parser)
    assert "--simulate" in out and "--replay LOG" in out
    assert out.index("export") < out.index("--simulate")
    assert cli.main(["-h"]) == 0
    assert capsys.readouterr().out == out
