"""A signature on every result, and the classic scorers' conventions as presets.

Signature. One line of at most :data:`MAX_LENGTH` characters names every choice that moves a
number, as sacreBLEU's signature does for BLEU: the metric's version and config, the decoding
(``dec:lenient``, or the scheme and ``strict``), beta and zero division (always shown), and each
other option whose value is not its default, as ``code:value``. A value too long or not plain
(per-sentence data such as ``document_ids`` or ``texts``, a long ``label_map``) is named by a
short hash, ``code#1a2b3c``: :func:`options_from_signature` gives every plain option back and
asks for the hashed ones again (it checks their hash). The options come from a table (today
``ner_pipeline.OPTIONS``) passed in as data: an option of the table with no code in
:data:`CODES` is still signed, under its own name, and a test names it.

>>> from ner_recall.pipeline import signature as S
>>> table = {"scheme": None, "mode": None, "beta": 1.0, "zero_division": 0, "types": None, "seed": 0}
>>> S.signature("default", {"types": ["PER", "LOC"], "beta": 2.0}, table)
'nrm1.1|dec:lenient|b:2.0|zd:0|ty:(PER+LOC)'
>>> S.options_from_signature(_, "default", table)
{'beta': 2.0, 'types': ['PER', 'LOC']}

Conventions. ``convention="conlleval" | "seqeval" | "nervaluate" | "hipe" | "seqscore"`` sets
the options that give that scorer's numbers (:data:`CONVENTIONS`); "conlleval" also reads the
tags as ``conlleval.pl`` does (:func:`conlleval_spans`: a chunk starts and ends on its rules, so
``S-``, ``E-`` then ``B-`` of one type are merged) and adds ``results["convention"]`` with the
script's report, accuracy line included (:func:`conlleval_report`).
"""

import array
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ner_recall import __version__
from ner_recall.core.inputs import as_list
from ner_recall.core.registry import family_options
from ner_recall.pipeline.compute import score_spans, score_tags, tag_corpus
from ner_recall.pipeline.fast import fast_results
from ner_recall.pipeline.options import SPAN_CONFIGS, check_options
from ner_recall.state.exact import State, check_whole, merged_columns

#: the metric's version (major.minor of ``ner_recall.__version__``), first in every signature: a
#: change of any default or rule bumps it
METRIC_VERSION = ".".join(__version__.split(".")[:2])
MAX_LENGTH = 120
#: the short code of each option in a signature
CODES: dict[str, str] = {
    "scheme": "sch",
    "mode": "md",
    "suffix": "sfx",
    "zero_division": "zd",
    "beta": "b",
    "scores": "sc",
    "types": "ty",
    "label_map": "lm",
    "overlap_threshold": "ot",
    "errors": "err",
    "subgroup_weights": "sw",
    "ci_method": "cim",
    "confidence_level": "cl",
    "recall_mode": "rm",
    "n_bootstrap": "nb",
    "seed": "s",
    "texts": "tx",
    "ci_resamples": "ci",
    "document_ids": "doc",
    "slices": "sl",
    "buckets": "bk",
    "tokens": "tk",
    "token_scores": "tsc",
    "calibration_bins": "cb",
    "threshold_from": "tf",
    "threshold_on_scored_set": "tos",
    "train_entities": "tr",
    "type_separator": "sep",
    "type_hierarchy": "th",
    "convention": "cv",
    "output_format": "of",
    "placement": "pl",
    "matching": "mt",
    "normalize": "nm",
    "fuzzy_threshold": "fz",
}
#: options declared not to move any number: ``label_names`` reads class ids as the tags they name
#: (the tags decide the numbers: ids with their names score as the tags). ``errors`` lists places
#: without moving a number, but is signed so that a result is reproduced key for key.
NEUTRAL: frozenset[str] = frozenset(["label_names"])
#: options shown even at their default
ALWAYS = ("beta", "zero_division")
#: options always given as data, never spelled out (one value per sentence, or a whole result)
DATA = frozenset(
    ["texts", "document_ids", "slices", "tokens", "token_scores", "train_entities", "threshold_from"]
)
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_NUMBER = re.compile(r"-?[0-9][0-9.e+\-]*\Z")
_HASH = 6


# ---------------------------------------------------------------------------- values


