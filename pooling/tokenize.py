"""Language-aware tokenization for lexical retrieval, in Chinese, English and both mixed.

Text is cut into runs of Chinese characters and runs of other word characters. Chinese runs
are segmented with jieba (search mode, so long words also yield their parts) or cut into
character bigrams; other runs are lowercased words, English stopwords removed, stemmed with
the Snowball English stemmer. A corpus in English alone never loads jieba: its rare Chinese
runs are cut into bigrams.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from functools import cache

from pooling.chunking import is_cjk
from pooling.i18n import check_name

logger = logging.getLogger(__name__)

LANGUAGES = ("auto", "en", "zh", "mixed")
CHINESE_SEGMENTERS = ("jieba", "bigram")

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUNS = re.compile(f"[{_CJK}]+|[^\\W{_CJK}_]+")
_HAS_CJK = re.compile(f"[{_CJK}]")
_CJK_CHARS = re.compile(f"[{_CJK}]")
_LETTERS = re.compile(r"[^\W\d_]")


@cache
def stopwords(language: str) -> frozenset[str]:
    """bm25s's English or Chinese stopwords (loaded when first needed: bm25s is slow to
    import, and ``qrels --help`` reads this module's choices)."""
    from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN

    return frozenset(STOPWORDS_EN if language == "en" else STOPWORDS_CHINESE)


@dataclass(frozen=True)
class TokenizerConfig:
    """How to tokenize: ``language`` (auto, en, zh, mixed), the Chinese segmenter (jieba or
    bigram), and whether to stem English and drop stopwords. Stored with every index."""

    language: str = "auto"
    chinese: str = "jieba"
    stem: bool = True
    stopwords: bool = True

    def __post_init__(self) -> None:
        check_name(self.language, LANGUAGES, "what_language")
        check_name(self.chinese, CHINESE_SEGMENTERS, "what_segmenter")

    def to_dict(self) -> dict:
        return asdict(self)


def detect_language(texts: Iterable[str], sample: int = 2000) -> str:
    """``zh``, ``en`` or ``mixed``, from the share of Chinese characters among the letters of
    (up to) the first ``sample`` texts."""
    cjk = letters = 0
    for i, text in enumerate(texts):
        if i >= sample:
            break
        cjk += len(_CJK_CHARS.findall(text))
        letters += len(_LETTERS.findall(text))
    if letters == 0 or cjk / letters < 0.05:
        return "en"
    # Chinese text spends one character per syllable, English about five per word: weigh so.
    return "zh" if cjk / letters > 0.5 else "mixed"


class _Stems(dict):
    """word -> stem (None for a stopword), computed once per distinct word."""

    def __init__(self, stem) -> None:
        super().__init__()
        self._stem = stem

    def __missing__(self, word: str) -> str | None:
        value = self[word] = self._stem(word)
        return value


DEFAULT_TOKENIZER = TokenizerConfig()


def pretokenized(tokens: list[str]) -> list[str]:
    """The analyzer of scikit-learn vectorizers fed the token lists a ``Tokenizer`` made
    (a module-level function, so that fitted vectorizers pickle)."""
    return tokens


class Tokenizer:
    """Turns texts into token lists under one ``TokenizerConfig`` whose language is resolved
    (``auto`` is replaced by what ``detect_language`` finds in the first texts seen)."""

    def __init__(self, config: TokenizerConfig = DEFAULT_TOKENIZER) -> None:
        self.config = config
        import Stemmer

        self._stemmer = Stemmer.Stemmer("english") if config.stem else None
        self._stems = _Stems(self._stem)
        self._jieba = None

    def resolved(self, texts: list[str]) -> Tokenizer:
        """This tokenizer with ``auto`` replaced by the language of ``texts``."""
        if self.config.language != "auto":
            return self
        language = detect_language(texts)
        logger.info("detected corpus language: %s", language)
        return Tokenizer(TokenizerConfig(**{**self.config.to_dict(), "language": language}))

    def __call__(self, texts: Iterable[str]) -> list[list[str]]:
        return [self.tokens(text) for text in texts]

    def tokens(self, text: str) -> list[str]:
        """The tokens of one text."""
        text = text.lower()
        if not _HAS_CJK.search(text):
            return self._words(_RUNS.findall(text))
        tokens: list[str] = []
        for run in _RUNS.findall(text):
            if is_cjk(run[0]):
                tokens.extend(self._chinese(run))
            else:
                tokens.extend(self._words([run]))
        return tokens

    def _words(self, words: list[str]) -> list[str]:
        return [stem for stem in map(self._stems.__getitem__, words) if stem]

    def _stem(self, word: str) -> str | None:
        """The stem of a word, or None for a stopword or a lone letter."""
        if (len(word) < 2 and not word.isdigit()) or (
            self.config.stopwords and word in stopwords("en")
        ):
            return None
        return self._stemmer.stemWord(word) if self._stemmer else word

    def _chinese(self, run: str) -> list[str]:
        if self.config.chinese == "bigram" or self.config.language == "en":
            pieces = [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        else:
            pieces = self._segmenter().lcut_for_search(run)
        if self.config.stopwords:
            stop = stopwords("zh")
            return [p for p in pieces if p not in stop]
        return pieces

    def _segmenter(self):
        if self._jieba is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            self._jieba = jieba
        return self._jieba
