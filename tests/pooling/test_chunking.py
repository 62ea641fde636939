"""The chunker: sizes, overlaps, and never a word cut in half."""

from __future__ import annotations

import random
import re

import pytest

from pooling.chunking import chunk_text, chunking_config

ENGLISH = (
    "Check the brake pads every month. Replace them when less than 1.5 mm of material is "
    "left, or sooner if they squeal.\n\nHydraulic brakes need bleeding once a year; USB-C "
    "lights don't need anything. The e-bike's controller (v2.3) limits speed to 25 km/h."
)
CHINESE = (
    "绿茶应当密封冷藏，温度保持在0到5摄氏度之间。红茶可以常温保存，但要远离异味和阳光。"
    "\n\n普洱茶需要通风的环境，湿度不宜超过百分之七十。USB-C 接口的PD 快充设备不要放在茶叶旁边。"
)


def words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9][A-Za-z0-9.'’\-/]*[A-Za-z0-9]|[A-Za-z0-9]", text)


@pytest.mark.parametrize("size,overlap", [(40, 0), (40, 10), (60, 20), (25, 5)])
def test_english_words_are_never_cut(size, overlap):
    all_words = set(words(ENGLISH))
    for span in chunk_text(ENGLISH, size, overlap):
        assert len(span.text) <= size
        assert set(words(span.text)) <= all_words, span.text
        assert ENGLISH[span.start : span.end] == span.text


def test_chunks_cover_the_whole_text_in_order():
    spans = chunk_text(ENGLISH, 50, 10)
    assert spans[0].start == 0 and spans[-1].end == len(ENGLISH)
    for before, after in zip(spans, spans[1:], strict=False):
        assert before.start < after.start
        assert before.end - after.start <= 10  # overlap within bounds
        assert not ENGLISH[before.end : after.start].strip()  # nothing between is lost


def test_chinese_counts_characters_and_prefers_sentence_ends():
    spans = chunk_text(CHINESE, 30, 0)
    assert all(len(s.text) <= 30 for s in spans)
    # Without overlap, the chunks are the text itself, less the whitespace between them.
    assert "".join(s.text for s in spans).replace(" ", "").replace("\n", "") == CHINESE.replace(
        " ", ""
    ).replace("\n", "")
    assert spans[0].text.endswith(("。", "，"))
    assert not any(
        s.text[0] in "，。！？；：、" for s in spans
    )  # never starts with closing punctuation
    assert all("USB-" not in s.text or "USB-C" in s.text for s in spans)  # Latin words stay whole


def test_paragraph_breaks_win_over_others():
    text = "a" * 5 + " " + "b" * 5 + ".\n\n" + "c" * 10
    assert [s.text for s in chunk_text(text, 15, 0)] == ["aaaaa bbbbb.", "cccccccccc"]


def test_a_word_longer_than_the_size_stays_whole():
    spans = chunk_text("supercalifragilistic is long", 10, 2)
    assert spans[0].text == "supercalifragilistic"
    assert [s.text for s in spans[1:]] == ["is long"]


def test_random_mixed_texts_keep_every_word_whole():
    rng = random.Random(7)
    vocabulary = ["alpha", "beta-2", "3.14", "don't", "绿茶", "冷藏", "。", "，", "USB-C", "\n\n"]
    for _ in range(200):
        text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 60)))
        size = rng.randint(8, 40)
        overlap = rng.randint(0, size - 1)
        spans = chunk_text(text, size, overlap)
        source_words = set(words(text))
        for span in spans:
            assert set(words(span.text)) <= source_words
            assert text[span.start : span.end] == span.text


@pytest.mark.parametrize("size,overlap", [(0, 0), (10, 10), (10, -1)])
def test_bad_parameters(size, overlap):
    with pytest.raises(ValueError, match="need size >= 1 and 0 <= overlap < size"):
        chunk_text("text", size, overlap)


def test_config():
    assert chunking_config(None, None) == {"method": "none"}
    assert chunking_config(300, 60) == {
        "method": "characters",
        "size": 300,
        "overlap": 60,
        "chunker_version": 1,
    }
