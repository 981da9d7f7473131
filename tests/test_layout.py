"""The layering promises of DEVELOPERS.md: Qt stays in fieldapp/ui."""

import subprocess
import sys

import pytest

PURE = ["devices", "fieldapp.rules", "fieldapp.cli", "fieldapp.geo", "fieldapp.survey", "fieldapp.store",
        "fieldapp.sync", "fieldapp.checks", "fieldapp.app"]


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


# --------------------------------------------------------------------------- import-linter
# The layer contracts live in pyproject.toml ([tool.importlinter]); they are data, checked here.
REPO = __import__("pathlib").Path(__file__).resolve().parents[1]
CONTRACT_IDS = ("devices", "rules", "no-qt", "layers")


def _lint_imports(cwd, config):
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    env = {**__import__("os").environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([sys.executable, "-c", code, "--no-cache", str(config)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_layer_contracts_are_kept():
    r = _lint_imports(REPO, REPO / "pyproject.toml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Contracts: {len(CONTRACT_IDS)} kept, 0 broken." in r.stdout


def test_layer_contracts_catch_an_import_against_the_flow(tmp_path):
    """A copy of the tree with three bad imports: every contract reports one broken."""
    import shutil

    for pkg in ("devices", "fieldapp"):
        shutil.copytree(REPO / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    bad = {
        "devices/readings.py": "import fieldapp.geo  # noqa",             # devices -> fieldapp
        "fieldapp/rules/measure.py": "import fieldapp.survey  # noqa",    # rules -> model (and a layer upward)
        "fieldapp/survey/values.py": "import PySide6  # noqa",            # model -> Qt
    }
    for rel, line in bad.items():
        with open(tmp_path / rel, "a", encoding="utf-8") as f:
            f.write("\n" + line + "\n")
    r = _lint_imports(tmp_path, tmp_path / "pyproject.toml")
    assert r.returncode != 0
    assert "Contracts: 0 kept, 4 broken." in r.stdout, r.stdout  # the rules import also breaks the layers
    assert "devices -> fieldapp" in r.stdout or "devices.readings -> fieldapp.geo" in r.stdout
    assert "fieldapp.rules.measure -> fieldapp.survey" in r.stdout
    assert "fieldapp.survey.values -> PySide6" in r.stdout
