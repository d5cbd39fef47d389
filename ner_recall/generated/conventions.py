"""The peers' scores of generated output, as presets: ``convention=`` in the generated config.

Each convention reproduces one public scorer's own numbers on the same outputs (rewritten from
the behaviour of their code, which is not copied; ``tests/test_conventions.py`` runs them live):

* ``"uniner"`` (UniNER ``src/eval/evaluate.py``): per document and type, the answer's JSON list
  (only when the answer starts with ``[``; anything else is an empty answer), each string
  SQuAD-normalized, repeats dropped; a set of strings matched against the gold's set.
* ``"gner"`` (GNER ``src/gner_evaluator.py``): the ``word(label)`` words matched onto the
  gold tokens (equal, in order, else a longest common subsequence), labels outside the schema
  read as ``O``, entities as sets of (normalized string, normalized type) per document.
* ``"gollie"`` (GoLLIE ``src/tasks/utils_scorer.py`` with ``AnnotationList.filter_hallucinations``):
  objects whose string is not in the text (case-insensitive substring) or listed more often
  than it occurs are dropped, unknown class names dropped, the rest matched as a multiset of
  (type, lower-cased stripped string).
* ``"euroeval"`` (EuroEval ``token_classification.py``): the first flat JSON object, each word
  of each string tagged on every token containing it, scored by seqeval on EuroEval's
  lower-case tags (where seqeval reads a run of ``o`` as an entity of type ``_``).

``docs/generated.md`` tables what each one loses.
"""

import ast
import json
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from typing import Any

from ner_recall.generated.dialects import ARTICLES, MAX_ITEMS, MAX_OUTPUT, PUNCTUATION, find_json, read_output

CONVENTIONS = ("uniner", "gner", "gollie", "euroeval")
#: the dialect each convention reads
CONVENTION_DIALECTS = {
    "uniner": ("uniner", "json_dict"),
    "gner": ("gner",),
    "gollie": ("gollie",),
    "euroeval": ("json_dict",),
}
#: the options a convention reads beside its outputs and gold (the others contradict it)
CONVENTION_OPTIONS = ("texts", "tokens", "types", "label_map", "output_format", "convention")
#: where a GNER label may start (GNER reads ``\(B-.*?\)|\(I-.*?\)|\(O\)``)
_GNER_START = re.compile(r"\((?:[BI]-|O\))")
#: the most (token, word) pairs of one document GNER's alignment compares when the words are
#: not the tokens in order (a longest common subsequence over the pairs of equal words)
MAX_GNER_PAIRS = 2_000_000
_TINY = 1e-10  # UniNER's and GNER's guard against a zero denominator, kept for their numbers


def squad_normalize(s: str) -> str:
    """SQuAD's answer normalization: lower case, no ASCII punctuation, no articles, single spaces.

    >>> squad_normalize("The  U.S. Army!")
    'us army'
    """
    s = "".join(ch for ch in s.lower() if ch not in PUNCTUATION)
    return " ".join(ARTICLES.sub(" ", s).split())


def check_convention(gen: dict, given: dict) -> str:
    """The convention, once no option given contradicts it (each fixes its own reading)."""
    name = gen["convention"]
    if name not in CONVENTIONS:
        raise ValueError(
            f"convention must be one of {list(CONVENTIONS)} in the generated config; got {name!r}"
        )
    for option in given:
        if option not in CONVENTION_OPTIONS:
            raise ValueError(
                f"convention={name!r} fixes how items are read, placed and scored: {option} contradicts it"
            )
    dialect = gen["output_format"]
    if dialect != "auto" and dialect not in CONVENTION_DIALECTS[name]:
        raise ValueError(
            f"convention={name!r} reads {list(CONVENTION_DIALECTS[name])}; output_format={dialect!r} contradicts it"
        )
    if name in ("gner", "euroeval") and given.get("tokens") is None:
        raise ValueError(f"convention={name!r} scores tags: give the gold as tags with tokens=")
    return name


def _prf(correct: int, predicted: int, gold: int, tiny: float = 0.0) -> dict:
    if tiny:
        p, r = correct / (predicted + tiny), correct / (gold + tiny)
        return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r + tiny)}
    p = correct / predicted if predicted else 0.0
    r = correct / gold if gold else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def _schema(gold: list, given: dict, label_map: dict) -> list:
    if given.get("types") is not None:
        return list(given["types"])
    return sorted({e["label"] for doc in gold for e in doc})


