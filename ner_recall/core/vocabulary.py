"""The vocabulary every module shares: spans, scenarios, modes, outcomes, count rows, ratios.

Nothing here reads input or knows ``evaluate``; every other ``ner_*`` module imports its facts
from here, so that none is defined twice.

Spans. An entity is ``Span(label, start, end)``, offsets in its sentence, ``end`` exclusive.
A side of a corpus is :class:`SpanArrays`: flat positions (sentences back to back, one
sentinel after each), the sentence and the offset in it, and the type's index.

Scenarios and modes (SemEval-2013, as in Batista's write-up). A matched pair is in one of
four scenarios; each mode maps a scenario to an outcome, and an outcome earns a credit:

==========================  ========  =========  =========  =========
scenario                    strict    exact      partial    type
==========================  ========  =========  =========  =========
exact span, same type       correct   correct    correct    correct
exact span, other type      incorrect correct    correct    incorrect
overlap, same type          incorrect incorrect  partial    correct
overlap, other type         incorrect incorrect  partial    incorrect
==========================  ========  =========  =========  =========

>>> [SCENARIO_CREDIT[mode] for mode in MODES]
[(1.0, 0.0, 0.0, 0.0), (1.0, 1.0, 0.0, 0.0), (1.0, 1.0, 0.5, 0.5), (1.0, 0.0, 1.0, 0.0)]
>>> OUTCOME_CODES["missed"], divide(1, 4, 0), fbeta(0.5, 1.0), fbeta_key(0.5)
(3, 0.25, 0.6666666666666666, 'f0.5')
>>> shared_length(np.array([0, 2]), np.array([3, 4]), np.array([1, 4]), np.array([2, 6])).tolist()
[1, 0]
"""

import numbers
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

T = TypeVar("T")

# ---------------------------------------------------------------------------- spans


class Span(NamedTuple):
    """An entity: its type and its token offsets in the sentence, ``end`` exclusive."""

    label: str
    start: int
    end: int


class _SpanFields(NamedTuple):
    start: np.ndarray
    end: np.ndarray
    type: np.ndarray
    sentence: np.ndarray
    offset: np.ndarray


class SpanArrays(_SpanFields):
    """All entities of one side of a corpus, sorted by position; ``len`` counts them.

    ``start`` and ``end`` are positions in the flat layout (sentences back to back, one
    sentinel after each); ``sentence`` and ``offset`` locate the start within its sentence;
    ``type`` indexes the corpus's type names.

    >>> spans = SpanArrays(*(np.array([0, 3]),) * 5)
    >>> len(spans), len(spans._replace(type=np.array([1, 1])))
    (2, 2)
    """

    __slots__ = ()

    def __len__(self) -> int:
        return len(self.start)

    def part(self, a: int, b: int) -> "SpanArrays":
        """The spans ``a`` to ``b - 1`` (views, not copies)."""
        return SpanArrays(*(values[a:b] for values in self))

    @classmethod
    def _make(cls, iterable):  # namedtuple's own ``_make`` checks ``len``, which counts spans here
        arrays = tuple.__new__(cls, iterable)
        if tuple.__len__(arrays) != len(cls._fields):
            raise TypeError(f"SpanArrays takes {len(cls._fields)} arrays, got {tuple.__len__(arrays)}")
        return arrays


# ---------------------------------------------------------------------------- two threads

#: flat positions of a corpus from which its two sides are decoded in two threads (the work is
#: NumPy's, which releases the GIL): about 1.1M sentences of 14 tokens. Two sides decoded at once hold
#: both sides' temporaries at once: at 1M sentences (``bench/speed.py``) that raised compute's peak
#: from 1,102 to 1,141 MB to save 0.08 s of wall time, so smaller corpora use one thread
PARALLEL_POSITIONS = 1 << 24
#: entities of both sides from which they are matched in two halves, in two threads (about the same
#: corpus size)
PARALLEL_SPANS = 1 << 22


def side_by_side(calls: Sequence[Callable[[], T]], parallel: bool = True) -> list[T]:
    """The results of the argument-less ``calls``, in order: in threads (the first in this one)
    when ``parallel``, one after the other otherwise; an exception is raised as it would be
    alone.

    >>> side_by_side([lambda: 1, lambda: 2]), side_by_side([lambda: 3, lambda: 4], parallel=False)
    ([1, 2], [3, 4])
    """
    if not parallel or len(calls) < 2:
        return [call() for call in calls]
    with ThreadPoolExecutor(len(calls) - 1) as pool:
        others = [pool.submit(call) for call in calls[1:]]
        first = calls[0]()
        return [first] + [future.result() for future in others]


