"""Every text file the product opens names its encoding (issue 28).

On Windows Python's default file encoding is the ANSI code page (cp1252), not UTF-8: a text
file opened without ``encoding=`` there cannot hold "Łąka – Wisła" ("'charmap' codec can't
encode") and is read back differently from the same file on Linux. Python's own check
(``-X warn_default_encoding``, PEP 597) only sees the lines a run reaches; this test reads the
source of ``fieldapp/`` and ``devices/`` with :mod:`ast` and fails naming file:line for every
text-mode ``open()`` / ``Path.open`` / ``os.fdopen`` / ``read_text`` / ``write_text`` /
``io.TextIOWrapper`` / ``tempfile`` file / ``subprocess`` text pipe that relies on the default.
The CLI runs in ``tests/test_cli_codepage.py`` add Python's runtime check on top.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fieldapp", "devices")

#: subprocess functions whose ``text=True`` / ``universal_newlines=True`` decode with the locale
_SUBPROCESS = {"run", "Popen", "check_output", "call", "check_call"}
#: tempfile functions taking ``mode`` (default ``"w+b"``: binary, fine) and ``encoding``
_TEMPFILE = {"NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile"}


def _keywords(call: ast.Call) -> dict[str, ast.expr]:
    return {k.arg: k.value for k in call.keywords if k.arg is not None}


def _has_star_kwargs(call: ast.Call) -> bool:
    return any(k.arg is None for k in call.keywords)


def _arg(call: ast.Call, index: int, name: str) -> ast.expr | None:
    """The argument at positional ``index`` or keyword ``name`` (None: not given)."""
    if len(call.args) > index:
        return call.args[index]
    return _keywords(call).get(name)


def _text_mode(mode: ast.expr | None, default: str) -> bool | None:
    """Whether ``mode`` opens in text mode: True/False for a literal (or the default when
    absent), None when it is worked out at run time (then ``encoding=`` is required too)."""
    if mode is None:
        return "b" not in default
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return "b" not in mode.value
    return None


def _true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _dotted(node: ast.expr) -> str:
    """``a.b.c`` for a Name/Attribute chain, else ``""``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def default_encoding_calls(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """``(line, what)`` for each call in ``source`` that reads or writes text in the platform's
    default encoding (no ``encoding=``). A call passing ``**kwargs`` is taken as naming it."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call) or _has_star_kwargs(node):
            continue
        kw = _keywords(node)
        name = _dotted(node.func)
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else None
        what = None
        if name in ("open", "io.open", "builtins.open", "os.fdopen", "fdopen"):
            if _arg(node, 3, "encoding") is None and _text_mode(_arg(node, 1, "mode"), "r") is not False:
                what = f"{name}() in text mode"
        elif attr == "open" and name not in ("os.open", "webbrowser.open"):
            # Path.open(mode, buffering, encoding): only a literal text mode is known to be a file
            mode = _arg(node, 0, "mode")
            if (isinstance(mode, ast.Constant) and isinstance(mode.value, str)
                    and "b" not in mode.value and _arg(node, 2, "encoding") is None):
                what = f".open({mode.value!r}) in text mode"
        elif attr == "read_text":
            if _arg(node, 0, "encoding") is None:
                what = ".read_text()"
        elif attr == "write_text":
            if _arg(node, 1, "encoding") is None:
                what = ".write_text()"
        elif name.split(".")[-1] == "TextIOWrapper":
            if _arg(node, 1, "encoding") is None:
                what = "io.TextIOWrapper()"
        elif name.split(".")[-1] in _TEMPFILE and (name.startswith("tempfile.") or "." not in name):
            if "encoding" not in kw and _text_mode(_arg(node, 0, "mode"), "w+b") is not False:
                what = f"{name}() in text mode"
        elif name.startswith("subprocess.") and name.split(".")[-1] in _SUBPROCESS:
            if (_true(kw.get("text")) or _true(kw.get("universal_newlines"))) and "encoding" not in kw:
                what = f"{name}(text=True)"
        elif name in ("subprocess.getoutput", "subprocess.getstatusoutput"):
            what = f"{name}() (always the locale's encoding)"
        if what:
            found.append((node.lineno, what))
    return sorted(found)


def test_no_product_text_file_relies_on_the_default_encoding():
    bad = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            rel = path.relative_to(ROOT).as_posix()
            bad += [f"{rel}:{line}: {what} without encoding=" for line, what in
                    default_encoding_calls(source, rel)]
    assert not bad, ("text read or written in the platform's default encoding (cp1252 on "
                     "Windows); name it, encoding=\"utf-8\":\n" + "\n".join(bad))


def test_the_scan_finds_each_kind_and_passes_the_named_ones():
    source = textwrap.dedent('''\
        import io, os, subprocess, tempfile
        from pathlib import Path
        open(p)
        open(p, "w")
        open(p, mode="a", newline="")
        open(p, "rb")
        open(p, "w", encoding="utf-8")
        open(p, "r", -1, "utf-8")
        open(p, mode)
        os.fdopen(fd, "w")
        os.fdopen(fd, "wb")
        Path(p).open("w")
        Path(p).open("rb")
        Path(p).open("w", encoding="utf-8")
        Image.open(io.BytesIO(data))
        os.open(p, os.O_RDONLY)
        Path(p).read_text()
        Path(p).read_text("utf-8")
        Path(p).write_text(s)
        Path(p).write_text(s, encoding="utf-8")
        io.TextIOWrapper(buf)
        io.TextIOWrapper(buf, "utf-8")
        tempfile.NamedTemporaryFile("w")
        tempfile.NamedTemporaryFile()
        tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        subprocess.run(cmd, text=True)
        subprocess.run(cmd, capture_output=True)
        subprocess.Popen(cmd, universal_newlines=True, encoding="utf-8")
        subprocess.check_output(cmd, universal_newlines=True)
        subprocess.getoutput(cmd)
        open(p, **kw)
        ''')
    assert [line for line, _ in default_encoding_calls(source)] == [
        3, 4, 5, 9, 10, 12, 17, 19, 21, 23, 26, 29, 30]
