"""The cyclic garbage collector paused while a reader allocates: reading a large file makes
millions of small lists and no cycles, and the collector's full passes over everything read so
far would take most of the time (two thirds of a CoNLL file's, and HAREM's markup grew faster
than its text). The collector is left as it was found, also when the reading raises.

>>> import gc
>>> with no_cycle_collection():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector paused inside, enabled again after only if it was before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
