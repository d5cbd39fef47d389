"""Progress of long work: a bar on a terminal, a callback for an app; silent otherwise.

Long loops (bootstrap resamples, permutations, a state's blocks, the lines of a large file) count
their steps through :func:`steps`. Where the steps go:

* inside :func:`reporting` (the app wraps a call in it), to its callback as
  ``callback(fraction_done, description)``; the callback may raise to cancel the work between steps;
* else to a ``tqdm`` bar on standard error, shown only when it is a terminal, only for work that lasts
  over :data:`DELAY` seconds, and never when progress bars are switched off with ``datasets``' own
  switch (``datasets.disable_progress_bars()``) or ``evaluate``'s (``evaluate.disable_progress_bar()``);
* else nowhere.

>>> from ner_recall.core import progress as ner_progress
>>> seen = []
>>> with ner_progress.reporting(lambda done, what: seen.append((done, what))):
...     with ner_progress.steps(4, "resamples") as bar:
...         for _ in range(2):
...             bar.advance(2)
>>> seen
[(0.0, 'resamples'), (0.5, 'resamples'), (1.0, 'resamples')]
"""

import contextlib
import contextvars
import sys
from collections.abc import Callable, Iterator
from typing import Any

#: seconds of work before a terminal bar appears
DELAY = 2.0

Callback = Callable[[float, str], None]
_REPORTER: contextvars.ContextVar[Callback | None] = contextvars.ContextVar("ner_progress", default=None)


@contextlib.contextmanager
def reporting(callback: Callback) -> Iterator[None]:
    """Send the progress of the work done inside to ``callback(fraction_done, description)``."""
    token = _REPORTER.set(callback)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def bars_enabled() -> bool:
    """Whether a terminal bar may be drawn: standard error is a terminal and neither ``datasets``'
    nor ``evaluate``'s switch turned progress bars off."""
    stream = sys.stderr
    if stream is None or not getattr(stream, "isatty", lambda: False)():
        return False
    for module, check in (("datasets", "is_progress_bar_enabled"), ("evaluate", "is_progress_bar_enabled")):
        switch = _switch(module, check)
        if switch is not None and not switch():
            return False
    return True


def _switch(module: str, name: str) -> Callable[[], bool] | None:
    loaded = sys.modules.get(module)
    logging = getattr(getattr(loaded, "utils", None), "logging", None)
    found = getattr(logging, name, None) or getattr(loaded, name, None)
    return found if callable(found) else None


class Steps:
    """``total`` steps of one piece of work; :meth:`advance` as they are done."""

    def __init__(self, total: int, description: str, callback: Callback | None, bar: Any) -> None:
        self.total, self.description, self.done = max(int(total), 1), description, 0
        self._callback, self._bar = callback, bar
        if callback is not None:
            callback(0.0, description)

    def advance(self, n: int = 1) -> None:
        self.done = min(self.done + n, self.total)
        if self._callback is not None:
            self._callback(self.done / self.total, self.description)
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


@contextlib.contextmanager
def steps(total: int, description: str) -> Iterator[Steps]:
    """A counter of ``total`` steps, reported as the module docstring says."""
    callback, bar = _REPORTER.get(), None
    if callback is None and bars_enabled():
        try:
            from tqdm.auto import tqdm
        except ImportError:  # tqdm comes with datasets; without it, no bar
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=total, desc=description, delay=DELAY, leave=False, file=sys.stderr)
    counter = Steps(total, description, callback, bar)
    try:
        yield counter
    finally:
        counter.close()
