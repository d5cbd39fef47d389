"""EstNLTK's default NER tagger (the CRF model shipped in the ``estnltk`` package) on a benchmark.

Set-up of the published EstNLTK leaderboards (estnltk-model-data, recall_estimation/benchmarks):
each benchmark text is one ``estnltk.Text``; its words, sentences and morphological analysis come
from EstNLTK's own pipeline; ``NerTagger()`` with its defaults adds the ``ner`` layer; a row counts
as found when some ``ner`` span has exactly the gold span's character offsets and its ``nertag``
equals the gold label (``LOC``). Here the only change is the sentence splitter: EstNLTK's default
one needs NLTK's punkt data from the internet, so the whole text is taken as one sentence (each
benchmark text is one sentence). On both benchmarks this gives the published per-row outcomes
(amundsen_01: all 535 rows agree with the files' ``correct`` column).

Two properties of the tagger that the published numbers include, kept as they are: its spans are
unions of EstNLTK's words, which sometimes cut the benchmark's whitespace tokens (``Venemaaga`` in
``-Venemaaga``, ``Deniss P`` in ``Deniss P.``: 13 of the 2220 rows), hence ``align``; and an entity
that ends on the text's last word is dropped (``NerTagger`` never closes its last open entity).

Usage::

    from estnltk_tagger import EstnltkNer, tag_dataset
    out = tag_dataset(dataset, EstnltkNer(), metric.align)   # dataset = metric.load_benchmark(...)
    out["predictions"], out["references"]      # IOB2 tags, one list per row, on a shared grid
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from ner_recall.readers.benchmarks import align  # noqa: E402

MODEL_NAME = "EstNLTK-default-NER"


class EstnltkNer:
    """Callable: a text's named entities as ``[(start, end, nertag), ...]`` (nertag PER, LOC, ORG).

    Loads the CRF model once (a few seconds); about 20 texts per second afterwards.
    """

    def __init__(self):
        from estnltk.taggers import NerTagger, SentenceTokenizer
        from nltk.tokenize.api import TokenizerI

        class WholeText(TokenizerI):
            """NLTK sentence tokenizer interface: the whole text is one sentence."""

            def tokenize(self, s):
                return [s]

            def span_tokenize(self, s):
                yield 0, len(s)

        self._sentences = SentenceTokenizer(base_sentence_tokenizer=WholeText())
        self._ner = NerTagger()

    def __call__(self, text):
        from estnltk import Text

        doc = Text(text)
        doc.tag_layer(["words", "compound_tokens"])
        self._sentences.tag(doc)
        doc.tag_layer("morph_analysis")
        self._ner.tag(doc)
        return [(span.start, span.end, span.nertag) for span in doc.ner]


def tag_dataset(dataset, tagger, align=align):
    """Run ``tagger`` (text -> [(start, end, label)]) on every row of a benchmark dataset.

    Returns a dict of lists, one item per row: ``spans`` (the tagger's character spans),
    ``tokens``, ``references`` and ``predictions`` (IOB2 tags on the row's token grid, cut
    wherever a predicted span boundary falls inside a token or in whitespace: see
    ``ner_benchmarks.align``, also the metric's ``align`` method), and ``subgroups``.
    """
    out = {"spans": [], "tokens": [], "references": [], "predictions": [], "subgroups": []}
    for example in dataset:
        spans = tagger(example["text"])
        tokens, references, predictions = align(example, spans)
        for key, value in zip(out, (spans, tokens, references, predictions, example["subgroup"])):
            out[key].append(value)
    return out
