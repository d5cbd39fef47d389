"""ner_recall: entity, span and generated-output evaluation in one matching pass.

The floors, from the bottom: ``core`` (the vocabulary, tags and decoding, matching, counts, inputs),
``stats`` (intervals, paired tests, stratified recall, planning, agreement), ``families`` (one module
per scoring family and breakdown), ``readers`` (one module per file format), ``generated`` (a
language model's raw output), ``pipeline`` (options, ``compute``, the signature, several golds, the
compiled path), ``state`` (the exact and the counts states), ``integrations`` (evaluate, transformers),
and the front ends ``cli`` and ``app``. ``ner_recall_metric.py`` beside the package is the
``evaluate.Metric`` over it.
"""

#: the library's and the metric's version: 1.1.0 named the gold count ``number`` in every family that
#: counts items (``gold`` and ``predictions`` still read, with a FutureWarning, until 1.2.0; docs/glossary.md)
__version__ = "1.1.0"