def plain(value: Any) -> Any:
    """A value as JSON-able data (arrays, Arrow columns, tuples and sets made lists), for a hash."""
    if hasattr(value, "to_pylist"):
        return value.to_pylist()
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _slices_form(value: Any) -> Any:
    """``slices`` as ``check_slices`` reads it (one column is the column named "slice")."""
    return value if isinstance(value, Mapping) or value is None else {"slice": value}


#: the one form of an option whose value may be written two ways for the same numbers
CANONICAL: dict[str, Callable[[Any], Any]] = {"slices": _slices_form}


def _json_default(value: Any) -> Any:
    """What json cannot write itself: arrays, Arrow columns, numpy scalars, sets (else the repr)."""
    converted = plain(value)
    return repr(value) if converted is value else converted


_LONG = 1000
_KINDS = {"i": np.int64, "u": np.int64, "b": np.int64, "f": np.float64}


def _flat_bytes(value: Any) -> bytes | None:
    """A long flat list, tuple or array of strings or numbers as bytes, marked by its kind (in C:
    a million document ids hash in a fraction of the time json takes); None for anything else."""
    if not isinstance(value, (list, tuple, np.ndarray)) or len(value) < _LONG:
        return None
    try:
        return f"U{len(value)}:".encode() + "\x00".join(value).encode("utf-8", "surrogatepass")
    except TypeError:  # not all strings
        pass
    if isinstance(value, np.ndarray):
        if value.ndim != 1 or value.dtype.kind not in _KINDS:
            return None
        kind = "f" if value.dtype.kind == "f" else "i"
        return f"{kind}{len(value)}:".encode() + value.astype(_KINDS[value.dtype.kind]).tobytes()
    for kind, code in (("i", "q"), ("f", "d")):  # array refuses a float as an int, and a str
        try:
            return f"{kind}{len(value)}:".encode() + array.array(code, value).tobytes()
        except (TypeError, OverflowError):
            continue
    return None


def value_hash(value: Any) -> str:
    """The short hash a signature gives a value that it cannot spell out (lists, tuples, arrays
    and Arrow columns of the same values hash alike)."""
    flat = _flat_bytes(value)
    if flat is not None:
        return hashlib.sha256(flat).hexdigest()[:_HASH]
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=_json_default)
    except TypeError:  # keys json cannot sort or write (mixed, tuples)
        text = json.dumps(plain(value), sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_HASH]


def _atom(value: Any) -> str | None:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else None
    if isinstance(value, str) and _PLAIN.match(value) and value not in ("T", "F"):
        return value
    return None


def spell(value: Any) -> str | None:
    """A plain value as signature text, or None when it must be hashed: ``-`` None, ``T``/``F``,
    numbers, bare names, ``(a+b)`` a list of those, ``{k>v,k>v}`` a dict of names to those."""
    if isinstance(value, (list, tuple)):
        items = [_atom(v) for v in value]
        return None if None in items else "(" + "+".join(items) + ")"  # type: ignore[arg-type]
    if isinstance(value, dict):
        pairs = [(_atom(k) if isinstance(k, str) else None, _atom(v)) for k, v in value.items()]
        if any(k is None or v is None or k == "-" for k, v in pairs):
            return None
        return "{" + ",".join(f"{k}>{v}" for k, v in pairs) + "}"
    return _atom(value)


def _read_atom(text: str) -> Any:
    if text == "-":
        return None
    if text in ("T", "F"):
        return text == "T"
    if _NUMBER.match(text):
        return float(text) if any(c in text for c in ".e") else int(text)
    if _PLAIN.match(text):
        return text
    raise ValueError(f"not a signature value: {text!r}")


def read_value(text: str) -> Any:
    """The value :func:`spell` wrote."""
    if text.startswith("(") and text.endswith(")"):
        return [_read_atom(t) for t in text[1:-1].split("+")] if len(text) > 2 else []
    if text.startswith("{") and text.endswith("}"):
        pairs = [p.split(">", 1) for p in text[1:-1].split(",")] if len(text) > 2 else []
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"not a signature mapping: {text!r}")
        return {k: _read_atom(v) for k, v in pairs}
    return _read_atom(text)


# ---------------------------------------------------------------------------- the signature


def _decoding(given: Mapping[str, Any]) -> str:
    scheme, mode = given.get("scheme"), given.get("mode")
    if scheme is None and mode is None:
        return "dec:lenient"
    return f"dec:{spell(scheme)}" + ("" if mode is None else f".{spell(mode)}")


