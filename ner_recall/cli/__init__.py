"""The command line: ``ner-recall`` and ``python -m ner_recall``."""