def shared_length(
    start_a: NDArray[Any], end_a: NDArray[Any], start_b: NDArray[Any], end_b: NDArray[Any]
) -> NDArray[Any]:
    """Positions two ranges ``[start, end)`` share (0 when they do not overlap), elementwise."""
    return np.maximum(np.minimum(end_a, end_b) - np.maximum(start_a, start_b), 0)


def union_length(
    start_a: NDArray[Any], end_a: NDArray[Any], start_b: NDArray[Any], end_b: NDArray[Any]
) -> NDArray[Any]:
    """Positions of the smallest range holding both (their union, for overlapping ranges)."""
    return np.maximum(end_a, end_b) - np.minimum(start_a, start_b)


# ---------------------------------------------------------------------------- matching outcomes

SCENARIOS = ("exact", "exact_other_type", "overlap", "overlap_other_type")
MODES = ("strict", "exact", "partial", "type")
OUTCOMES = ("correct", "incorrect", "partial")
#: per mode, the outcome of each scenario
OUTCOME_TABLE = {
    "strict": ("correct", "incorrect", "incorrect", "incorrect"),
    "exact": ("correct", "correct", "incorrect", "incorrect"),
    "partial": ("correct", "correct", "partial", "partial"),
    "type": ("correct", "incorrect", "correct", "incorrect"),
}
#: recall / precision credit of each outcome
CREDIT = {"correct": 1.0, "incorrect": 0.0, "partial": 0.5}
#: per mode, the credit of each scenario
SCENARIO_CREDIT = {mode: tuple(CREDIT[o] for o in OUTCOME_TABLE[mode]) for mode in MODES}
#: the code of each outcome of a gold span (``missed``: not matched)
OUTCOME_CODES = {**{o: i for i, o in enumerate(OUTCOMES)}, "missed": len(OUTCOMES)}

#: the column blocks of a count row, one column per entity type each: the matched gold spans of
#: each scenario (by gold type), the predicted spans of the two other-type scenarios (by
#: predicted type; the same-type ones are the gold ones), the missed and the spurious spans
COLUMNS = (
    "gold_exact",
    "gold_exact_other_type",
    "gold_overlap",
    "gold_overlap_other_type",
    "pred_exact_other_type",
    "pred_overlap_other_type",
    "missed",
    "spurious",
)

# ---------------------------------------------------------------------------- ratios

ZERO_DIVISION = (0, 1)


def divide(numerator: float, denominator: float, zero_division: float) -> float:
    """``numerator / denominator`` as a plain float, ``zero_division`` where it is 0/0."""
    return float(numerator) / float(denominator) if denominator else float(zero_division)


def ratio(numerator: ArrayLike, denominator: ArrayLike, zero_division: float) -> NDArray[np.float64]:
    """:func:`divide` elementwise on arrays (float64), ``zero_division`` (a number or NaN) at 0/0."""
    numerator, denominator = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), zero_division)


def fbeta(precision: float, recall: float, beta: float = 1.0) -> float:
    """The weighted harmonic mean of precision and recall, 0.0 when both are 0.

    >>> fbeta(0.5, 1.0), fbeta(0.5, 1.0, beta=2), fbeta(0.5, 1.0, beta=0.5)
    (0.6666666666666666, 0.8333333333333334, 0.5555555555555556)
    """
    return float(fbeta_array(np.float64(precision), np.float64(recall), beta))


def fbeta_array(
    precision: NDArray[np.float64] | np.float64, recall: NDArray[np.float64] | np.float64, beta: float = 1.0
) -> NDArray[np.float64]:
    """:func:`fbeta` elementwise: 0 where both are 0, NaN where either is NaN."""
    if beta <= 1.0:  # beta ** 2 may underflow to 0: then the score is the precision
        b2 = beta * beta
        numerator, denominator = (1 + b2) * precision * recall, b2 * precision + recall
    else:  # divided by beta ** 2, which may overflow: then the score is the recall
        w = 1 / (beta * beta)
        numerator, denominator = (1 + w) * precision * recall, precision + w * recall
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)
    return np.where(np.isnan(denominator), np.nan, f)


def fbeta_key(beta: float) -> str:
    """The name of the F-beta score: ``"f1"``, ``"f0.5"``, ``"f2"``."""
    text = repr(float(beta))
    return "f" + (text[:-2] if text.endswith(".0") else text)


