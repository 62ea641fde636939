"""The Pools page's build and top-up forms with Streamlit's AppTest (issue 40): an error is
shown as plain text, in the page's language, and builds nothing; a build is found in the
database. The vector encoder is chosen as on the command line (issue 38): the same checks,
made before anything runs, and an ``openai:`` build against a local embeddings server."""

from __future__ import annotations

import importlib.util
import json

import pytest
from streamlit.testing.v1 import AppTest

from annotator.pools import pool_building
from annotator.pools.pool_building import pool_names
from pooling.i18n import LocalizedError
from storage.db import make_engine, session_scope
from storage.pool_records import find_pool, pool_report
from tests.annotator.app.test_app import lead_page, literal, shown_text
from tests.fake_chat_server import FakeChat

KEY = "sk-test-0123456789abcdef"


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


def choose_encoder(at: AppTest, kind: str, model="", url="", variable="") -> AppTest:
    at.text_input(key="build_pool_name").input("fresh")
    at.selectbox(key="build_encoder").set_value(kind)
    at.text_input(key="build_encoder_model").input(model)
    at.text_input(key="build_embeddings_url").input(url)
    at.text_input(key="build_api_key_env").input(variable)
    return at.button(key="build_pool_submit").click().run()


@pytest.mark.parametrize(
    ("chosen", "refusal"),
    [
        (("openai", "e5"), LocalizedError("embeddings_needs_url")),
        (
            ("openai", "e5", "http://user:pw@127.0.0.1:9/v1"),
            LocalizedError("api_base_url", url="http://user:pw@127.0.0.1:9/v1"),
        ),
        (
            ("openai", "e5", "http://127.0.0.1:9/v1", "QRELS_DATABASE_URL"),
            LocalizedError("api_key_variable_name", variable="QRELS_DATABASE_URL"),
        ),
        (
            ("openai", "e5", "http://127.0.0.1:9/v1", "NOWHERE_API_KEY"),
            LocalizedError("api_key_variable_unset", variable="NOWHERE_API_KEY"),
        ),
        (("st", "/nowhere/model"), None),  # the library or the folder missing, as installed
        (  # a model typed while TF-IDF is chosen: said, not dropped
            ("tfidf-svd", "all-MiniLM-L6-v2"),
            LocalizedError("tfidf_takes_no_model", model="all-MiniLM-L6-v2"),
        ),
        (  # an endpoint's settings with another encoder: it would read none of them
            ("tfidf-svd", "", "http://127.0.0.1:9/v1", "E_API_KEY"),
            LocalizedError(
                "endpoint_options_without_openai",
                options="--embeddings-url, --api-key-env",
                encoder="tfidf-svd",
            ),
        ),
    ],
)
def test_the_encoder_is_checked_as_the_cli_checks_it_before_anything_runs(
    demo_url, monkeypatch, chosen, refusal
):
    monkeypatch.delenv("NOWHERE_API_KEY", raising=False)

    def too_late(*args):
        raise RuntimeError("the corpus was read before the encoder was checked")

    monkeypatch.setattr(pool_building, "_inputs", too_late)
    before = pool_names(make_engine(demo_url))
    at = choose_encoder(pools_page(demo_url, "zh"), *chosen)
    assert not at.exception and not at.success
    if refusal is None:  # st: the library if it is missing, else the folder
        refusal = LocalizedError("st_model_missing", path="/nowhere/model")
        if importlib.util.find_spec("sentence_transformers") is None:
            refusal = LocalizedError(
                "needs_install", what="sentence-transformers", package="'qrels-studio[st]'"
            )
    # The command line's message (it names the option), in the page's language.
    assert literal(at.error[0]) == refusal.message("zh")
    assert pool_names(make_engine(demo_url)) == before


def test_a_lead_builds_a_pool_with_an_embeddings_server(demo_url, monkeypatch):
    monkeypatch.setenv("TEST_EMBEDDINGS_API_KEY", KEY)
    with FakeChat() as server:
        at = choose_encoder(
            pools_page(demo_url), "openai", "e5-small", server.url, "TEST_EMBEDDINGS_API_KEY"
        )
        headers = [request["headers"] for request in server.requests]
        models = {body["model"] for body in server.bodies()}
    assert not at.exception and not at.error
    assert literal(at.success[0]).startswith("pool 'fresh':")
    assert headers and all(h["Authorization"] == f"Bearer {KEY}" for h in headers)
    assert models == {"e5-small"}
    with session_scope(make_engine(demo_url)) as session:
        config = json.dumps(
            pool_report(find_pool("fresh", session=session), session=session).config
        )
    # The pool remembers the server and the variable's name (a top-up asks the same), never
    # the key; and the page never shows the key either.
    assert "openai:e5-small" in config and server.url in config
    assert "TEST_EMBEDDINGS_API_KEY" in config and KEY not in config
    assert KEY not in shown_text(at)
