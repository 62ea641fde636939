"""Tokenization in Chinese, English and mixed text."""

from __future__ import annotations

import sys

import pytest

from pooling.tokenize import Tokenizer, TokenizerConfig, detect_language


def test_english_is_lowercased_stemmed_without_stopwords():
    tokens = Tokenizer(TokenizerConfig(language="en")).tokens("The Brakes are Checking the pads")
    assert tokens == ["brake", "check", "pad"]


def test_english_without_stemming_or_stopwords():
    config = TokenizerConfig(language="en", stem=False, stopwords=False)
    assert Tokenizer(config).tokens("The brakes") == ["the", "brakes"]


def test_chinese_is_segmented_into_words_with_jieba():
    tokens = Tokenizer(TokenizerConfig(language="zh")).tokens("绿茶应当密封冷藏保存")
    assert {"绿茶", "密封", "冷藏", "保存"} <= set(tokens)


def test_chinese_bigrams():
    tokens = Tokenizer(TokenizerConfig(language="zh", chinese="bigram")).tokens("绿茶冷藏")
    assert tokens == ["绿茶", "茶冷", "冷藏"]


def test_mixed_text_is_handled_per_run():
    tokens = Tokenizer(TokenizerConfig(language="mixed")).tokens(
        "支持PD快充的充电宝 charging banks"
    )
    assert "pd" in tokens and "charg" in tokens and "bank" in tokens
    assert "充电宝" in tokens or "充电" in tokens


def test_an_english_corpus_never_loads_jieba(monkeypatch):
    monkeypatch.delitem(sys.modules, "jieba", raising=False)
    tokenizer = Tokenizer(TokenizerConfig(language="en"))
    assert tokenizer.tokens("tea 绿茶") == ["tea", "绿茶"]
    assert "jieba" not in sys.modules


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["The brake pads wear out.", "Check them monthly."], "en"),
        (["绿茶应当密封冷藏。", "红茶常温保存。"], "zh"),
        (["充电宝 power bank 的容量 capacity is measured in mAh and Wh"], "mixed"),
        ([""], "en"),
    ],
)
def test_language_detection(texts, expected):
    assert detect_language(texts) == expected


def test_auto_resolves_to_the_detected_language():
    tokenizer = Tokenizer().resolved(["绿茶应当密封冷藏。"])
    assert tokenizer.config.language == "zh"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"language": "fr"}, "unknown language 'fr'; valid: auto, en, zh, mixed"),
        ({"chinese": "pkuseg"}, "unknown Chinese segmenter 'pkuseg'; valid: jieba, bigram"),
    ],
)
def test_bad_config(kwargs, message, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    with pytest.raises(ValueError, match=message):
        TokenizerConfig(**kwargs)
