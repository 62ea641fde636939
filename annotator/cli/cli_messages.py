"""The ``qrels`` command's own messages (help and output of its commands): the catalogs in
``locale/`` beside this module (``pooling.catalogs``), registered into the one table of
``pooling.i18n`` when ``annotator.cli`` is imported."""

from __future__ import annotations

from pathlib import Path

from pooling.catalogs import catalog
from pooling.i18n import register

register(catalog(Path(__file__).with_name("locale")))