def at_default(value: Any, default: Any) -> bool:
    """Whether an option given equals its default as plain data (a tuple as the list of its items,
    ``1`` apart from ``1.0`` and ``True``): it is signed as the default, left out."""
    if default is None or value is None:
        return value is default
    try:
        return json.dumps(plain(value), sort_keys=True) == json.dumps(plain(default), sort_keys=True)
    except (TypeError, ValueError):  # keys json cannot sort, values it cannot write: not the default
        return False


def code_of(name: str) -> str:
    """An option's code in a signature: :data:`CODES`, or the one its family registered.

    >>> code_of("overlap_threshold")
    'ot'
    """
    if name in CODES:
        return CODES[name]
    declared = family_options()
    return declared[name][1].code if name in declared else name


def _entries(given: Mapping[str, Any], table: Mapping[str, Any]) -> list[list[Any]]:
    """[name, code, text or None (hashed), value] of each option the signature names, in table order
    (an option given at its default, such as the default ``scores`` as a list, is not named)."""
    entries = []
    for name, default in table.items():
        if name in ("scheme", "mode") or name in NEUTRAL or (name not in given and name not in ALWAYS):
            continue
        if name not in ALWAYS and at_default(given[name], default):
            continue
        value = CANONICAL.get(name, lambda v: v)(given.get(name, default))
        entries.append([name, code_of(name), None if name in DATA else spell(value), value])
    return entries


def _line(head: str, entries: list[list[Any]], group: list[list[Any]], table: Mapping[str, Any]) -> str:
    parts = [head] + [f"{c}:{t}" if t is not None else f"{c}#{value_hash(v)}" for _, c, t, v in entries]
    if group:
        digest = value_hash([v for _, _, _, v in group])
        codes = "+".join(c for _, c, _, _ in group)
        if sum(map(len, parts)) + len(parts) + len(codes) + len(digest) + 2 > MAX_LENGTH:
            names = list(table)  # the last resort: the group's options as bits of the table's order
            codes = "@" + format(sum(1 << names.index(n) for n, _, _, _ in group), "x")
        parts.append(f"#{codes}:{digest}")
    return "|".join(parts)


def signature(config: str, given: Mapping[str, Any], table: Mapping[str, Any]) -> str:
    """The signature of a ``compute`` call: ``config`` and the options ``given`` that are not at
    their default in ``table`` ({name: default}). Long values are hashed, longest first, until the
    line fits :data:`MAX_LENGTH`; then every hashed option goes into one group hash."""
    head = f"nrm{METRIC_VERSION}" + ("" if config == "default" else f"/{config}")
    if config not in ("spans", "spans_subgroups"):  # entities, not tags: no decoding
        head += "|" + _decoding(given)
    entries, group = _entries(given, table), []  # type: list[list[Any]], list[list[Any]]
    while len(line := _line(head, entries, group, table)) > MAX_LENGTH:
        spelled = [e for e in entries if e[2] is not None and e[0] not in ALWAYS]
        if spelled:
            max(spelled, key=lambda e: len(e[2]))[2] = None
            continue
        hashed = [e for e in entries if e[2] is None]
        if not hashed:
            break
        group += hashed
        entries = [e for e in entries if e[2] is not None]
    return line


def _names_of(codes: str, by_code: Mapping[str, str], sig: str) -> list[str]:
    if codes.startswith("@") and re.match(r"[0-9a-f]+\Z", codes[1:]):
        bits, names = int(codes[1:], 16), list(by_code.values())
        if bits >> len(names):
            raise ValueError(f"signature {sig!r}: the group {codes!r} names options the table does not have")
        return [name for i, name in enumerate(names) if bits >> i & 1]
    names = [by_code[code] for code in codes.split("+") if code in by_code]
    if len(names) != len(codes.split("+")):
        raise ValueError(f"signature {sig!r}: unknown option code in {codes!r}")
    return names


def _given_again(names: list[str], data: Mapping[str, Any], digest: str, sig: str) -> dict[str, Any]:
    missing = [n for n in names if n not in data]
    if missing:
        raise ValueError(
            f"signature {sig!r} names {missing[0]} by its hash only: give it again "
            f"(options_from_signature(sig, {missing[0]}=...))"
        )
    values = [CANONICAL.get(n, lambda v: v)(data[n]) for n in names]
    if value_hash(values[0] if len(names) == 1 else values) != digest:
        raise ValueError(f"{'+'.join(names)} given is not the one signed (hash {digest})")
    return {n: data[n] for n in names}


