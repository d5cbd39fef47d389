"""The repository's root modules as one package, for what runs from a checkout.

The metric's modules import each other relatively (``from .ner_core import ...``), as
``evaluate.load`` needs: it copies the script and its siblings into a package of its own. The app,
the command line, the benchmarks, the examples and the tests run from the checkout instead; importing
this module makes the root folder the package :data:`NAME`, so that they write one import list:

>>> import bootstrap
>>> from ner_recall import ner_core
>>> ner_core.MODES
('strict', 'exact', 'partial', 'type')
"""

import sys
import types
from pathlib import Path

#: the package the root modules form when imported from a checkout
NAME = "ner_recall"
#: the repository's root folder
ROOT = Path(__file__).resolve().parent


def package() -> types.ModuleType:
    """The package :data:`NAME` over :data:`ROOT`, made once per process."""
    module = sys.modules.get(NAME)
    if module is None:
        module = types.ModuleType(NAME, "The repository's root modules, imported from a checkout.")
        module.__path__ = [str(ROOT)]
        sys.modules[NAME] = module
    return module


package()
