"""A small bilingual corpus, and an index cache of each test's own."""

from __future__ import annotations

import pytest

from pooling.retrievers import Corpus

DOCS = {
    "tea-1": "绿茶应当密封冷藏，温度保持在0到5摄氏度之间，避免串味。",
    "tea-2": "红茶可以常温保存，但要远离阳光和潮湿的地方。",
    "power-1": "充电宝的容量超过100Wh不能带上飞机，20000mAh约等于74Wh。",
    "bike-1": "Check the brake pads every month and replace them below 1.5 mm.",
    "bike-2": "Hydraulic disc brakes need bleeding once a year to keep the lever firm.",
    "plant-1": "Water houseplants when the top two centimetres of soil are dry.",
}


@pytest.fixture(autouse=True)
def index_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    return tmp_path / "cache"


@pytest.fixture
def corpus() -> Corpus:
    return Corpus("fixture-v1", list(DOCS), list(DOCS.values()))