def score_names(beta: float = 1.0) -> tuple[str, str, str]:
    """The keys of the three scores: ``("precision", "recall", "f1")``, F named for ``beta``."""
    return ("precision", "recall", fbeta_key(beta))


def prf_scores(
    hit_gold: float,
    hit_pred: float,
    gold: float,
    predicted: float,
    zero_division: float = 0.0,
    beta: float = 1.0,
) -> dict[str, float]:
    """The one precision / recall / F-beta of every family's table, from its counts: recall is
    ``hit_gold`` of the ``gold`` items, precision ``hit_pred`` of the ``predicted`` ones.

    >>> prf_scores(3, 2, 4, 4, beta=2)
    {'precision': 0.5, 'recall': 0.75, 'f2': 0.6818181818181818}
    """
    precision, recall = divide(hit_pred, predicted, zero_division), divide(hit_gold, gold, zero_division)
    return dict(zip(score_names(beta), (precision, recall, fbeta(precision, recall, beta))))


#: result keys renamed (old: new), read under their old name with a FutureWarning until the next
#: minor version (docs/glossary.md)
RENAMED_KEYS = {"gold": "number", "predictions": "predicted"}


class Renamed(dict):
    """A results table (a plain dict, JSON as it is) whose renamed keys still read under their old
    name, with a ``FutureWarning``, for one minor version (:data:`RENAMED_KEYS`).

    >>> import warnings
    >>> table = Renamed(number=2)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     table["gold"], table.get("gold"), caught[0].category.__name__
    (2, 2, 'FutureWarning')
    >>> "gold" in table, dict(table)
    (False, {'number': 2})
    """

    def __missing__(self, key: str) -> object:
        new = RENAMED_KEYS.get(key)
        if new is None or new not in self:
            raise KeyError(key)
        warnings.warn(
            f"results key {key!r} is now {new!r} (docs/glossary.md); {key!r} goes in the next minor version",
            FutureWarning,
            stacklevel=2,
        )
        return self[new]

    def get(self, key: str, default: object = None) -> object:
        """As ``dict.get``, with the renamed keys' old names."""
        try:
            return self[key]
        except KeyError:
            return default


def same_count(name: str, count: int, other: str, expected: int, unit: str = "sentences") -> None:
    """The one check that a column has one item per sentence (or example) of the corpus, naming both.

    >>> same_count("tokens", 2, "references", 3)
    Traceback (most recent call last):
    ...
    ner_recall.core.vocabulary.InputError: tokens has 2 sentences but references has 3
    >>> same_count("slices", 2, "", 3, unit="values")
    Traceback (most recent call last):
    ...
    ner_recall.core.vocabulary.InputError: slices has 2 values but there are 3 sentences; give one per sentence
    """
    if count == expected:
        return
    if other:
        raise InputError(f"{{place}} has {count} {unit} but {{other}} has {expected}", name, other=(other,))
    raise InputError(
        f"{{place}} has {count} {unit} but there are {expected} sentences; give one per sentence", name
    )


# ---------------------------------------------------------------------------- small shared facts

#: the keys of an entity of the span configs
ENTITY_KEYS = ("label", "start", "end")
#: the class id that marks a position to ignore (padding, sub-word pieces), as transformers does
IGNORE_INDEX = -100
#: the population sizes of a stratum of a recall benchmark (spelt as its published files spell them)
SIZE_KEYS = ("occurences", "labelled", "positive")


