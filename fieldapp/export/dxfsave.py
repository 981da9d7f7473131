"""Saving the DXF: the points' attributes and the track's vertices written as ezdxf writes them,
the same bytes in a fraction of the time.

A day's visit has ~64,000 ATTRIBs (4,000 trees, an attribute per column each). ezdxf writes an
entity by walking every DXF attribute it may have, optional or not, through its generic
machinery: for the ATTRIBs that was most of the DXF's time (~4 s of a day's ~7 s). ATTRIBs of
one block attribute on one layer differ only in their handle, owner, insertion and
alignment points and text; everything else (subclass markers, height, flags, tag, style …) is
the same tags in the same order. So the first ATTRIB of each such kind is written by ezdxf itself
and kept as a template, split around those values; every other ATTRIB of that kind is its
template with its own values put in, formatted as ezdxf formats them (``"%s" %`` the value,
:data:`ezdxf.lldxf.types.TAG_STRING_FORMAT`). The file is byte for byte the one ezdxf writes
(``tests/export/test_export_dxf_fast.py`` compares the two).

An ATTRIB is left to ezdxf (written as before) when anything else could differ: it has XDATA,
app data, reactors, an extension dictionary or an embedded MTEXT; its text holds a line break;
its template does not show its values where expected; the writer is not ezdxf's text writer.

The track's LWPOLYLINE (288,000 vertices for a day) is written by ezdxf but for its vertices,
which ezdxf turns into two tag objects each (~1 s for a day): they are formatted here in one
pass, ``" 10\\n<x>\\n 20\\n<y>\\n"`` per vertex as ezdxf writes a vertex without widths or
bulge (a polyline with any is left to ezdxf).

Making the ATTRIBs (:func:`add_attribs`) checked every attribute of every one again (~1.5 s of
a day): the first of each kind is made by ezdxf's ``add_attrib``, the others take its attributes
as they are and have only their text and points set.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

__all__ = ["add_attribs", "save_fast"]

#: the DXF attributes an ATTRIB's template leaves open, with the group codes ezdxf writes them
#: under: (name, codes; a point writes x, y, z under its code, +10, +20)
_OPEN = (("handle", (5,)), ("owner", (330,)), ("insert", (10, 20, 30)), ("align_point", (11, 21, 31)),
         ("text", (1,)))
_OPEN_NAMES = frozenset(n for n, _ in _OPEN)
_OPEN_CODES = {c: (n, k) for n, codes in _OPEN for k, c in enumerate(codes)}


def _values(dxf: dict[str, Any]) -> dict[int, str] | None:
    """The open values of an ATTRIB (``{group code: the text ezdxf writes}``), or None when one
    cannot be written from a template (a text with a line break)."""
    out: dict[int, str] = {}
    for name, codes in _OPEN:
        v = dxf.get(name)
        if v is None:
            if name == "owner":
                out[330] = "0"         # as ezdxf writes an entity without an owner
            continue
        if len(codes) == 1:
            text = str(v)           # what "%s" % value, ezdxf's tag format, makes of it
            if "\n" in text or "\r" in text:
                return None
            out[codes[0]] = text
        else:
            for c, x in zip(codes, v, strict=False):
                out[c] = str(x)
    return out


class _Templates:
    """ATTRIB templates by kind (:func:`_key`): the constant text between the open values, or
    None for a kind that is written by ezdxf (its template did not show its values)."""

    def __init__(self) -> None:
        self.kinds: dict[Any, tuple[list[str], list[int]] | None] = {}
        self.fast = 0
        self.slow = 0

    def export(self, attrib: Any, tagwriter: Any) -> None:
        """Write ``attrib`` through ``tagwriter``: from its kind's template, else by ezdxf."""
        from ezdxf.lldxf.tagwriter import TagWriter

        dxf = attrib.dxf.__dict__
        values = None
        key = None
        if (type(tagwriter) is TagWriter and not attrib.xdata and not attrib.appdata and not attrib.reactors
                and not attrib.has_extension_dict and not attrib.has_embedded_mtext_entity
                and getattr(attrib, "_xrecord", None) is None):
            values = _values(dxf)
        if values is not None:
            try:
                key = (tagwriter.dxfversion, type(attrib), tuple(
                    (k, v) for k, v in dxf.items() if k not in _OPEN_NAMES and k != "_entity"),
                    tuple(sorted(values)))
                hash(key)
            except TypeError:       # a value that cannot be a key: this one by ezdxf
                key = None
        if key is None or values is None:
            self.slow += 1
            type(attrib).export_dxf(attrib, tagwriter)
            return
        if key not in self.kinds:
            self.kinds[key] = self._template(attrib, tagwriter.dxfversion, values)
            self.slow += 1
        template = self.kinds[key]
        if template is None:
            self.slow += 1
            type(attrib).export_dxf(attrib, tagwriter)
            return
        parts, codes = template
        out = [parts[0]]
        for c, part in zip(codes, parts[1:], strict=True):
            out.append(values[c])
            out.append(part)
        tagwriter.write_str("".join(out))
        self.fast += 1

    @staticmethod
    def _template(attrib: Any, dxfversion: str, values: dict[int, str]) -> tuple[list[str], list[int]] | None:
        """``attrib`` written by ezdxf, split around its open values: (the text between them,
        their group codes in order); None when the text does not show each open value once, as
        :func:`_values` formats it, and nothing else under those codes."""
        from ezdxf.lldxf.tagwriter import TagWriter

        stream = io.StringIO()
        type(attrib).export_dxf(attrib, TagWriter(stream, dxfversion))
        lines = stream.getvalue().split("\n")
        if len(lines) % 2 != 1 or lines[-1] != "":
            return None
        parts: list[str] = []
        codes: list[int] = []
        here: list[str] = []
        seen: set[int] = set()
        for i in range(0, len(lines) - 1, 2):
            code_line, value = lines[i], lines[i + 1]
            try:
                code = int(code_line)
            except ValueError:
                return None
            if code in _OPEN_CODES:
                if code in seen or values.get(code) != value:
                    return None
                seen.add(code)
                here.append(code_line + "\n")
                parts.append("".join(here))
                codes.append(code)
                here = ["\n"]
            else:
                here.append(f"{code_line}\n{value}\n")
        if seen != set(values):
            return None
        parts.append("".join(here))
        return parts, codes


