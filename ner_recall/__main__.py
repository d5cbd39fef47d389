"""``python -m ner_recall``: the command line (``ner_recall.cli.report``)."""

import sys

from ner_recall.cli.report import main

if __name__ == "__main__":
    sys.exit(main())
