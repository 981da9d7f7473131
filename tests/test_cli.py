"""``fieldapp --help``, ``fieldapp rules`` examples and the subcommand help texts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fieldapp import cli

REPO = Path(__file__).resolve().parents[1]


def test_fieldapp_help_lists_subcommands_then_app_options(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in (*cli.SUBCOMMAND_HELP, "rules", "sync", "report", "export"):
        # each name its own word, its line beside it ("wetland-formthe wetland ..." was one)
        assert any(line.split()[:1] == [name] for line in out.splitlines()), name
    # the app's own options follow (delegated to fieldapp.ui.app's parser)
    assert "--simulate" in out and "--replay LOG" in out
    assert out.index("export") < out.index("--simulate")
    assert cli.main(["-h"]) == 0
    assert capsys.readouterr().out == out


def test_version_prints_the_package_version(capsys):
    # the Windows stage of .ci/run checks the bundle's `fieldapp-cli.exe --version` by this line
    from fieldapp import __version__

    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"fieldapp {__version__}\n"
    assert __version__ == "0.1.0"


def _evaluate(capsys, path: Path) -> dict:
    from fieldapp.rules.cli import main as rules_main

    assert rules_main(["evaluate", str(path)]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    return result


# Expected numbers: the worked examples of the rules contract (shared/rules-contract.md, "Examples",
# worked by hand), which examples/rules/ copies.
def test_example_bank_90_ft(capsys):
    r = _evaluate(capsys, REPO / "examples/rules/bank.json")
    # 18 % > 12 % threshold on 30..90 ft, then 120 ft at 5 % (> 50 ft below threshold): bank 90 ft
    assert (r["status"], r["bank_ft"], r["extended"], r["basis"]) == ("determined", 90.0, True, "slope")


def test_example_bank_needs_data_walk_5_ft(capsys):
    r = _evaluate(capsys, REPO / "examples/rules/bank_needs_data.json")
    # only 45 ft walked below 12 % after the steep run; more than 50 ft needed: walk 5 ft more
    assert (r["status"], r["bank_ft"], r["bank_ft_at_least"], r["walk_further_ft"]) == (
        "needs_data", None, 90.0, 5.0)


def test_example_wetland_protective_area_26_ft(capsys):
    r = _evaluate(capsys, REPO / "examples/rules/wetland_protective_area.json")
    assert r["width_ft"] == 26.0  # less susceptible wetland: 10 % of 260 ft average width


def test_example_woodland_mature(capsys):
    r = _evaluate(capsys, REPO / "examples/rules/woodland_class.json")
    assert (r["class"], r["basis"]) == ("mature", "canopy")


def test_example_woodland_mitigation(capsys):
    r = _evaluate(capsys, REPO / "examples/rules/woodland_mitigation.json")
    # 1.6 of 4.0 ac retained = 40 %; young woodland protects 50 %: (0.5 - 0.4) x 4.0 ac = 0.4 ac
    assert (r["retained_pct"], r["permitted"]) == (40.0, True)
    assert r["mitigation_area_ac"] == pytest.approx(0.4)
    assert list(r["plantings"].values()) == [2, 4, 24, 8, 10]


def test_example_development_area(capsys):
    r = _evaluate(capsys, REPO / "examples/rules/development_area.json")
    # 30 x 30 ft foundation with a 20 ft round buffer: 900 + 4*30*20 + pi*20^2 = 4556.64 sq ft
    assert r["envelope_area_sqft"] == pytest.approx(4556.64, abs=0.01)


def test_rules_help_points_to_readme_not_missing_contract(capsys):
    from fieldapp.rules.cli import main as rules_main

    with pytest.raises(SystemExit):
        rules_main(["--help"])
    out = capsys.readouterr().out
    assert "rules-contract.md" not in out and "README" in out
    assert "Rule requests (fieldapp rules)" in " ".join(out.split())


@pytest.mark.parametrize("module, argv", [
    ("fieldapp.rules.cli", ["--help"]),
    ("fieldapp.rules.cli", ["evaluate", "--help"]),
    ("fieldapp.sync.cli", ["--help"]),
    ("fieldapp.report", ["--help"]),
    ("fieldapp.export", ["--help"]),
    ("devices.sim.__main__", ["--help"]),
    ("devices.nmea", ["--help"]),
])
def test_help_texts_are_plain_words(module, argv, capsys):
    import importlib

    main = importlib.import_module(module).main
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ")
    for markup in ("``", ":mod:", ":func:", ":class:", "rules-contract.md"):
        assert markup not in out, markup
    # a description paragraph follows the usage block
    assert len(out.split("\n\n")) >= 3


def test_rules_evaluate_into_a_closed_pipe_exits_1_without_a_traceback():
    # ``fieldapp rules evaluate FILE | head -1``: the reader goes away. The output (indented far
    # past a pipe's 64 KiB buffer) cannot all be written, so the write always meets the closed end.
    r, w = os.pipe()
    os.close(r)
    proc = subprocess.run(
        [sys.executable, "-m", "fieldapp", "rules", "evaluate", "--indent", "100000",
         str(REPO / "examples/rules/bank.json")],
        stdout=w, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    os.close(w)
    assert proc.returncode == 1
    assert proc.stderr == ""


def test_rules_evaluate_into_a_pipe_closed_as_windows_says_it_exits_1(monkeypatch, tmp_path, capsys):
    # Windows reports a write into a pipe whose reader has gone as EINVAL, not EPIPE
    import errno

    from fieldapp.rules import cli as rules_cli

    class ClosedOnWindows:
        def __init__(self, fd):
            self.fd = fd

        def write(self, text):
            raise OSError(errno.EINVAL, "Invalid argument")

        def flush(self):
            pass

        def fileno(self):
            return self.fd

    fd = os.open(tmp_path / "stdout", os.O_WRONLY | os.O_CREAT)
    try:
        monkeypatch.setattr(sys, "stdout", ClosedOnWindows(fd))
        assert rules_cli.main(["evaluate", str(REPO / "examples/rules/bank.json")]) == 1
    finally:
        os.close(fd)
    assert capsys.readouterr().err == ""
    assert (tmp_path / "stdout").read_bytes() == b""  # pointed at the null device, nothing written


def test_rules_evaluate_says_a_folder_that_windows_refuses_as_permission_denied(monkeypatch, tmp_path, capsys):
    # Windows' open() of a folder fails with EACCES ("permission denied"), not EISDIR
    import errno

    from fieldapp.rules import cli as rules_cli

    def windows_open(path, *args, **kwargs):
        if os.path.isdir(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return open(path, *args, **kwargs)

    monkeypatch.setattr(rules_cli, "open", windows_open, raising=False)
    assert rules_cli.main(["evaluate", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"fieldapp rules evaluate: cannot read {tmp_path}: it is a folder, not a file\n"


def test_rules_evaluate_reads_a_file_saved_with_a_byte_order_mark(tmp_path, capsys):
    # Windows Notepad's "UTF-8" starts the file with EF BB BF; json refuses it as it stands
    plain = REPO / "examples/rules/bank.json"
    bom = tmp_path / "bank-notepad.json"
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert _evaluate(capsys, bom) == _evaluate(capsys, plain)


def test_rules_evaluate_refuses_an_empty_list(tmp_path, capsys):
    # "[]" evaluates nothing; exit 0 with "[]" printed would hide an office script that lost
    # its requests
    from fieldapp.rules.cli import main as rules_main
    empty = tmp_path / "none.json"
    empty.write_text("[]\n", encoding="utf-8")
    assert rules_main(["evaluate", str(empty)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "empty list: no request to evaluate" in err


def test_rules_evaluate_says_a_missing_file_or_a_folder_in_words(tmp_path, capsys):
    from fieldapp.rules.cli import main as rules_main

    assert rules_main(["evaluate", str(tmp_path / "bank.json")]) == 2
    assert capsys.readouterr().err == f"fieldapp rules evaluate: cannot read {tmp_path / 'bank.json'}: no such file\n"
    assert rules_main(["evaluate", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"fieldapp rules evaluate: cannot read {tmp_path}: it is a folder, not a file\n"


def test_ctrl_c_while_a_subcommand_loads_is_one_line_and_exit_130(monkeypatch, capsys):
    import importlib

    from fieldapp import cli

    def interrupted(name):
        raise KeyboardInterrupt
    monkeypatch.setattr(importlib, "import_module", interrupted)
    assert cli.main(["sync", "--help"]) == 130
    err = capsys.readouterr().err
    assert err == "fieldapp: interrupted (Ctrl+C)\n"


def test_rules_evaluate_reads_standard_input_as_utf8_whatever_the_console_code_page(monkeypatch, capsys):
    """``type requests.json | fieldapp rules evaluate -`` on Windows: stdin's code page is cp1252
    or cp437, the file UTF-8 (a byte-order mark too, from Notepad)."""
    import io

    from fieldapp.rules.cli import main as rules_main

    request = {"rule": "woodland.class", "input": {"canopy_10in_pct": 34, "deciduous_share_pct": 80,
                                                   "canopy_3in_pct": 60, "trees": [], "note": "Łąka ≥ σ"}}
    data = b"\xef\xbb\xbf" + json.dumps(request, ensure_ascii=False).encode("utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="cp1252"))
    assert rules_main(["evaluate", "-"]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert (result["status"], result["class"]) == ("determined", "mature")
