"""The messages of ``annotator``'s rooms that more than one of them shows (the domain
services, and what the app and the CLI both say): the catalogs in ``locale/`` beside this
module (``pooling.catalogs``), registered into the one table of ``pooling.i18n`` (which
holds the keys of ``pooling`` and ``storage``). ``annotator``'s package imports this module,
so every room finds them."""

from __future__ import annotations

from pathlib import Path

from pooling.catalogs import catalog
from pooling.i18n import register

register(catalog(Path(__file__).with_name("locale")))
