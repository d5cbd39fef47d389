"""The registry of score families: each family declared once, in its own module, and read by every
part of the metric that needs to know about families.

A :class:`Family` says where its results go, how it counts from the view and derives its results
from those counts, when it runs, its entry in the card's Returns, the top-level keys it writes,
its own options (each with its type, default, check, the words of its doc and its signature code)
and what it supports (:data:`SUPPORTS`). :func:`register` checks every required part and names the
one missing. Validation (``scores``, the family options), the reserved keys, the signature's codes,
the card's Args and Returns, the slices' headline and each result path (intervals, the counts
state, several golds, the compiled path, the generated config, discontinuous entities) read this
registry; none keeps its own list.

This module sits at the lowest floor: it imports nothing of the package, so any family module can
register itself.

>>> import ner_recall.families  # importing the families' package registers the built-in ones
>>> from ner_recall.core import registry
>>> registry.selectable()[:3]
('seqeval', 'muc', 'confusion')
>>> registry.family("overlap").key, "intervals" in registry.family("overlap").supports
('overlap', False)
>>> registry.supporting("intervals")
('seqeval', 'muc')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SUPPORTS",
    "Family",
    "FamilyOption",
    "RegistryError",
    "family",
    "family_options",
    "keyed_headline",
    "register",
    "refuse_unsupported",
    "registered",
    "selectable",
    "supporting",
    "unregister",
]

#: what a family may support, each a result path that asks before serving it:
#: ``intervals`` (bootstrap intervals of its scores, from per-unit counts), ``slices_headline``
#: (the worst slice may be chosen by its F), ``discontinuous`` (it reads an entity's fragments,
#: not its extent), ``counts_state`` (``state(keep="counts")`` holds its counts), ``golds``
#: (``compute_golds`` scores it against each gold), ``compiled`` (the compiled kernel computes it),
#: ``generated`` (the generated config scores it)
SUPPORTS = frozenset(
    {"intervals", "slices_headline", "discontinuous", "counts_state", "golds", "compiled", "generated"}
)
#: a family's name, result key and option names: what a registered name may look like
_NAME = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


class RegistryError(TypeError):
    """A family declared without one of its required parts, or twice; names the family and the part."""


@dataclass(frozen=True)
class FamilyOption:
    """One option of a family: its name, its type and default as the card writes them, one line of
    doc, its code in a signature, and ``check(value) -> value`` raising ``ValueError`` on a bad
    value. Given a value other than its default while the family does not run, it changes nothing
    and is refused (the one no-op rule)."""

    name: str
    type: str
    default: Any
    doc: str
    code: str
    check: Callable[[Any], Any]


@dataclass(frozen=True)
class Family:
    """A score family, declared once.

    ``name``: as in ``scores`` (or, with ``wanted``, the name of what switches it on);
    ``key``: where its results go (None: the top level, as seqeval's keys);
    ``counts(view)`` and ``derive(counts, view)``: its sufficient counts and its results from them;
    ``returns``: its entry in the card's Returns (``"key (dict, ...): ..."``, indented lines);
    ``reserved``: other top-level keys it writes; ``options``: its own :class:`FamilyOption`\\ s;
    ``supports``: a subset of :data:`SUPPORTS`; ``wanted(view)``: whether it runs, where
    ``scores`` does not name it (None: it runs when ``scores`` names it);
    ``headline(results, fkey)``: its F for the slices' headline (with ``slices_headline``), None
    where its results lack one; ``why_not``: per part of :data:`SUPPORTS` it lacks, the reason
    an error gives (optional)."""

    name: str
    key: str | None
    counts: Callable[[Any], Any]
    derive: Callable[[Any, Any], Any]
    returns: str
    supports: frozenset[str] = frozenset()
    reserved: tuple[str, ...] = ()
    options: tuple[FamilyOption, ...] = ()
    wanted: Callable[[Any], bool] | None = None
    headline: Callable[[Mapping[str, Any], str], tuple[str, float] | None] | None = None
    why_not: Mapping[str, str] = field(default_factory=dict)
    module: str = field(default="", compare=False)


_FAMILIES: dict[str, Family] = {}


def _problem(new: Family) -> str | None:
    """The first required part ``new`` lacks, in words; None when whole."""
    rules = [
        (not new.name or not set(new.name) <= _NAME, "a name of lower-case letters, digits and _"),
        (new.key is not None and (not new.key or not set(new.key) <= _NAME), "a result key (or None)"),
        (not callable(new.counts), "counts: a function of the view"),
        (not callable(new.derive), "derive: a function of (counts, view)"),
        (not isinstance(new.returns, str) or not new.returns.strip(), "returns: its entry in the card"),
        (not new.supports <= SUPPORTS, f"supports: a subset of {sorted(SUPPORTS)}"),
        ("slices_headline" in new.supports and new.headline is None, "headline: its F for the slices"),
        (new.wanted is not None and not callable(new.wanted), "wanted: a function of the view"),
        (not set(new.why_not) <= SUPPORTS - new.supports, "why_not: reasons for parts it does not support"),
    ]
    for option in new.options:
        rules += [
            (not set(option.name) <= _NAME or not option.name, f"option {option.name!r}: a name"),
            (not option.doc, f"option {option.name!r}: its doc"),
            (not option.code or not option.code.isalnum(), f"option {option.name!r}: its signature code"),
            (not callable(option.check), f"option {option.name!r}: a check"),
        ]
    return next((words for broken, words in rules if broken), None)


def register(new: Family) -> Family:
    """Add a family to the registry (in the order of the results); RegistryError naming the part
    it lacks, or the name, key, option or code it shares with a family already registered."""
    problem = _problem(new)
    if problem is not None:
        raise RegistryError(f"family {new.name!r} ({new.module or 'unknown module'}) lacks {problem}")
    if new.name in _FAMILIES:
        raise RegistryError(
            f"family {new.name!r} is registered twice ({_FAMILIES[new.name].module}, {new.module})"
        )
    taken_keys = {f.key for f in _FAMILIES.values()} | {k for f in _FAMILIES.values() for k in f.reserved}
    for key in (new.key, *new.reserved):
        if key is not None and key in taken_keys:
            raise RegistryError(f"family {new.name!r}: the result key {key!r} is another family's")
    taken = {o.name: f.name for f in _FAMILIES.values() for o in f.options}
    codes = {o.code: f.name for f in _FAMILIES.values() for o in f.options}
    for option in new.options:
        if option.name in taken:
            raise RegistryError(f"family {new.name!r}: option {option.name!r} is {taken[option.name]!r}'s")
        if option.code in codes:
            raise RegistryError(
                f"family {new.name!r}: signature code {option.code!r} is {codes[option.code]!r}'s"
            )
    _FAMILIES[new.name] = new
    return new


def keyed_headline(key: str) -> Callable[[Mapping[str, Any], str], tuple[str, float] | None]:
    """The slices' headline of a family whose results under ``key`` carry their F at the top:
    ``("{key}_{fkey}", value)``, None where the results lack the key.

    >>> keyed_headline("token")({"token": {"f1": 0.75}}, "f1"), keyed_headline("token")({}, "f1")
    (('token_f1', 0.75), None)
    """

    def headline(results: Mapping[str, Any], fkey: str) -> tuple[str, float] | None:
        return (f"{key}_{fkey}", results[key][fkey]) if key in results else None

    return headline


def unregister(name: str) -> None:
    """Remove a family (tests that register one of their own clean up with this)."""
    del _FAMILIES[name]


def registered() -> tuple[Family, ...]:
    """Every family, in the order of the results."""
    return tuple(_FAMILIES.values())


def family(name: str) -> Family:
    """The family registered as ``name``; KeyError where none is."""
    return _FAMILIES[name]


def selectable() -> tuple[str, ...]:
    """The families ``scores`` may name, in the order of the results."""
    return tuple(f.name for f in _FAMILIES.values() if f.wanted is None)


def supporting(what: str, among: Any = None) -> tuple[str, ...]:
    """The families that support ``what`` (one of :data:`SUPPORTS`), in the order of the results;
    ``among``: only those it names."""
    if what not in SUPPORTS:
        raise ValueError(f"{what!r} is none of {sorted(SUPPORTS)}")
    return tuple(
        f.name for f in _FAMILIES.values() if what in f.supports and (among is None or f.name in among)
    )


def family_options() -> dict[str, tuple[Family, FamilyOption]]:
    """Every family option by name, with its family."""
    return {o.name: (f, o) for f in _FAMILIES.values() for o in f.options}


def refuse_unsupported(path: str, what: str, scores: Any) -> None:
    """Raise ``ValueError`` where ``scores`` names a family that does not support ``what`` on
    ``path``, naming the family, the path and the families that do."""
    unable = [name for name in scores if name in _FAMILIES and what not in _FAMILIES[name].supports]
    if unable:
        raise ValueError(
            f"scores={list(scores)}: {path} does not serve the {unable[0]!r} family"
            f" (it does not support {what!r}); the families that do: {list(supporting(what))}"
        )
