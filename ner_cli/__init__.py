"""Parts of the command line (``ner_report.py``) in modules of their own."""