def _head(part: str, config: str, sig: str) -> None:
    version, _, signed_config = part.partition("/")
    if version != f"nrm{METRIC_VERSION}":
        raise ValueError(
            f"signature {sig!r} is of metric version {version[3:]!r}; this is {METRIC_VERSION!r} "
            "(its numbers may differ: score with that version)"
        )
    if (signed_config or "default") != config:
        name = signed_config or "default"
        raise ValueError(f"signature of the {name!r} config: evaluate.load(path, {name!r})")


def _dec(text: str) -> dict[str, Any]:
    if text == "lenient":
        return {}
    scheme, _, mode = text.partition(".")
    return {"scheme": read_value(scheme), **({"mode": read_value(mode)} if mode else {})}


def options_from_signature(
    sig: str, config: str, table: Mapping[str, Any], data: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The options a signature names (those not at their default), ready for ``compute``.

    Options signed by their hash only are taken from ``data`` and checked against the hash;
    a ``ValueError`` names the one missing or different, or any part of ``sig`` not understood.
    """
    data = dict(data or {})
    if not isinstance(sig, str) or len(sig) > MAX_LENGTH or "|" not in sig:
        raise ValueError(f"not a signature: {sig!r}")
    by_code = {code_of(name): name for name in table}
    parts = sig.split("|")
    _head(parts[0], config, sig)
    options: dict[str, Any] = {}
    for part in parts[1:]:
        if part.startswith("#"):
            codes, _, digest = part[1:].partition(":")
            options.update(_given_again(_names_of(codes, by_code, sig), data, digest, sig))
        elif part.startswith("dec:"):
            options.update(_dec(part[4:]))
        elif (m := re.match(r"([a-z_]+)([:#])(.*)\Z", part)) and m.group(1) in by_code:
            name = by_code[m.group(1)]
            if m.group(2) == ":":
                options[name] = read_value(m.group(3))
            else:
                options.update(_given_again([name], data, m.group(3), sig))
        else:
            raise ValueError(f"signature {sig!r}: cannot read {part!r}")
    extra = sorted(set(data) - set(options) - NEUTRAL)
    if extra:
        raise ValueError(f"{extra[0]} is given but the signature {sig!r} does not name it")
    chosen = {k: v for k, v in options.items() if not (type(v) is type(table[k]) and v == table[k])}
    return {**chosen, **{k: v for k, v in data.items() if k in NEUTRAL}}


# ---------------------------------------------------------------------------- conventions

#: the options each classic scorer's numbers need; "conlleval" also reads the tags its own way
CONVENTIONS: dict[str, dict[str, Any]] = {
    "conlleval": {"scheme": None, "mode": None, "scores": ["seqeval", "muc"], "suffix": False},
    "seqeval": {"scores": ["seqeval"]},
    "seqscore": {"scheme": None, "mode": None, "scores": ["seqeval"]},
    "nervaluate": {"scores": ["muc"]},
    "hipe": {"scores": ["muc"]},
}
#: the configs whose conventions are these (another config, e.g. one for generated output, may
#: give ``convention`` values of its own and read them itself)
OWN_CONFIGS = ("default", "subgroups", "spans", "spans_subgroups")
#: conventions that read tags (not the span configs' entities)
TAG_CONVENTIONS = ("conlleval", "seqscore")


def with_convention(config: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The options ``given`` with those of their ``convention`` added; a ``ValueError`` when an
    option given contradicts the convention or the convention does not fit the config."""
    name = given.get("convention")
    if name is None or config not in OWN_CONFIGS:  # another config reads its own conventions
        return dict(given)
    if not isinstance(name, str) or name not in CONVENTIONS:
        raise ValueError(f"convention must be one of {sorted(CONVENTIONS)}; got {name!r}")
    if name in TAG_CONVENTIONS and config.startswith("spans"):
        raise ValueError(f"convention={name!r} reads tags: use the 'default' or 'subgroups' config")
    preset = CONVENTIONS[name]
    for option, value in preset.items():
        if option in given and plain(given[option]) != plain(value):
            raise ValueError(
                f"convention={name!r} sets {option}={value!r}; got {option}={given[option]!r} "
                "(leave it out, or drop the convention)"
            )
    if name == "conlleval" and given.get("label_names") is not None:
        raise ValueError("convention='conlleval' reads tags as the script does: give tags, not class ids")
    return {**given, **{k: v for k, v in preset.items() if not (k == "suffix" and v is False)}}


def _split(tag: str) -> tuple[str, str]:
    """conlleval's reading of a tag: the part before the first '-', and the rest (its type)."""
    prefix, dash, kind = tag.partition("-")
    return (prefix, kind) if dash else (tag, "")


_ENDS = frozenset(["BB", "BO", "IB", "IO", "EE", "EI", "EO"])
_STARTS = frozenset(["BB", "IB", "OB", "OI", "EE", "EI", "OE"])


def _chunk_edge(prev: tuple[str, str], cur: tuple[str, str], pairs: frozenset[str], side: str) -> bool:
    """conlleval's endOfChunk (``side`` "end": the tag before decides) or startOfChunk ("start")."""
    tag = prev[0] if side == "end" else cur[0]
    return prev[0] + cur[0] in pairs or (tag not in ("O", ".") and prev[1] != cur[1]) or tag in ("[", "]")


def conlleval_chunks(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """The chunks conlleval.pl reads in one sentence: ``(type, start, end)``, end exclusive.

    A chunk opens where the script's startOfChunk holds and closes where its endOfChunk holds (or
    where the next opens, or at the sentence end: the script would run an untyped ``S`` chunk on
    across O tags and sentences, the one place this reading stops early).

    >>> from ner_recall.pipeline.signature import conlleval_chunks
    >>> conlleval_chunks(["S-PER", "S-PER", "O", "B-LOC", "E-LOC", "B-LOC"])
    [('PER', 0, 2), ('LOC', 3, 6)]
    """
    chunks, open_at, kind, prev = [], None, "", ("O", "")
    for i, tag in enumerate(list(tags) + ["O"]):
        cur = _split(tag)
        end = _chunk_edge(prev, cur, _ENDS, "end")
        start = i < len(tags) and _chunk_edge(prev, cur, _STARTS, "start")
        if open_at is not None and (end or start or i == len(tags)):
            chunks.append((kind, open_at, i))
            open_at = None
        if start:
            open_at, kind = i, cur[1]
        prev = cur
    return chunks


def conlleval_tags(tags: Sequence[str]) -> list[str]:
    """One sentence's tags rewritten in IOB2 so that lenient decoding gives conlleval's chunks."""
    out = ["O"] * len(tags)
    for kind, start, end in conlleval_chunks(tags):
        for i in range(start, end):
            prefix = "B" if i == start else "I"
            out[i] = f"{prefix}-{kind}" if kind else prefix
    return out


def _pct(a: int, b: int) -> float:
    return 100 * a / b if b > 0 else 0.0


def _fb1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _report_types(per_type: Mapping[str, Any]) -> list[str]:
    """The script's list of types: gold types and found types, sorted, a repeat dropped unless
    the type before is false for Perl ("" or "0": an untyped corpus prints its line twice)."""
    keys = sorted(
        [k for k, t in per_type.items() if t["possible"]] + [k for k, t in per_type.items() if t["actual"]]
    )
    out: list[str] = []
    for kind in keys:
        last = out[-1] if out else None
        if last is None or last in ("_", "0") or last != kind:
            out.append(kind)
    return out


def conlleval_report(muc_strict: Mapping[str, Any], tokens: int, tokens_correct: int) -> str:
    """What conlleval.pl prints, from the strict MUC counts (same arithmetic, in percent)."""
    gold, found, correct = muc_strict["possible"], muc_strict["actual"], muc_strict["correct"]
    p, r = _pct(correct, found), _pct(correct, gold)
    lines = [f"processed {tokens} tokens with {gold} phrases; found: {found} phrases; correct: {correct}.\n"]
    if tokens > 0:
        lines.append(
            f"accuracy: {_pct(tokens_correct, tokens):6.2f}%; precision: {p:6.2f}%; "
            f"recall: {r:6.2f}%; FB1: {_fb1(p, r):6.2f}\n"
        )
    for kind in _report_types(muc_strict["per_type"]):
        t = muc_strict["per_type"][kind]
        p, r = _pct(t["correct"], t["actual"]), _pct(t["correct"], t["possible"])
        name = "" if kind == "_" else kind
        lines.append(
            f"{name:>17}: precision: {p:6.2f}%; recall: {r:6.2f}%; FB1: {_fb1(p, r):6.2f}  {t['actual']}\n"
        )
    return "".join(lines)


def read_convention(
    given: Mapping[str, Any], predictions: Any, references: Any, as_list: Callable[[Any], Any]
) -> tuple[Any, Any, Callable[[dict[str, Any]], dict[str, Any]]]:
    """The inputs as the convention reads them, and what to do to the results afterwards."""
    if given.get("convention") != "conlleval":
        return predictions, references, lambda results: results
    pred = [list(map(str, s)) for s in as_list(predictions)]
    gold = [list(map(str, s)) for s in as_list(references)]
    tokens = sum(map(len, gold))
    same = sum(g == p for gs, ps in zip(gold, pred) for g, p in zip(gs, ps))

    def finish(results: dict[str, Any]) -> dict[str, Any]:
        results["overall_accuracy"] = same / tokens if tokens else float(given.get("zero_division", 0))
        report = conlleval_report(results["muc"]["strict"], tokens, same)
        results["convention"] = {"name": "conlleval", "report": report}
        return results

    return [conlleval_tags(s) for s in pred], [conlleval_tags(s) for s in gold], finish


def signed(results: dict[str, Any], config: str, given: Mapping[str, Any], table: Mapping[str, Any]) -> dict:
    """``results`` with ``results["signature"]`` added (the options ``given``, not at their default)."""
    for key in ("signature", "convention"):
        if key in results and isinstance(results[key], dict) and "number" in results[key]:
            raise ValueError(f"an entity type may not be named {key!r} (a key of the results)")
    results["signature"] = signature(config, given, table)
    return results


def signed_comparison(
    result: dict[str, Any],
    given: Mapping[str, Any],
    table: Mapping[str, Any],
    document_ids: Any = None,
    system_intervals: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``compare``'s result with each system's results signed as ``compute`` signs them on the
    default config: the options ``given`` for both systems, ``document_ids`` (their documents), and
    with ``system_intervals`` (``ci_resamples``, ``confidence_level``, ``seed`` of each system's own
    intervals) those too. ``metric.options_from_signature`` of ``result["a"]["signature"]`` gives the
    options with which ``compute`` on system a's predictions gives ``result["a"]``."""
    options = {**given, **({} if document_ids is None else {"document_ids": document_ids})}
    options.update(system_intervals or {})
    for side in ("a", "b"):
        signed(result[side], "default", options, table)
    return result


def state_options(state: State) -> dict[str, Any]:
    """The options of a merged state as ``compute`` was given them (its per-sentence columns
    included), for the signature of ``finalize``."""
    blocks = check_whole(state)
    columns = merged_columns(blocks)
    columns.pop("subgroups", None)
    if "texts" in blocks[0]:
        columns["texts"] = [t for b in blocks for t in b["texts"]]
    assert state.options is not None  # a state with blocks has its options (State.of, from_bytes)
    return {**json.loads(state.options), **columns}


def refuse_convention_in_state(options: Mapping[str, Any]) -> None:
    """A state holds tags as given and options as given: a convention is ``compute``'s alone."""
    name = options.get("convention")
    if name is not None:
        preset = CONVENTIONS.get(name) if isinstance(name, str) else None
        raise ValueError(
            f"convention={name!r} is not read by state: give its options instead"
            + (f" ({ {k: v for k, v in preset.items() if k != 'suffix'} })" if preset else "")
        )


def scored(
    config: str,
    predictions: Any,
    references: Any,
    chosen: Mapping[str, Any],
    table: Mapping[str, Any],
    subgroups: Any = None,
    options: Any = None,
) -> dict[str, Any]:
    """``compute``'s results, signed, for the options ``chosen`` (those not at their default);
    ``options``: ``chosen`` already checked (``check_options``), if they were."""
    if options is None:
        options = check_options(config, with_convention(config, chosen))
    predictions, references, finish = read_convention(chosen, predictions, references, as_list)
    if config in SPAN_CONFIGS:
        results = score_spans(predictions, references, options, subgroups)
    elif len(references) == 0:
        raise ValueError("no sentences: predictions and references are empty")
    else:
        fast = None if subgroups is not None else fast_results(predictions, references, chosen, options)
        if fast is not None:  # large class-id inputs, the default families: compiled passes
            results = fast
        else:
            results = finish(score_tags(tag_corpus(predictions, references, options), options, subgroups)[0])
    return signed(results, config, chosen, table)
