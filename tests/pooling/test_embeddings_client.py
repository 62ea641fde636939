"""The ``openai:`` vector encoder against a local OpenAI-compatible embeddings server the
tests start (tests/fake_chat_server.py): batched, prefixed, retried, paced, cached per
corpus version, the key sent only in its header and kept nowhere, bad answers and
redirects refused with a message in both languages."""

from __future__ import annotations

import threading

import pytest

from pooling import embeddings_client
from pooling.embeddings_client import EmbeddingsEndpoint, OpenAIEncoder
from pooling.i18n import LocalizedError
from pooling.retrievers import VectorRetriever, encoder_from_spec
from tests.fake_chat_server import FakeChat, Scripted, embedding

KEY = "sk-test-0123456789abcdef"


def inputs(server: FakeChat) -> list[list[str]]:
    return [body["input"] for body in server.bodies()]


def test_a_pool_of_vectors_from_an_embeddings_server(corpus, index_cache, monkeypatch):
    monkeypatch.setenv("TEST_EMBEDDINGS_API_KEY", KEY)
    with FakeChat() as server:
        endpoint = EmbeddingsEndpoint(
            server.url,
            "e5-small",
            key_variable="TEST_EMBEDDINGS_API_KEY",
            passage_prefix="passage: ",
            query_prefix="query: ",
            query_model="e5-small-queries",
            batch_size=4,
        )
        retriever = VectorRetriever(corpus, OpenAIEncoder(endpoint))
        run = retriever.search({"q": "brake pads every month"}, k=2)
        asked = inputs(server)
        models = [body["model"] for body in server.bodies()]
        headers = [request["headers"] for request in server.requests]
    assert run.ranking("q")[0][0] == "bike-1"
    # Six passages in batches of four, then the query: each with its prefix and model.
    assert [len(batch) for batch in asked] == [4, 2, 1]
    assert asked[0][0] == "passage: " + corpus.texts[0]
    assert asked[2] == ["query: brake pads every month"]
    assert models == ["e5-small", "e5-small", "e5-small-queries"]
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in headers)
    # The key is kept nowhere: not in the config, not in the cache.
    assert KEY not in repr(retriever.config) and KEY not in repr(endpoint)
    assert all(KEY.encode() not in p.read_bytes() for p in index_cache.rglob("*") if p.is_file())


def test_the_passages_vectors_are_cached_per_corpus_version(corpus, index_cache):
    with FakeChat() as server:
        endpoint = EmbeddingsEndpoint(server.url, "m", batch_size=100)
        VectorRetriever(corpus, OpenAIEncoder(endpoint)).search({"q": "tea"}, k=1)
        VectorRetriever(corpus, OpenAIEncoder(endpoint)).search({"q": "tea"}, k=1)
        assert [len(batch) for batch in inputs(server)] == [6, 1, 1]  # the corpus once
        other = type(corpus)("fixture-v2", corpus.ids, corpus.texts)
        VectorRetriever(other, OpenAIEncoder(endpoint))
        assert [len(batch) for batch in inputs(server)] == [6, 1, 1, 6]


def test_a_failed_request_is_tried_again(corpus):
    count = {"n": 0}
    lock = threading.Lock()

    def flaky(request: dict) -> Scripted:
        with lock:
            count["n"] += 1
            n = count["n"]
        if n == 1:
            return Scripted(503, {"error": {"message": "loading"}}, headers={"Retry-After": "0"})
        return embedding(request)

    with FakeChat(embeddings=flaky) as server:
        vectors = embeddings_client.embed(
            EmbeddingsEndpoint(server.url, "m"), ["a b", "c"], "m", sleep=lambda s: None
        )
        assert len(server.bodies()) == 2
    assert vectors.shape == (2, 64)


