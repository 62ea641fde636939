"""The app's own messages (its pages, login, charts): the catalogs in ``locale/`` beside
this module (``pooling.catalogs``), registered into the one table of ``pooling.i18n`` when
``annotator.app`` is imported."""

from __future__ import annotations

from pathlib import Path

from pooling.catalogs import catalog
from pooling.i18n import register

register(catalog(Path(__file__).with_name("locale")))
