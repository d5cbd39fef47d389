"""What decoding did to one side of a corpus: the entities lenient decoding repaired, the chunks
strict decoding dropped, and why (the tag before each).

Both work on the encoded corpus of :mod:`ner_decoding` and the entities decoded from it.
"""

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.decoding import _STRICT, EncodedCorpus
from ner_recall.core.tags import PREFIXES
from ner_recall.core.vocabulary import SpanArrays

_O, _I, _E = (PREFIXES.index(p) for p in "OIE")

#: why lenient decoding repaired an entity or strict decoding dropped a chunk, from the tag
#: before its first token: ``O`` or the sentence start (an ``I-`` with no ``B-``), another type,
#: the same type but an entity already ended (``E-PER I-PER``); strict only: the chunk starts
#: properly but never ends as the scheme requires (``B-PER I-PER O`` in IOBES)
REASONS = ("no_begin", "type_change", "after_end", "not_closed")
#: places listed per side
REPORT_PLACES = 5


def decoding_reports(
    corpus: EncodedCorpus,
    predicted: SpanArrays,
    gold: SpanArrays,
    scheme: str | None = None,
    places: int = 0,
) -> dict[str, dict[str, Any]]:
    """``{"predictions": report, "references": report}``: :func:`decoding_report` of both sides,
    given their entities; with ``places`` > 0 each lists its first ``places`` places."""
    return {
        "predictions": decoding_report(corpus.predictions, corpus, predicted, scheme, places),
        "references": decoding_report(corpus.references, corpus, gold, scheme, places),
    }


def decoding_report(
    codes: NDArray[np.integer],
    corpus: EncodedCorpus,
    spans: SpanArrays,
    scheme: str | None = None,
    places: int = REPORT_PLACES,
) -> dict[str, Any]:
    """What decoding did to one side of ``corpus`` (its ``codes``, decoded into ``spans``).

    Lenient (``scheme=None``): the entities it repaired, those that begin on a tag that begins
    no entity in IOB2 or IOBES (``I-``, ``E-``). Strict: the chunks it dropped, maximal runs of
    one type of non-``O`` tokens in no entity. Returns ``{"entities", "repaired", "dropped"}``
    (int) and ``"reasons"`` ({reason: count} over ``REASONS``); with ``places`` > 0, also
    ``"first"``, the first ``places`` places in corpus order: ``{"sentence", "start", "end",
    "reason"}``, offsets in the sentence, end exclusive.

    >>> from ner_recall.core.decoding import decode, encode
    >>> corpus = encode([["O", "I-PER", "B-LOC", "I-ORG"]], [["O", "B-PER", "B-LOC", "I-LOC"]])
    >>> report = decoding_report(corpus.predictions, corpus, decode(corpus.predictions, corpus))
    >>> report["repaired"], report["reasons"]["type_change"], report["first"][0]
    (2, 1, {'sentence': 0, 'start': 1, 'end': 2, 'reason': 'no_begin'})
    """
    starts, ends = (_repaired if scheme is None else _dropped)(codes, corpus, spans)
    reasons = _reasons(codes, corpus, starts, scheme)
    tally = np.bincount(reasons, minlength=len(REASONS)).tolist()
    report = {
        "entities": len(spans),
        "repaired": len(starts) if scheme is None else 0,
        "dropped": 0 if scheme is None else len(starts),
        "reasons": dict(zip(REASONS, tally)),
    }
    if places > 0:
        head = starts[:places]
        sentence = np.searchsorted(corpus.sentence_starts, head, side="right") - 1
        offset = head - corpus.sentence_starts[sentence]
        report["first"] = [
            {"sentence": i, "start": a, "end": a + n, "reason": REASONS[r]}
            for i, a, n, r in zip(
                sentence.tolist(), offset.tolist(), (ends[:places] - head).tolist(), reasons[:places].tolist()
            )
        ]
    return report


def _repaired(
    codes: NDArray[np.integer], corpus: EncodedCorpus, spans: SpanArrays
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(starts, ends) of the lenient entities that begin on ``I-`` or ``E-``."""
    begins = corpus.prefix[codes[spans.start]]
    repaired = (begins == _I) | (begins == _E)
    return spans.start[repaired], spans.end[repaired]


def _dropped(
    codes: NDArray[np.integer], corpus: EncodedCorpus, spans: SpanArrays
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(starts, ends) of the maximal runs of one type of non-``O`` tokens in no entity."""
    outside = corpus.prefix == _O
    tagged = codes != 0 if outside[0] and not outside[1:].any() else ~outside[codes]  # O is code 0
    if np.count_nonzero(tagged) == (spans.end - spans.start).sum():
        return spans.start[:0], spans.end[:0]  # every non-O token is in an entity
    edges = np.zeros(len(codes) + 1, dtype=np.int8)
    edges[spans.start] += 1
    edges[spans.end] -= 1
    free = np.flatnonzero(tagged & (np.cumsum(edges[:-1], dtype=np.int8) == 0))
    kind = corpus.type[codes[free]]
    first = np.ones(len(free), dtype=bool)
    first[1:] = (free[1:] != free[:-1] + 1) | (kind[1:] != kind[:-1])
    head = np.flatnonzero(first)
    return free[head], free[np.append(head[1:], len(free)) - 1] + 1


def _reasons(codes, corpus, starts, scheme):
    """Per position of ``starts``, its index in ``REASONS``, from the tag before it."""
    current, previous = codes[starts], codes[starts - 1]  # position -1 is the last sentinel, O
    prefix, prev_prefix = corpus.prefix[current].astype(np.intp), corpus.prefix[previous].astype(np.intp)
    same = corpus.type[current] == corpus.type[previous]
    starts_entity = _STRICT[scheme][0][prev_prefix, prefix, same.astype(np.intp)] if scheme else False
    return np.select([starts_entity, prev_prefix == _O, ~same], [3, 0, 1], 2).astype(np.intp)
