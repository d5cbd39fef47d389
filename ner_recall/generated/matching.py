"""Where a generated string occurs on a text, at a matching level (``docs/generated.md``).

Three levels: ``"exact"`` (the string as written, at word boundaries), ``"normalized"`` (the
string and the text both normalized by the :data:`STEPS` given, a match mapped back to the
text's characters) and ``"fuzzy"`` (runs of words of the normalized text at least ``threshold``
similar to the string, difflib's ratio). Every search is bounded: a document's strings are
checked at :data:`MAX_PLACES` places of its text at most (found through an index of its words),
and its fuzzy search makes at most :data:`MAX_FUZZY_WORK` character comparisons; past either
bound the document is refused with a ``ValueError`` that names it and the bound.

>>> Occurrences("Paris Hilton flew to Paris.", "normalized").places("PARIS")
[(0, 5), (21, 26)]
>>> Occurrences("Paris Hilton flew to Paris.", "fuzzy", threshold=0.8).places("Paris Hilten")
[(0, 12)]
"""

import difflib
import re
import string
import unicodedata
from bisect import bisect_left
from collections import Counter
from typing import Any

import numpy as np

from ner_recall.generated.dialects import ARTICLES, PUNCTUATION

LEVELS = ("exact", "normalized", "fuzzy")
#: the normalization steps, in the order they apply (UniNER's SQuAD normalizer is case,
#: punctuation, articles, space)
STEPS = ("nfkc", "case", "punctuation", "articles", "space")
#: the most places of one document's text its output's strings are checked at (over its distinct
#: strings, each checked where its first word, or first character, begins): placement's work and
#: memory stay bounded
MAX_PLACES = 5_000_000
#: the distinct strings of a document searched one by one in its text; past them, an index of the
#: text's words finds where each begins
SEARCHED_ALONE = 8
#: the most character comparisons fuzzy matching makes in one document: an item searched costs
#: its length times the words of the text, a run of words compared in full its length times the item's
MAX_FUZZY_WORK = 50_000_000


# ---------------------------------------------------------------------------- normalization


def _is_punctuation(char: str) -> bool:
    return char in PUNCTUATION or unicodedata.category(char).startswith("P")


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _nfkc_pieces(text: str) -> list:
    """``text`` under Unicode NFKC as (start, end, normalized) pieces of the text, in order:
    the whole string normalized (so ``"e"`` and a combining accent after it meet as ``"é"``),
    cut where no character composes across the cut (each piece is one character and the marks
    that follow it wherever the concatenation of the pieces is the NFKC of the whole).

    >>> _nfkc_pieces("Cafe\\u0301 \\ufb01")
    [(0, 1, 'C'), (1, 2, 'a'), (2, 3, 'f'), (3, 5, 'é'), (5, 6, ' '), (6, 7, 'fi')]
    """
    pieces: list = []
    done = 0
    for run in _NON_ASCII.finditer(text):
        start = max(run.start() - 1, done)  # an ASCII letter before the run may compose with it
        pieces.extend((k, k + 1, text[k]) for k in range(done, start))
        pieces.extend(_unit_pieces(text, start, run.end()))
        done = run.end()
    pieces.extend((k, k + 1, text[k]) for k in range(done, len(text)))
    return pieces


def _unit_pieces(text: str, start: int, end: int) -> list:
    """The NFKC pieces of ``text[start:end]``: one per character and its combining marks, merged
    forward (up to 16) where a piece alone is not what the whole normalizes to there (a
    composition across them: Hangul jamo, a half-width voiced mark); the whole run one piece
    where that fails."""
    whole = unicodedata.normalize("NFKC", text[start:end])
    bounds = [start, *(k for k in range(start + 1, end) if not unicodedata.combining(text[k])), end]
    pieces, at, b, last = [], 0, 0, len(bounds) - 1
    while b < last:
        for width in range(1, min(16, last - b) + 1):
            s, e = bounds[b], bounds[b + width]
            normal = unicodedata.normalize("NFKC", text[s:e])
            if whole.startswith(normal, at):
                break
        else:
            return [(start, end, whole)]
        pieces.append((s, e, normal))
        at, b = at + len(normal), b + width
    return pieces if at == len(whole) else [(start, end, whole)]


#: ASCII punctuation, and ASCII whitespace, each to a space (the ASCII text's steps at C speed)
_ASCII_PUNCTUATION = str.maketrans(dict.fromkeys(string.punctuation, " "))
_ASCII_SPACE = str.maketrans(dict.fromkeys([chr(c) for c in range(128) if chr(c).isspace()], " "))


