"""Active pooling: which candidate of a query to judge next, learned from the judgments
made so far, and when to stop asking.

Continuous active learning in the style of HiCAL (Abualsaud et al. 2018): after every
judgment the query's unjudged candidates are ranked again by voices fused by reciprocal
rank:

- the systems' fused rank, always;
- until a relevant chunk is known, the TF-IDF cosine to the query;
- from then on, a logistic regression on TF-IDF trained on the judged chunks, the query as
  one more relevant example, and a seeded sample of unjudged candidates from the lower half
  of the fused order as non-relevant (such chunks are nearly all non-relevant; BMI does the
  same with random documents);
- and the cosine, in the candidates' latent topics (LSI), to the relevant chunks' mean.

TF-IDF is fitted on the query's candidates alone, which keeps the work per query small and
independent of the corpus size. ``benchmarks/pool_recall.py`` measures the choice. Tried on
Cranfield and no better at 50 judgments (all within 0.005): word bigrams (five times slower),
the voices' z-scores summed instead of fused by rank, a fusion constant of 6 or 20, 50 LSI
dimensions, a prior fused by CombSUM, per-query system weights learned from the judgments
(as MaxMean does), Rocchio with negative feedback or beside the classifier, a fading prior,
other regularisation of the classifier, and 200 sampled non-relevant candidates.

The stopping rule fits the chance that the t-th chunk judged is relevant to the judgments in
the order they were asked for, as logit(p) = a + b·log(1 + t) (relevance thins out down a
ranking roughly as a power of the rank), with one pseudo-relevant judgment at the start and
one pseudo-non-relevant at the end of the candidates; the remaining relevant chunks are
estimated as the sum of p over the positions not judged yet. On Cranfield, after 50
judgments, its median is 1.5 where the truth's is 0; the same fit on t itself gave 4.8, and
fell below 1 for no query within 50 judgments. ``benchmarks/pool_recall.py`` measures what
stopping by it costs and saves.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, reduce

import numpy as np

from pooling.tokenize import pretokenized

FUSION_K = 10  # small: each voice's top few should count
UNJUDGED_SAMPLE = 100  # unjudged candidates taken as non-relevant when training
UNLIKELY_FROM = 0.5  # ... drawn from the lower half of the fused order
LSI_DIMENSIONS = 100
# The estimate may stop a query only after this many judgments (after 10, queries with no
# relevant chunk found yet were stopped too often).
MIN_JUDGED = 20


@dataclass(frozen=True)
class StoppingRule:
    """Stop asking for a query once ``budget`` candidates were chosen, or once the estimated
    number of relevant chunks not judged yet falls below ``below`` (0 never stops early)."""

    budget: int
    below: float = 1.0

    def reason(self, chosen: int, estimate: float | None, candidates: int) -> str | None:
        """``budget``, ``estimate``, ``exhausted`` (nothing left to choose) or None (go on)."""
        if chosen >= candidates:
            return "exhausted"
        if chosen >= self.budget:
            return "budget"
        if estimate is not None and estimate < self.below:
            return "estimate"
        return None


class QueryLearner:
    """One query's candidates (best fused rank first) as TF-IDF vectors, ready to be ranked
    again whenever judgments arrive. ``documents[i]`` holds candidate ``i``'s tokens, made
    by the same ``pooling.tokenize.Tokenizer`` as ``query``'s (callers tokenize, so that they
    can tokenize a chunk shared by many queries once, as the benchmark does)."""

    def __init__(self, query: list[str], documents: Sequence[list[str]]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        if not any(documents):  # no candidate has a word: one shared token keeps TF-IDF defined
            documents = [[""] for _ in documents]
        vectorizer = TfidfVectorizer(analyzer=pretokenized, sublinear_tf=True)
        self.vectors = vectorizer.fit_transform(documents)
        self.query_vector = vectorizer.transform([query])
        self.query_similarity = (self.vectors @ self.query_vector.T).toarray().ravel()
        self.seed = "\x00".join(query)

    @cached_property
    def topics(self) -> np.ndarray | None:
        """Latent topics of the candidates (LSI), unit length, for chunks that share no word
        with the relevant ones found so far; made when the first relevant one is."""
        from sklearn.decomposition import TruncatedSVD

        dimensions = min(LSI_DIMENSIONS, self.vectors.shape[0] - 1, self.vectors.shape[1] - 1)
        if dimensions < 1:
            return None
        with np.errstate(divide="ignore", invalid="ignore"):  # identical candidates: 0 / 0
            topics = TruncatedSVD(dimensions, random_state=0).fit_transform(self.vectors)
        return topics / (np.linalg.norm(topics, axis=1, keepdims=True) + 1e-12)

    def __len__(self) -> int:
        return self.vectors.shape[0]

    def order(self, labels: Mapping[int, bool]) -> list[int]:
        """Unjudged candidates, most likely relevant first, given ``labels`` (candidate index
        -> judged relevant). With no labels this is the fused order, nudged by the query."""
        score = self.scores(labels)
        unjudged = [i for i in range(len(self)) if i not in labels]
        return sorted(unjudged, key=lambda i: (-score[i], i))

    def scores(self, labels: Mapping[int, bool]) -> np.ndarray:
        """Every candidate's fused score (higher: more likely relevant) given ``labels``."""
        n = len(self)
        relevant = [i for i, y in labels.items() if y]
        voices = [-np.arange(n, dtype=float)]
        if not relevant:
            voices.append(self.query_similarity)
        else:
            # The classifier learns from the query and the relevant chunks both, so Rocchio
            # feedback (query plus relevant centroid) measured no better beside it.
            classifier = self._classifier(labels)
            if classifier is not None:
                voices.append(classifier)
            if self.topics is not None:
                voices.append(self.topics @ self.topics[relevant].mean(axis=0))
        return reduce(np.add, [1.0 / (FUSION_K + _ranks(v)) for v in voices])

    def _classifier(self, labels: Mapping[int, bool]) -> np.ndarray | None:
        """Scores of a logistic regression; None with nothing to learn non-relevant from
        (every candidate judged relevant, or none left unjudged)."""
        import scipy.sparse as sp
        from sklearn.linear_model import LogisticRegression

        start = int(UNLIKELY_FROM * len(self))
        unjudged = [i for i in range(start, len(self)) if i not in labels]
        # Candidates added later sort last and may fill the lower half: then any will do.
        unjudged = unjudged or [i for i in range(len(self)) if i not in labels]
        seed = hashlib.sha256(f"{self.seed}\x01{len(labels)}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(seed[:8], "big"))
        sample = rng.choice(unjudged, min(UNJUDGED_SAMPLE, len(unjudged)), replace=False)
        y = [int(labels[i]) for i in labels] + [0] * len(sample) + [1]
        if min(y) == 1:
            return None
        x = sp.vstack([self.vectors[[*labels, *sample.tolist()]], self.query_vector])
        model = LogisticRegression(class_weight="balanced", max_iter=300).fit(x, y)
        return model.decision_function(self.vectors)


def _ranks(values: np.ndarray) -> np.ndarray:
    """0 for the highest value, ties by position."""
    ranks = np.empty(len(values), dtype=float)
    ranks[np.argsort(-values, kind="stable")] = np.arange(len(values))
    return ranks


def estimate_remaining(outcomes: Sequence[bool], candidates: int) -> float | None:
    """Expected relevant chunks among the ``candidates - len(outcomes)`` not judged yet, from
    ``outcomes`` (relevant or not, in the order they were asked for). None before
    ``MIN_JUDGED`` judgments: too few to say."""
    if len(outcomes) < MIN_JUDGED:
        return None
    return decay_estimate(outcomes, candidates)


def decay_estimate(outcomes: Sequence[bool], candidates: int) -> float:
    """``estimate_remaining``'s fit, however few the judgments (the pseudo-judgments at
    either end keep it defined with none)."""
    judged = len(outcomes)
    left = candidates - judged
    if left <= 0:
        return 0.0
    from sklearn.linear_model import LogisticRegression

    positions = np.arange(judged + 2, dtype=float)
    positions[-1] = candidates  # the pseudo-non-relevant last candidate
    y = [1, *map(int, outcomes), 0]
    scale = np.log1p(candidates)
    model = LogisticRegression(C=100.0).fit((np.log1p(positions) / scale).reshape(-1, 1), y)
    ahead = np.log1p(np.arange(judged + 1, candidates + 1, dtype=float)) / scale
    return float(model.predict_proba(ahead.reshape(-1, 1))[:, 1].sum())