@pytest.mark.parametrize(
    ("answer", "english", "chinese"),
    [
        (
            lambda request: Scripted(body={"data": []}),
            "the embeddings server's answer for model 'm' is not what was asked: 0 vectors for "
            "2 texts",
            "嵌入服务器对模型“m”的回答不符合请求：0 vectors for 2 texts",
        ),
        (
            lambda request: Scripted(body={"data": [{"index": 0, "embedding": [1.0]}] * 2}),
            "the embeddings server's answer for model 'm' is not what was asked: item 1 has no "
            "index of its own",
            "嵌入服务器对模型“m”的回答不符合请求：item 1 has no index of its own",
        ),
        (
            lambda request: Scripted(
                body={"data": [{"index": i, "embedding": ["x"]} for i in range(2)]}
            ),
            "the embeddings server's answer for model 'm' is not what was asked: item 0 is not "
            "a list of finite numbers",
            "嵌入服务器对模型“m”的回答不符合请求：item 0 is not a list of finite numbers",
        ),
        (  # a proxy's login page, say, with 200
            lambda request: Scripted(body="<html>sign in</html>"),
            "the embeddings server's answer for model 'm' is not what was asked: not JSON",
            "嵌入服务器对模型“m”的回答不符合请求：not JSON",
        ),
    ],
)
def test_an_answer_that_is_not_one_vector_per_text_is_refused(answer, english, chinese):
    with FakeChat(embeddings=answer) as server, pytest.raises(LocalizedError) as caught:
        embeddings_client.embed(EmbeddingsEndpoint(server.url, "m"), ["a", "b"], "m")
    assert (caught.value.message("en"), caught.value.message("zh")) == (english, chinese)


def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(corpus, monkeypatch):
    monkeypatch.setenv("TEST_EMBEDDINGS_API_KEY", KEY)
    with FakeChat() as elsewhere:
        moved = Scripted(307, {}, headers={"Location": f"{elsewhere.url}/embeddings"})
        with FakeChat(embeddings=lambda request: moved) as server:
            endpoint = EmbeddingsEndpoint(server.url, "m", key_variable="TEST_EMBEDDINGS_API_KEY")
            with pytest.raises(LocalizedError) as caught:
                VectorRetriever(corpus, OpenAIEncoder(endpoint))
        assert elsewhere.requests == []
    message = caught.value.message("en")
    assert message.startswith(f"no embeddings from {server.url} for model 'm': ")
    assert KEY not in message and KEY not in caught.value.message("zh")


@pytest.mark.parametrize(
    ("settings", "english"),
    [
        ({}, "--encoder openai:MODEL needs --embeddings-url (the server's base URL, up to /v1)"),
        (
            {"url": "http://user:pw@127.0.0.1:9/v1"},
            "'http://user:pw@127.0.0.1:9/v1' is not a base URL to use: "
            "http(s)://host[:port]/path, without a user, password, query or fragment (a key "
            "goes in an environment variable: --api-key-env)",
        ),
        (
            {"url": "http://127.0.0.1:9/v1", "key_variable": "QRELS_DATABASE_URL"},
            "'QRELS_DATABASE_URL' is not the name of an API-key variable: it must end in "
            "_API_KEY (upper case, digits and _), e.g. OPENAI_API_KEY",
        ),
    ],
)
def test_bad_settings_are_refused_before_any_request(settings, english):
    with pytest.raises(LocalizedError) as caught:
        encoder_from_spec("openai:m", embeddings=settings)
    assert caught.value.message("en") == english


def test_a_missing_key_is_named_by_its_variable(monkeypatch):
    monkeypatch.delenv("NOWHERE_API_KEY", raising=False)
    endpoint = EmbeddingsEndpoint("http://127.0.0.1:9/v1", "m", key_variable="NOWHERE_API_KEY")
    with pytest.raises(LocalizedError) as caught:
        embeddings_client.embed(endpoint, ["a"], "m")
    assert (
        caught.value.message("zh")
        == "发送请求的进程（应用或命令）的环境中未设置环境变量 NOWHERE_API_KEY"
    )


def test_a_query_model_of_another_size_is_refused(corpus):
    def sized(request: dict) -> Scripted:
        scripted = embedding(request)
        if request["model"] == "small":
            for item in scripted.body["data"]:
                item["embedding"] = item["embedding"][:8]
        return scripted

    with FakeChat(embeddings=sized) as server:
        endpoint = EmbeddingsEndpoint(server.url, "big", query_model="small")
        retriever = VectorRetriever(corpus, OpenAIEncoder(endpoint))
        with pytest.raises(LocalizedError) as caught:
            retriever.search({"q": "tea"}, k=1)
    assert caught.value.message("en") == (
        "the query model 'small' gives vectors of 8 numbers, the passages' have 64"
    )