def is_int(x: object) -> bool:
    """An integral number that is not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def check_confidence_level(value: Any) -> float:
    """A level in (0, 1), as a float: of bootstrap intervals and of the stratified recall alike."""
    if not (isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 < cast(float, value) < 1):
        raise ValueError(f"confidence_level must be in (0, 1); got {value!r}")
    return float(value)


def check_seed(value: Any) -> int | None:
    """A non-negative int, or None (fresh entropy: not reproducible)."""
    if value is None:
        return None
    if not (is_int(value) and value >= 0):
        raise ValueError(f"seed must be a non-negative int or None; got {value!r}")
    return int(value)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values (a list), in their order.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


# ---------------------------------------------------------------------------- input errors


class InputError(ValueError):
    """A bad item of an input, with its place as attributes: the message is written from them.

    ``side`` names the input (``"predictions"``, ``"references"``, ``"annotations[2]"``, ...);
    ``sentence`` and ``token`` index the item in it (``None`` where the error is about a whole
    sentence or side); ``item`` is the value found there (``None`` if none); ``other`` is a second
    place the message names, ``(side, sentence, token)`` (the sentence of the other side whose
    length differs, the tag that has a type where this one has none); ``note`` is appended in
    parentheses (the file and line a reader found the item at).

    ``template`` is the message with ``{place}`` where the place goes and ``{other}`` where the
    second place goes; ``{item!r}`` writes the item. Any other brace is doubled in the template
    (:func:`literal` quotes a text for it). Code that knows more about a place (an annotator's
    name, a file's line, the item that held it) rewrites the attributes with :meth:`renamed`,
    :meth:`noted` and :meth:`framed`, never the text; ``str(error)`` is always written afresh. It is a ``ValueError``: callers that catch
    those catch it.

    >>> from ner_recall.core.vocabulary import InputError
    >>> error = InputError("invalid tag {item!r} at {place}", "predictions", 3, 1, "X-PER")
    >>> str(error)
    "invalid tag 'X-PER' at predictions[3][1]"
    >>> error.side, error.sentence, error.token, error.item, error.place
    ('predictions', 3, 1, 'X-PER', 'predictions[3][1]')
    >>> str(error.renamed({"predictions": "annotations[1]"}))
    "invalid tag 'X-PER' at annotations[1][3][1]"
    >>> str(error.noted("pred.conll line 7"))
    "invalid tag 'X-PER' at predictions[3][1] (pred.conll line 7)"
    >>> str(error.framed("train_entities[3]: ", "; see the scheme"))
    "train_entities[3]: invalid tag 'X-PER' at predictions[3][1]; see the scheme"
    >>> lengths = InputError("{place} has 2 tags but {other} has 3", "predictions", 0, other=("references", 0))
    >>> str(lengths.renamed({"references": "annotations[0]", "predictions": "annotations[1]"}))
    'annotations[1][0] has 2 tags but annotations[0][0] has 3'
    """

    def __init__(
        self,
        template: str,
        side: str,
        sentence: int | None = None,
        token: int | None = None,
        item: object = None,
        *,
        other: tuple | None = None,
        note: str | None = None,
    ) -> None:
        self.template, self.side, self.sentence, self.token = template, side, sentence, token
        self.item, self.other, self.note = item, None if other is None else tuple(other), note
        super().__init__(self._message())

    @staticmethod
    def place_of(side: str, sentence: int | None = None, token: int | None = None) -> str:
        """``side[sentence][token]``, the indexes that are not None."""
        return side + "".join(f"[{k}]" for k in (sentence, token) if k is not None)

    @property
    def place(self) -> str:
        """Where the item is: ``predictions[3][1]``."""
        return self.place_of(self.side, self.sentence, self.token)

    def _message(self) -> str:
        other = "" if self.other is None else self.place_of(*self.other)
        text = self.template.format(place=self.place, other=other, item=self.item)
        return text if self.note is None else f"{text} ({self.note})"

    def _copy(self, **changes: object) -> "InputError":
        fields = dict(vars(self))
        fields.update(changes)
        template, side = fields.pop("template"), fields.pop("side")
        return type(self)(
            template, side, **{k: fields[k] for k in ("sentence", "token", "item", "other", "note")}
        )

    def renamed(self, names: dict) -> "InputError":
        """The same error with the sides renamed by ``names`` ({old side: new side}; others kept)."""
        other = self.other
        if other is not None:
            other = (names.get(other[0], other[0]), *other[1:])
        return self._copy(side=names.get(self.side, self.side), other=other)

    def noted(self, note: str) -> "InputError":
        """The same error with ``note`` (a file and line) appended in parentheses."""
        return self._copy(note=note)

    def framed(self, before: str, after: str = "") -> "InputError":
        """The same error with the context a caller knows written around its message: ``before``
        (the item that held a bad tag) and ``after`` (a hint); the place stays an attribute."""
        return self._copy(template=literal(before) + self.template + literal(after))

    def __reduce__(self) -> tuple:
        return _input_error, (
            self.template,
            self.side,
            self.sentence,
            self.token,
            self.item,
            self.other,
            self.note,
        )


def _input_error(template, side, sentence, token, item, other, note):  # unpickling
    return InputError(template, side, sentence, token, item, other=other, note=note)


def literal(text: str) -> str:
    """``text`` quoted for an :class:`InputError` template (its braces doubled).

    >>> literal("{x}")
    '{{x}}'
    """
    return text.replace("{", "{{").replace("}", "}}")