def convention_results(
    gen: dict, predictions: list, references: list, texts: list, gold: list, given: dict, label_map: dict
) -> dict:
    """The peer's numbers: ``{"convention", "precision", "recall", "f1", "counts"}`` (EuroEval:
    its ``micro_f1``, and ``micro_f1_no_misc`` with a MISC type)."""
    name = check_convention(gen, given)
    for i, output in enumerate(predictions):
        if isinstance(output, str) and len(output) > MAX_OUTPUT:
            raise ValueError(
                f"predictions[{i}]: {len(output):,} characters; convention={name!r} reads outputs of at"
                f" most {MAX_OUTPUT:,}"
            )
    schema = _schema(gold, given, label_map)
    if name == "uniner":
        counts = _uniner(predictions, texts, gold, schema, label_map)
        return {
            "convention": name,
            **_prf(*counts, tiny=_TINY),
            "counts": dict(zip(("correct", "predicted", "gold"), counts)),
        }
    if name == "gner":
        counts = _gner(predictions, given["tokens"], references, schema, label_map)
        return {
            "convention": name,
            **_prf(*counts, tiny=_TINY),
            "counts": dict(zip(("correct", "predicted", "gold"), counts)),
        }
    if name == "gollie":
        counts = _gollie(predictions, texts, gold, schema, label_map)
        return {
            "convention": name,
            **_prf(*counts),
            "counts": dict(zip(("correct", "predicted", "gold"), counts)),
        }
    return {"convention": name, **_euroeval(predictions, given["tokens"], references, schema, label_map)}


# ---------------------------------------------------------------------------- UniNER


def uniner_answer(answer: Any) -> list:
    """One answer as UniNER reads it: the JSON list at its very start, normalized, repeats
    dropped; anything it cannot read is an empty answer."""
    if isinstance(answer, (list, tuple)):
        answer = json.dumps(list(answer))
    if not isinstance(answer, str):
        return []
    m = re.match(r"\[(.*?)\]", answer)
    try:
        items = json.loads(m.group() if m else "[]")
        keys = (
            tuple(squad_normalize(x) for x in item)
            if isinstance(item, (list, tuple))
            else squad_normalize(item)
            for item in items
        )
        return list(dict.fromkeys(keys))  # repeats dropped, the first kept
    except Exception:  # UniNER reads any failure as an empty answer
        return []


def _uniner(
    predictions: list, texts: list, gold: list, schema: list, label_map: dict
) -> tuple[int, int, int]:
    correct = predicted = n_gold = 0
    for output, text, spans in zip(predictions, texts, gold):
        answers = _answers_by_type(output, label_map)
        for label in schema:
            golds = uniner_answer([text[e["start"] : e["end"]] for e in spans if e["label"] == label])
            preds = uniner_answer(answers.get(label, "[]"))
            correct += len(set(preds) & set(golds))
            predicted += len(preds)
            n_gold += len(golds)
    return correct, predicted, n_gold


def _answers_by_type(output: Any, label_map: dict) -> dict:
    """Each type's answer: the output's own per-type answers, or the items of any dialect."""
    if isinstance(output, str):
        value = find_json(output, (dict,))
        output = value if value is not None else output
    if isinstance(output, dict):
        return {label_map.get(k, k): v for k, v in output.items()}
    answers: dict = {}
    for item in read_output(output).items:
        if not item.problem:
            answers.setdefault(label_map.get(item.label, item.label), []).append(item.text)
    return answers


# ---------------------------------------------------------------------------- GNER


def gner_words(output: str) -> tuple:
    """The ``word(label)`` pairs of a GNER output (words between the labels, stripped).

    >>> gner_words("New York(B-LOC) is(O)")
    (['New York', 'is'], ['B-LOC', 'O'])
    """
    words, labels, previous = [], [], 0
    for start, end in gner_tags(output):
        word = output[previous:start].strip()
        if word:
            words.append(word)
            labels.append(output[start + 1 : end - 1].strip())
        previous = end
    return words, labels


