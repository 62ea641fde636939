"""The Pools page's build and top-up forms with Streamlit's AppTest (issue 40): an error is
shown as plain text, in the page's language, and builds nothing; a build is found in the
database."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from annotator.pools.pool_building import pool_names
from storage.db import make_engine
from tests.annotator.app.test_app import lead_page, literal


def pools_page(url: str, lang: str = "en") -> AppTest:
    return lead_page("pools_page.py", url, lang)


def test_an_unknown_system_is_refused_as_plain_text(demo_url):
    before = pool_names(make_engine(demo_url))
    at = pools_page(demo_url, "zh")
    at.text_input(key="build_pool_name").input("fresh")
    at.text_input(key="build_pool_systems").input("bm25,**nope**")
    at.button(key="build_pool_submit").click().run()
    assert not at.exception and not at.success
    assert "**nope**" in literal(at.error[0])
    assert pool_names(make_engine(demo_url)) == before


def test_a_lead_builds_a_pool_from_the_page(demo_url):
    at = pools_page(demo_url)
    at.text_input(key="build_pool_name").input("fresh")
    at.text_input(key="build_pool_systems").input("bm25")
    at.button(key="build_pool_submit").click().run()
    assert not at.exception and not at.error
    assert literal(at.success[0]).startswith("pool 'fresh':")
    assert "fresh" in pool_names(make_engine(demo_url))
