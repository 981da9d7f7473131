"""A PostgreSQL password kept out of every message, log line and command to paste.

Its own module (it imports nothing of the sync) so that :mod:`fieldapp.sync.pgoffice` and
:mod:`fieldapp.sync.offices` (which opens a :class:`~fieldapp.sync.pgoffice.PostgisOffice`) both
use it without importing each other.
"""

from __future__ import annotations

import re

_URL_PASSWORD = re.compile(r"(postgres(?:ql)?://[^\s/@:?#]*):[^\s/?#]*@")
_KEY_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&]*)", re.IGNORECASE)


def mask_password(text: str) -> str:
    """``text`` with any PostgreSQL password in it replaced by ``***``: the ``:password@`` of a
    URL, ``password=...`` of a connection string or of a URL's query. Every message that may
    quote a connection string goes through this.

    >>> mask_password("postgresql://crew2:s3cr%40t@gis/survey and host=gis password='a b' user=x")
    'postgresql://crew2:***@gis/survey and host=gis password=*** user=x'
    >>> mask_password("postgres://crew2:p@ss@gis:5432/survey")
    'postgres://crew2:***@gis:5432/survey'
    >>> mask_password("postgresql://crew2@gis/survey?password=hunter2&sslmode=require")
    'postgresql://crew2@gis/survey?password=***&sslmode=require'
    """
    return _KEY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1:***@", str(text)))