def gner_tags(output: str) -> list:
    """(start, end) of each label as GNER's pattern finds them (a
    ``(B-`` or ``(I-`` closed by the first ``)`` after it on its line), in linear time: the next
    ``)`` and the next line end are each searched once, whatever the unclosed labels.

    >>> gner_tags("a(B-X(I-Y) b(O) c(B-\\nd(O)")
    [(1, 10), (12, 15), (22, 25)]
    """
    out, done, close, newline = [], 0, -1, -1
    for m in _GNER_START.finditer(output):
        p = m.start()
        if p < done:
            continue
        if m.group() == "(O)":
            out.append((p, p + 3))
            done = p + 3
            continue
        if close < p + 3:
            close = output.find(")", p + 3)
            if close < 0:
                break  # no ")" left: no label either
        if newline < p + 3:
            newline = output.find("\n", p + 3)
            newline = len(output) if newline < 0 else newline
        if newline > close:
            out.append((p, close + 1))
            done = close + 1
    return out


def _in_order(raw: list, words: list) -> Any:
    match, k = [-1] * len(raw), 0
    if not words:
        return match
    for i, w in enumerate(raw):
        if w == words[k]:
            match[i], k = k, k + 1
            if k == len(words):
                return match
    return None


def _common_subsequence(raw: list, words: list) -> list:
    """A longest common subsequence by longest increasing subsequence (patience piles), each
    raw word's candidates taken from the last position back, the chain read from the last pile."""
    where: dict = {}
    for j in range(len(words) - 1, -1, -1):
        where.setdefault(words[j], []).append(j)
    values, owners = [], []
    for i, w in enumerate(raw):
        for j in where.get(w, ()):
            values.append(j)
            owners.append(i)
    piles, tops = [[(-1, -1)]], [-1]
    for k, v in enumerate(values):
        q = bisect_left(tops, v)
        if q == len(tops):
            piles.append([])
            tops.append(v)
        piles[q].append((len(piles[q - 1]) - 1, k))
        tops[q] = v
    match, q, j = [-1] * len(raw), len(piles) - 1, len(piles[-1]) - 1
    while q > 0:
        parent, k = piles[q][j]
        match[owners[k]] = values[k]
        q, j = q - 1, parent
    return match


def gner_labels(tokens: list, output: str, schema: list, document: int = 0) -> list:
    """The label GNER gives each gold token from a ``word(label)`` output; a ``ValueError``
    naming ``document`` when aligning them would compare more than :data:`MAX_GNER_PAIRS`."""
    words, labels = gner_words(output.strip())
    valid = {f"{p}-{t}" for t in schema for p in "BI"}
    labels = [label if label in valid else "O" for label in labels]
    raw, said = [t.lower() for t in tokens], [w.lower() for w in words]
    if raw == said:
        return labels
    match = _in_order(raw, said)
    if match is not None:
        return [labels[j] if j != -1 else "O" for j in match]
    counts = Counter(said)
    pairs = sum(counts[w] for w in raw)
    if pairs > MAX_GNER_PAIRS:
        raise ValueError(
            f"predictions[{document}]: aligning its {len(said):,} words onto {len(raw):,} tokens would"
            f" compare {pairs:,} pairs of equal words, more than {MAX_GNER_PAIRS:,}"
        )
    return [labels[j] if j != -1 and labels[j] else "O" for j in _common_subsequence(raw, said)]


def gner_entities(tokens: list, labels: list) -> list:
    """GNER's entities: a B- or O closes the open one, any other label extends it (its type the
    last label's), each as (normalized string, normalized type), repeats dropped."""
    found: list = []
    words: list = []
    label: Any = None
    for word, tag in zip(tokens, labels):
        if words and tag[:1] in ("B", "O"):
            found.append((" ".join(words), label))
            words, label = [], None
        if tag != "O":
            words.append(word)
            label = tag[2:]
    if label is not None:
        found.append((" ".join(words), label))
    return list(dict.fromkeys((squad_normalize(text), squad_normalize(kind)) for text, kind in found))