def _mapped(text: str, steps: tuple) -> tuple:
    """``text`` under the steps before ``articles`` and ``space`` (NFKC, case, punctuation, each
    white space a space) with each character's start and end in ``text``."""
    case, punct, space = ("case" in steps), ("punctuation" in steps), ("space" in steps)
    if text.isascii():  # NFKC changes no ASCII, case-folding is lower-casing, one character each
        out = text.lower() if case else text
        out = out.translate(_ASCII_PUNCTUATION) if punct else out
        return out.translate(_ASCII_SPACE) if space else out, range(len(text)), range(1, len(text) + 1)
    chars, starts, ends = [], [], []
    pieces = _nfkc_pieces(text) if "nfkc" in steps else [(k, k + 1, c) for k, c in enumerate(text)]
    for s, e, piece in pieces:
        for ch in piece.casefold() if case else piece:
            if punct and _is_punctuation(ch):
                ch = " "  # a word apart: "Paris-Hilton" is "paris hilton"
            chars.append(" " if space and ch.isspace() else ch)
            starts.append(s)
            ends.append(e)
    return "".join(chars), starts, ends


def normalized_map(text: str, steps: tuple = STEPS) -> tuple:
    """``text`` normalized by ``steps`` and, for each of its characters, the start and the end
    in ``text`` of the characters it came from.

    >>> normalized_map("The  U.S. army")
    ('u s army', [5, 6, 7, 8, 10, 11, 12, 13], [6, 7, 8, 9, 11, 12, 13, 14])
    >>> normalized_map("Cafe\\u0301")
    ('café', [0, 1, 2, 3], [1, 2, 3, 5])
    """
    joined, starts, ends = _mapped(text, steps)
    if "articles" in steps:
        joined = ARTICLES.sub(lambda m: " " * len(m.group()), joined)
    if "space" not in steps:
        return joined, list(starts), list(ends)
    if len(joined) > 64 and joined.isascii():  # a space kept where the character before it is no space
        spaces = np.frombuffer(joined.encode("ascii"), dtype=np.uint8) == 32
        kept = np.flatnonzero(~(spaces & np.concatenate(([True], spaces[:-1])))).tolist()
    else:
        kept = [k for k, ch in enumerate(joined) if ch != " " or (k and joined[k - 1] != " ")]
    if kept and joined[kept[-1]] == " ":
        kept.pop()
    return "".join([joined[k] for k in kept]), [starts[k] for k in kept], [ends[k] for k in kept]


def normalize_string(s: str, steps: tuple = STEPS) -> str:
    """One string normalized by ``steps`` (as the text is by :func:`normalized_map`).

    >>> normalize_string("Cafe\\u0301") == normalize_string("Café")
    True
    """
    return normalized_map(s, steps)[0]


# ---------------------------------------------------------------------------- occurrences


#: the ASCII characters of words (letters, digits, underscore)
_ASCII_WORD = frozenset(string.ascii_letters + string.digits + "_")


def _is_word(char: str) -> bool:
    """As ``ner_spans`` reads words: a letter, digit or underscore, not a wide (East Asian) one."""
    if char.isascii():
        return char in _ASCII_WORD
    return char.isalnum() and unicodedata.east_asian_width(char) not in ("W", "F")


def word_occurrences(text: str, s: str, limit: int = MAX_PLACES) -> list:
    """The (start, end) of each occurrence of ``s`` in ``text`` at word boundaries (the places
    of ``ner_spans.occurrences``, found with fewer calls); at most ``limit`` + 1 of them.

    >>> word_occurrences("Peter Peters met Peter", "Peter")
    [(0, 5), (17, 22)]
    """
    k = text.find(s)
    if k < 0:
        return []
    found: list = []
    n, size = len(s), len(text)
    head, tail, word = _is_word(s[0]), _is_word(s[-1]), _ASCII_WORD
    while k >= 0 and len(found) <= limit:
        e = k + n
        if head and k:
            c = text[k - 1]
            if c in word or (not c.isascii() and _is_word(c)):
                k = text.find(s, k + 1)
                continue
        if tail and e < size:
            c = text[e]
            if c in word or (not c.isascii() and _is_word(c)):
                k = text.find(s, k + 1)
                continue
        found.append((k, e))
        k = text.find(s, k + 1)
    return found