def add_attribs(ref: Any, attdefs: list[tuple[str, tuple[float, float], dict[str, Any]]], texts: list[str],
                layer: str, made: dict[tuple[str, int, str], Any]) -> None:
    """Attach to the block reference ``ref`` an ATTRIB per attribute definition of its block
    (``attdefs``: tag, place relative to the insertion point, the attributes copied from the
    ATTDEF; :func:`fieldapp.export.dxf._attdefs`) with ``texts``, on ``layer``: what
    ``ref.add_attrib(tag, text, at, {**attdef, "layer": layer, "align_point": at})`` makes, the
    same entities. The first of each (block, attribute, layer) is made so and kept in ``made``;
    the others take its checked attributes as they are and set their own text and points
    through ezdxf (checked), instead of every attribute checked again (~1.5 s of a day's 64,000)."""
    from ezdxf.entities import factory
    from ezdxf.math import Vec3

    doc = ref.doc
    x0, y0, *_ = ref.dxf.insert
    for j, ((tag, (ax, ay), attdef), text) in enumerate(zip(attdefs, texts, strict=True)):
        at = (x0 + ax, y0 + ay)   # its alignment point too, as ezdxf moved it
        key = (ref.dxf.name, j, layer)
        proto = made.get(key)
        if proto is None or not proto.is_alive:
            made[key] = ref.add_attrib(tag, text, at, {**attdef, "layer": layer, "align_point": at})
            continue
        a = type(proto).new()
        ns = a.dxf.__dict__
        for k, v in proto.dxf.__dict__.items():
            if k not in ("handle", "owner", "_entity", "text", "insert", "align_point"):
                ns[k] = v
        a.dxf.text = text                      # checked, as add_attrib checks it
        ns["insert"] = ns["align_point"] = Vec3(at)   # what the checked set makes of a point
        factory.bind(a, doc)
        ns["owner"] = ref.dxf.owner            # as INSERT.add_attrib sets it (paperspace copied)
        ref.attribs.append(a)
        if ref.seqend is None:
            ref.new_seqend()


class _Vertices:
    """The vertex tags of a polyline as one piece of DXF text (what ezdxf's tag writer asks of a
    tag: ``dxfstr``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def dxfstr(self) -> str:
        return self.text


def _fast_points_class() -> type:
    from ezdxf.entities.lwpolyline import LWPolylinePoints

    class FastPoints(LWPolylinePoints):
        """An LWPOLYLINE's points whose vertex tags are formatted in one pass (the same text)."""

        __slots__ = ()

        def dxftags(self) -> Any:
            import numpy as np

            v = np.asarray(self.values, dtype=np.float64)
            if v.ndim != 2 or v.shape[1] != 5 or v[:, 2:].any():   # widths or bulges: ezdxf's way
                yield from super().dxftags()
                return
            yield _Vertices("".join([f" 10\n{x!s}\n 20\n{y!s}\n" for x, y in v[:, :2].tolist()]))

    return FastPoints


def save_fast(doc: Any, path: Any, inserts: Iterable[Any] = (), polylines: Iterable[Any] = ()) -> _Templates:
    """Save ``doc`` to ``path`` as ``doc.saveas`` does, the ATTRIBs of ``inserts`` (block
    references) written from templates and the vertices of ``polylines`` (LWPOLYLINEs) in one
    pass (module docstring): the same file. Returns the templates (``fast`` / ``slow``: how many
    ATTRIBs were written each way)."""
    from functools import partial

    templates = _Templates()
    for ref in inserts:
        for a in ref.attribs:
            a.export_dxf = partial(templates.export, a)
    fast_points = _fast_points_class()
    lines = list(polylines)
    for line in lines:
        line.lwpoints.__class__ = fast_points
    try:
        doc.saveas(path)
    finally:
        from ezdxf.entities.lwpolyline import LWPolylinePoints

        for line in lines:
            line.lwpoints.__class__ = LWPolylinePoints
        for ref in inserts:
            for a in ref.attribs:
                a.__dict__.pop("export_dxf", None)
    return templates
