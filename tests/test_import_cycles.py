"""No import circles in devices and fieldapp (issue 34, item 3).

The import graph is grimp's (installed with import-linter): every ``import`` and ``from ... import``
in a module counts, those inside functions and ``if TYPE_CHECKING:`` blocks included, since a
circle through them still ties the modules together (the next edit that hoists the import breaks
at import time). Two things fail, each named:

- a module cycle: a strongly connected component of the graph (modules that reach each other);
- a submodule importing its own package face (``fieldapp/store/x.py`` doing
  ``from fieldapp.store import ...`` or ``from . import name``): the face imports its submodules,
  so that is a circle waiting to happen, and the order they finish loading in decides what works.
"""

from __future__ import annotations

import pytest

grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the test extra)")

ROOTS = ("devices", "fieldapp")


def _graph():
    """The import graph of ``ROOTS`` (no cache: the tree as it is now)."""
    return grimp.build_graph(*ROOTS, cache_dir=None)


def strongly_connected_components(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components of more than one module, or of one module
    importing itself, each sorted by name; the list sorted by its first name.

    >>> strongly_connected_components({"a": {"b"}, "b": {"a", "c"}, "c": set(), "d": {"d"}})
    [['a', 'b'], ['d']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in edges.get(node, ()):
                        found.append(sorted(component))
    return sorted(found)


def import_cycles(graph) -> list[list[str]]:
    """The module cycles of ``graph`` (see :func:`strongly_connected_components`)."""
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    return strongly_connected_components(edges)


def face_imports(graph) -> list[str]:
    """``"submodule -> package"`` for each submodule importing one of its enclosing packages'
    ``__init__`` (the top-level ``devices`` / ``fieldapp`` faces, which import nothing, aside)."""
    found = []
    for module in sorted(graph.modules):
        parts = module.split(".")
        faces = {".".join(parts[:i]) for i in range(2, len(parts))}
        for imported in sorted(faces & set(graph.find_modules_directly_imported_by(module))):
            lines = sorted({d["line_number"] for d in graph.get_import_details(importer=module, imported=imported)})
            found.append(f"{module} -> {imported} (line {', '.join(map(str, lines))})")
    return found


def test_the_cycle_finder_finds_a_cycle_and_a_face_import():
    """The two checks catch what they are for (a graph made here, not the tree)."""
    graph = grimp.ImportGraph()
    for m in ("pkg", "pkg.sub", "pkg.sub.a", "pkg.sub.b", "pkg.c"):
        graph.add_module(m)
    graph.add_import(importer="pkg.sub", imported="pkg.sub.a", line_number=1, line_contents="from .a import x")
    graph.add_import(importer="pkg.sub.a", imported="pkg.sub.b", line_number=3, line_contents="import pkg.sub.b")
    graph.add_import(importer="pkg.sub.b", imported="pkg.sub.a", line_number=9, line_contents="import pkg.sub.a")
    graph.add_import(importer="pkg.sub.b", imported="pkg.sub", line_number=7, line_contents="from pkg.sub import x")
    graph.add_import(importer="pkg.c", imported="pkg.sub", line_number=2, line_contents="import pkg.sub")
    assert import_cycles(graph) == [["pkg.sub", "pkg.sub.a", "pkg.sub.b"]]
    assert face_imports(graph) == ["pkg.sub.b -> pkg.sub (line 7)"]


def test_the_graph_counts_imports_in_functions_and_type_checking_blocks(tmp_path, monkeypatch):
    """grimp's graph (as :func:`_graph` builds it) has the import inside a function and the one
    under ``if TYPE_CHECKING:``: the circle they make is found."""
    pkg = tmp_path / "circlepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from circlepkg import b\n    return b\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from circlepkg.a import f\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circlepkg", cache_dir=None)
    assert import_cycles(graph) == [["circlepkg.a", "circlepkg.b"]]


def test_no_import_cycles_and_no_submodule_imports_its_package_face():
    graph = _graph()
    cycles = import_cycles(graph)
    faces = face_imports(graph)
    report = []
    if cycles:
        report.append(f"{len(cycles)} import cycle(s) (modules that import each other, directly or round a loop):")
        report += [f"  {len(c)} modules: {', '.join(c)}" for c in cycles]
    if faces:
        report.append(f"{len(faces)} submodule(s) importing their own package face:")
        report += [f"  {f}" for f in faces]
    assert not report, "\n".join(report)