def _with_marks(text: str, start: int, end: int, said: str) -> tuple:
    """A normalized match widened over the punctuation the string itself starts or ends with
    ("U.S." keeps its last full stop where the text has it).

    >>> _with_marks("the U.S. army", 4, 7, "u.s.")
    (4, 8)
    """
    tail = said[len(said.rstrip(string.punctuation)) :]
    if tail and text.startswith(tail, end):
        end += len(tail)
    elif not tail and text.startswith(".", end) and _abbreviation(text, start, end):
        end += 1
    head = said[: len(said) - len(said.lstrip(string.punctuation))]
    if head and start >= len(head) and text[start - len(head) : start] == head:
        start -= len(head)
    return start, end


def _abbreviation(text: str, start: int, end: int) -> bool:
    """Whether the full stop after ``text[start:end]`` ends it as an abbreviation ("U.S", "Co")
    rather than a sentence: its last word holds a full stop, or is a capitalised word of at most
    three letters followed by more of the sentence (a lower-case word) or by punctuation.

    >>> _abbreviation("Smith & Co. said", 0, 10), _abbreviation("met Ann. Then", 4, 7)
    (True, False)
    """
    word = text[start:end].rsplit(None, 1)[-1]
    if "." in word:
        return True
    rest = text[end + 1 :].lstrip()
    return len(word) <= 3 and word[:1].isupper() and (rest[:1].islower() or _is_punctuation(rest[:1] or "A"))


_WORD_RUN = re.compile(r"\w+")  # as str.isalnum() or "_": _is_word's words, wide characters aside


