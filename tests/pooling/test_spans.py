"""Spans: locating a chunk's text in its document (repeated passages reported, never
guessed), and how an old chunk maps onto the chunks of another chunking, by hand."""

from __future__ import annotations

import pytest

from pooling.chunking import chunk_text
from pooling.i18n import LocalizedError
from pooling.spans import Located, Overlap, content_span, locate, map_span, overlap

DOCUMENT = (
    "Brake pads wear down.  Replace them below 1.5 mm.\n\n"
    "Safety notice: read the manual.\n\n"
    "Hydraulic brakes need bleeding.\n\n"
    "Safety notice: read the manual."
)


def test_a_passage_found_once_is_located_at_its_place():
    found = locate(DOCUMENT, "Replace them below 1.5 mm.")
    assert found == Located(23, 49, 1)
    assert DOCUMENT[found.start : found.end] == "Replace them below 1.5 mm."


def test_surrounding_whitespace_is_not_part_of_the_span():
    found = locate(DOCUMENT, "\n  Hydraulic brakes need bleeding. \n")
    assert DOCUMENT[found.start : found.end] == "Hydraulic brakes need bleeding."


def test_a_repeated_passage_is_ambiguous_and_gets_no_span():
    assert locate(DOCUMENT, "Safety notice: read the manual.") == Located(None, None, 2)
    # Overlapping places count: "aa" lies at two places in "aaa".
    assert locate("aaa", "aa").places == 2


def test_a_text_that_is_not_there_or_blank_is_found_nowhere():
    assert locate(DOCUMENT, "Disc brakes squeal.") == Located(None, None, 0)
    assert locate(DOCUMENT, "   ") == Located(None, None, 0)


def test_whitespace_normalised_by_a_chunker_still_locates():
    found = locate(DOCUMENT, "Brake pads wear down. Replace them")
    assert (found.start, found.end, found.places) == (0, 35, 1)
    assert DOCUMENT[found.start : found.end] == "Brake pads wear down.  Replace them"
    assert locate(DOCUMENT, "Safety notice:\nread the manual.").places == 2


def test_content_span_leaves_out_the_whitespace_around():
    assert content_span("  two words \n") == (2, 11)
    assert content_span("  two words \n", start=10) == (12, 21)
    assert content_span("") == (0, 0) and content_span(" \n ") == (0, 0)


def test_the_chunker_spans_are_content_spans():
    for span in chunk_text(DOCUMENT, 40, 10):
        assert DOCUMENT[span.start : span.end] == span.text == span.text.strip()


def test_overlap_shares_both_ways_by_hand():
    assert overlap((0, 100), (50, 250), "n") == Overlap("n", 50, 0.5, 0.25)
    assert overlap((0, 100), (100, 200), "n") is None  # touching is not sharing
    assert overlap((5, 5), (5, 5), "n") == Overlap("n", 0, 1.0, 1.0)  # an empty chunk kept


NEW = [("n0", 0, 100), ("n1", 100, 200), ("n2", 200, 300), ("big", 400, 700)]


@pytest.mark.parametrize(
    ("old", "mapping", "onto"),
    [
        ((100, 200), "same_text", ["n1"]),
        ((450, 600), "merged", ["big"]),
        ((0, 200), "split", ["n0", "n1"]),
        ((50, 250), "partial", ["n0", "n1", "n2"]),
        ((310, 390), "lost", []),
    ],
)
def test_mapping_classes(old, mapping, onto):
    found, overlaps = map_span(old, NEW)
    assert found == mapping
    assert [o.chunk_id for o in overlaps] == onto


def test_min_overlap_leaves_out_slight_overlaps():
    # 10 of 200 old characters (0.05) and 10 of 100 new ones (0.10): below 0.2 either way.
    mapping, overlaps = map_span((90, 290), [("a", 0, 100), ("b", 100, 300)], min_overlap=0.2)
    assert [(o.chunk_id, o.shared, o.share_old, o.share_new) for o in overlaps] == [
        ("b", 190, 0.95, 0.95)
    ]
    assert mapping == "partial"
    mapping, overlaps = map_span((90, 290), [("a", 0, 100), ("b", 100, 300)], min_overlap=0.05)
    assert [o.chunk_id for o in overlaps] == ["a", "b"]
    with pytest.raises(LocalizedError, match="above 0 and at most 1"):
        map_span((0, 1), [], min_overlap=0)