def _gner(
    predictions: list, tokens: list, references: list, schema: list, label_map: dict
) -> tuple[int, int, int]:
    correct = predicted = n_gold = 0
    for i, (output, words, tags) in enumerate(zip(predictions, tokens, references)):
        if not isinstance(output, str):
            raise ValueError(f"predictions[{i}]: convention='gner' reads a str of word(label) pairs")
        pred = gner_entities(words, gner_labels(words, output, schema, i))
        gold = set(gner_entities(words, list(tags)))
        correct += sum(p in gold for p in pred)
        predicted += len(pred)
        n_gold += len(gold)
    return correct, predicted, n_gold


# ---------------------------------------------------------------------------- GoLLIE


def gollie_objects(output: str, schema: list, label_map: dict) -> Any:
    """The (type, span) objects GoLLIE keeps before its hallucination filter, or None when it
    could not read the output (a parse error); names outside the schema are dropped. The
    output is parsed, never run: anything but literal calls is a parse error here."""
    try:
        tree = ast.parse(output.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(tree, (ast.List, ast.Tuple)):
        return None
    kept = []
    for node in tree.elts:
        if isinstance(node, ast.Constant):
            continue  # a literal that is no annotation: dropped
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return None
        values = [*node.args, *(k.value for k in node.keywords)]
        if not all(isinstance(v, ast.Constant) for v in values):
            return None
        label = label_map.get(node.func.id, node.func.id)
        if label not in schema:
            continue  # an unknown class: GoLLIE's HallucinatedType, dropped
        if len(values) != 1 or (node.keywords and node.keywords[0].arg != "span"):
            return None  # the class would not accept these arguments
        value = values[0]
        kept.append((label, value.value if isinstance(value, ast.Constant) else None))
    return kept


def _gollie_filter(objects: list, text: str) -> list:
    lower, kept = text.lower(), []
    seen: Counter = Counter()
    inside: dict = {}  # each string searched once
    count: dict = {}
    for label, span in objects:
        if not isinstance(span, str):
            continue
        stripped, key = span.lower().strip(), span.lower()
        if stripped not in inside:
            inside[stripped] = stripped in lower
        if not inside[stripped]:
            continue
        if key:
            seen[key] += 1
            if key not in count:
                count[key] = lower.count(key)
            if count[key] < seen[key]:
                continue
        kept.append((label, stripped))
    return kept


def _gollie(
    predictions: list, texts: list, gold: list, schema: list, label_map: dict
) -> tuple[int, int, int]:
    correct = predicted = n_gold = 0
    for i, (output, text, spans) in enumerate(zip(predictions, texts, gold)):
        if not isinstance(output, str):
            raise ValueError(f"predictions[{i}]: convention='gollie' reads a str of objects")
        objects = gollie_objects(output, schema, label_map) or []
        if len(objects) > MAX_ITEMS:
            raise ValueError(
                f"predictions[{i}]: {len(objects):,} objects; convention='gollie' reads at most"
                f" {MAX_ITEMS:,} an output (each searched in the text)"
            )
        pred = _gollie_filter(objects, text)
        ref = Counter((e["label"], text[e["start"] : e["end"]].lower().strip()) for e in spans)
        predicted += len(pred)
        n_gold += sum(ref.values())
        correct += sum((Counter(pred) & ref).values())  # a multiset: each gold matched once
    return correct, predicted, n_gold


# ---------------------------------------------------------------------------- EuroEval


def euroeval_tags(tokens: list, output: str, schema: list, label_map: dict, document: int = 0) -> list:
    """The lower-case tags EuroEval gives the tokens from a JSON object of type -> strings; a
    ``ValueError`` naming ``document`` past :data:`MAX_ITEMS` strings (each searched in the tokens)."""
    tags = ["o"] * len(tokens)
    m = re.search(r"\{[^{}]*?\}", output, flags=re.DOTALL) if isinstance(output, str) else None
    value = None
    if m:
        try:
            value = json.loads(m.group())
        except ValueError:
            try:
                value = ast.literal_eval(m.group())
            except (ValueError, SyntaxError, RecursionError, MemoryError):
                value = None
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        return tags
    strings = sum(len(v) for v in value.values() if isinstance(v, list))
    if strings > MAX_ITEMS:
        raise ValueError(
            f"predictions[{document}]: {strings:,} strings; convention='euroeval' reads at most {MAX_ITEMS:,}"
            " an output (each searched in the tokens)"
        )
    types = {t: t.lower() for t in schema}
    holding = _Holders(tokens)
    for key, strings in value.items():
        name = types.get(label_map.get(key, key))
        if not isinstance(strings, list) or name is None:
            continue
        for entity in (str(s) for s in strings):
            for n, word in enumerate(entity.split()):
                for k in holding.of(word):  # EuroEval: every token containing the word, in order
                    if n == 0:
                        tags[k] = f"b-{name}"
                    elif tags[k] == "o" and tags[k - 1][2:] == name:
                        tags[k] = f"i-{name}"
    return tags


class _Holders:
    """The tokens that contain a word (``word in token``), in order: the tokens joined once,
    each word searched in the join once (C speed), an occurrence read as the token it lies in."""

    def __init__(self, tokens: list) -> None:
        self.joined = "\x00".join(tokens)
        self.starts = [0]
        for token in tokens[:-1]:
            self.starts.append(self.starts[-1] + len(token) + 1)
        self.ends = [s + len(t) for s, t in zip(self.starts, tokens)]
        self.cache: dict = {}

    def of(self, word: str) -> list:
        if word not in self.cache:
            joined, starts, found = self.joined, self.starts, []
            p = joined.find(word)
            while p >= 0:
                k = bisect_right(starts, p) - 1
                if p + len(word) <= self.ends[k]:
                    found.append(k)  # this token holds it: go on from the next token
                    p = joined.find(word, starts[k + 1]) if k + 1 < len(starts) else -1
                else:
                    p = joined.find(word, p + 1)
            self.cache[word] = found
        return self.cache[word]


def seqeval_chunks(sentences: list) -> set:
    """The chunks seqeval's default (conlleval) rules read in sentences joined by an ``O``:
    (type, first, last) over the joined positions. On EuroEval's lower-case tags no ``B``/``I``
    is recognised: a chunk is a run of one type (``o`` is the type ``_``, as is the ``O`` between
    sentences), so a run of ``o`` goes on across sentences and one still open at the end is lost.

    >>> sorted(seqeval_chunks([["b-per", "i-per", "o"], ["o", "b-loc"], ["o"]]))
    [('_', 2, 4), ('loc', 5, 5), ('per', 0, 1)]
    """
    flat = [tag for tags in sentences for tag in [*tags, "O"]] + ["O"]
    found, begin, prev_tag, prev_type = set(), 0, "O", ""
    for i, chunk in enumerate(flat):
        tag, kind = chunk[0], chunk[1:].split("-", 1)[-1] or "_"
        if _chunk_ends(prev_tag, tag, prev_type, kind):
            found.add((prev_type, begin, i - 1))
        if _chunk_starts(prev_tag, tag, prev_type, kind):
            begin = i
        prev_tag, prev_type = tag, kind
    return found


def _chunk_ends(prev_tag: str, tag: str, prev_type: str, kind: str) -> bool:
    if prev_tag in ("E", "S") or (prev_tag in ("B", "I") and tag in ("B", "S", "O")):
        return True
    return prev_tag not in ("O", ".") and prev_type != kind


def _chunk_starts(prev_tag: str, tag: str, prev_type: str, kind: str) -> bool:
    if tag in ("B", "S") or (prev_tag in ("E", "S", "O") and tag in ("E", "I")):
        return True
    return tag not in ("O", ".") and prev_type != kind


def _micro_f1(gold: list, pred: list) -> float:
    if all(t == "o" for s in pred for t in s) and all(t == "o" for s in gold for t in s):
        return 1.0  # EuroEval's rule for all-O sides
    true, said = seqeval_chunks(gold), seqeval_chunks(pred)
    return _prf(len(true & said), len(said), len(true))["f1"]


def _euroeval(predictions: list, tokens: list, references: list, schema: list, label_map: dict) -> dict:
    pred = [
        euroeval_tags(words, output, schema, label_map, i)
        for i, (output, words) in enumerate(zip(predictions, tokens))
    ]
    gold = [[str(t).lower() for t in tags] for tags in references]
    out = {"micro_f1": _micro_f1(gold, pred)}
    if any(t.lower() == "misc" for t in schema):

        def drop(tags: list) -> list:
            return [["o" if t[-4:] == "misc" else t for t in s] for s in tags]

        out["micro_f1_no_misc"] = _micro_f1(drop(gold), drop(pred))
    return out