class _Index:
    """Where each word (a run of :func:`_is_word` characters) and each character of a text
    begins, built once (words) or once per character asked for."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.words: dict = {}
        self.chars: dict = {}
        for m in _WORD_RUN.finditer(text):
            run = m.group()
            if run.isascii():
                self.words.setdefault(run, []).append(m.start())
                continue
            start = m.start()  # a run of \w holding wide characters: words between them
            for k, c in enumerate(run + "\u3000"):
                if not _is_word(c):
                    if start < m.start() + k:
                        self.words.setdefault(text[start : m.start() + k], []).append(start)
                    start = m.start() + k + 1

    def candidates(self, s: str) -> list:
        """Where an occurrence of ``s`` at word boundaries may begin: where its first word begins
        as a word of the text (``s`` begins with a word character), else its first character."""
        if not _is_word(s[0]):
            if s[0] not in self.chars:
                self.chars[s[0]] = [m.start() for m in re.finditer(re.escape(s[0]), self.text)]
            return self.chars[s[0]]
        n = 1
        while n < len(s) and _is_word(s[n]):
            n += 1
        return self.words.get(s[:n], [])


def indexed_occurrences(index: _Index, s: str) -> tuple:
    """(the places of :func:`word_occurrences`, the places checked) through the text's index.

    >>> indexed_occurrences(_Index("Peter Peters met Peter"), "Peter")
    ([(0, 5), (17, 22)], 2)
    """
    text, n, tail, found = index.text, len(s), _is_word(s[-1]), []
    candidates = index.candidates(s)
    for k in candidates:
        if text.startswith(s, k) and not (tail and k + n < len(text) and _is_word(text[k + n])):
            found.append((k, k + n))
    return found, len(candidates)


class Occurrences:
    """One text's occurrences of strings at a level (``steps`` of normalization, fuzzy
    ``threshold``), each string searched once; ``document`` names the text in errors."""

    def __init__(
        self, text: str, level: str, steps: tuple = STEPS, threshold: float = 0.9, document: int = 0
    ) -> None:
        self.text, self.level, self.steps, self.threshold = text, level, steps, threshold
        self.document = document
        self.cache: dict = {}
        self.read = 0  # places checked so far, against MAX_PLACES
        self.work = 0  # fuzzy character comparisons so far, against MAX_FUZZY_WORK
        self.index: Any = None
        self.norm: Any = None
        self.words: Any = None
        self.codes: Any = None
        self.counts: dict = {}

    def places(self, s: str) -> list:
        """The places of ``s`` (stripped) in reading order."""
        if s not in self.cache:
            self.cache[s] = self._search(s)
        return self.cache[s]

    def _occurrences(self, text: str, s: str) -> list:
        """:func:`word_occurrences` of ``s`` in ``text`` (the text, or its normalized form), the
        places checked counted against :data:`MAX_PLACES`."""
        if len(self.cache) < SEARCHED_ALONE:
            found = word_occurrences(text, s, MAX_PLACES - self.read)
            checked = len(found)
        else:
            if self.index is None or self.index.text is not text:
                self.index = _Index(text)
            found, checked = indexed_occurrences(self.index, s)
        self.read += checked
        if self.read > MAX_PLACES:
            raise ValueError(
                f"predictions[{self.document}]: its strings would be checked at more than {MAX_PLACES:,}"
                f" places of the text (the most placement checks in one document; {s[:40]!r} among them)"
            )
        return found

    def _search(self, s: str) -> list:
        if self.level == "exact":
            return self._occurrences(self.text, s)
        if self.norm is None:
            self.norm = normalized_map(self.text, self.steps)
        norm, starts, ends = self.norm
        key = normalize_string(s, self.steps)
        if not key:
            return []
        found = [
            _with_marks(self.text, starts[k], ends[k + len(key) - 1], s)
            for k, _ in self._occurrences(norm, key)
        ]
        if found or self.level != "fuzzy":
            return sorted(found)
        return self._fuzzy(key)

    def _charge(self, cost: int, key: str) -> None:
        self.work += cost
        if self.work > MAX_FUZZY_WORK:
            raise ValueError(
                f"predictions[{self.document}]: fuzzy matching would make more than {MAX_FUZZY_WORK:,}"
                f" character comparisons in this document ({key[:40]!r} among its items; an item costs"
                " its length times the words of the text): match it 'normalized', or cut the text"
            )

    def _fuzzy(self, key: str) -> list:
        """Runs of words of the normalized text at least ``threshold`` similar to ``key``; the
        best of each overlapping group kept, in reading order."""
        norm, starts, ends = self.norm
        if self.words is None:
            spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", norm)]
            self.words = (
                np.array([a for a, _ in spans], dtype=np.int64),
                np.array([b for _, b in spans], dtype=np.int64),
            )
        first, last = self.words
        self._charge(len(key) * len(first), key)
        found = []
        for a, b, length in self._candidates(key):
            window = norm[a:b]
            self._charge(len(key) * length, key)
            ratio = difflib.SequenceMatcher(None, key, window, autojunk=False).ratio()
            if ratio >= self.threshold:
                found.append((-ratio, starts[a], ends[b - 1]))
        return _best_apart(found)

    def _candidates(self, key: str) -> list:
        """(start, end, length) of each run of ``n - 1``, ``n`` or ``n + 1`` words (``key``
        has ``n``) that difflib's two upper bounds (``real_quick_ratio`` from the lengths,
        ``quick_ratio`` from the characters in common) leave able to reach the threshold: the
        runs the full ratio is computed for, counted with arrays over the words."""
        first, last = self.words
        n, size, threshold = key.count(" ") + 1, len(key), self.threshold
        wanted = Counter(key)
        out = []
        for width in (n - 1, n, n + 1):
            if width <= 0 or width > len(first):
                continue
            a, b = first[: len(first) - width + 1], last[width - 1 :]
            length = b - a
            keep = 2 * np.minimum(size, length) >= threshold * (size + length)
            if not keep.any():
                continue
            common = np.zeros(len(a), dtype=np.int64)
            for char, count in wanted.items():
                at_first, at_last = self._char_counts(char)
                common += np.minimum(count, at_last[width - 1 :] - at_first[: len(a)])
            keep &= 2.0 * common / (size + length) >= threshold
            out += [(int(a[k]), int(b[k]), int(length[k])) for k in np.flatnonzero(keep)]
        return out

    def _char_counts(self, char: str) -> tuple:
        """How many ``char`` the normalized text holds before each word's start and up to each
        word's end (two arrays over the words), kept for the next item."""
        if char not in self.counts:
            if self.codes is None:
                self.codes = np.frombuffer(self.norm[0].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            at = np.flatnonzero(self.codes == ord(char))
            first, last = self.words
            counts = (np.searchsorted(at, first), np.searchsorted(at, last))
            if len(self.counts) * len(first) < 1 << 24:
                self.counts[char] = counts
            return counts
        return self.counts[char]

    def matches(self, found: str, said: str) -> bool:
        """Whether ``found`` (the text at an item's offsets) is ``said`` at this level."""
        if self.level == "exact" or found.strip() == said.strip():
            return found.strip() == said.strip()
        a, b = normalize_string(found, self.steps), normalize_string(said, self.steps)
        if self.level == "normalized" or a == b:
            return a == b
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        if matcher.real_quick_ratio() < self.threshold or matcher.quick_ratio() < self.threshold:
            return False
        self._charge(len(a) * len(b), b)
        return matcher.ratio() >= self.threshold


def _best_apart(found: list) -> list:
    """Of (-ratio, start, end) matches, the best of each overlapping group, in reading order."""
    kept: list = []
    starts: list = []
    for _, s, e in sorted(found):
        k = bisect_left(starts, e)
        if k and kept[k - 1][1] > s:
            continue  # the kept run before it (kept runs are apart) reaches into it
        kept.insert(k, (s, e))
        starts.insert(k, s)
    return kept
