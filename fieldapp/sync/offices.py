"""Which office an ``--office`` value names: a folder, or a PostgreSQL / PostGIS database.

>>> is_postgres_url("postgresql://crew2@gis.example.org:5432/survey?sslmode=require")
True
>>> is_postgres_url("/mnt/share/office")
False
"""

from __future__ import annotations

import os

from fieldapp.sync.officestore import OfficeStore


def is_postgres_url(where: str | os.PathLike) -> bool:
    """Whether ``where`` is a libpq URL (``postgresql://`` or ``postgres://``) rather than a folder."""
    return str(where).startswith(("postgresql://", "postgres://"))


def open_office(where: str | os.PathLike, *, create: bool = False) -> OfficeStore:
    """The office at ``where``: :class:`~fieldapp.sync.pgoffice.PostgisOffice` for a PostgreSQL
    URL (``ValueError`` if it holds a password), else
    :class:`~fieldapp.sync.office.FolderOffice` for a folder. Nothing is contacted yet."""
    if is_postgres_url(where):
        from fieldapp.sync.pgoffice import PostgisOffice

        return PostgisOffice(str(where), create=create)
    from fieldapp.sync.office import FolderOffice

    return FolderOffice(where, create=create)
