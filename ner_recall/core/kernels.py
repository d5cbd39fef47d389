"""Compiled loops over class ids: decoding both sides, pairing overlapping entities, counting.

Each loop reads its arrays once, front to back, and writes only what it finds; each has the
same meaning as the NumPy code it stands beside (``ner_decoding.decode`` with the lenient
scheme, ``ner_matching._candidates`` on flat sides, ``ner_counts.count_parts``), and
``tests/test_fast_ids.py`` holds them equal on random corpora.

They are plain Python here (readable, and run as they are by the tests on small inputs);
``ner_fast`` compiles them with numba, when it is installed, the first time a large corpus
asks for them (the compiled code is cached beside this file, so once per machine). Nothing
here imports numba: loading the metric stays as fast without it.
"""

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.decoding import _END as END  # the transition bits of ner_decoding's pair table
from ner_recall.core.decoding import _START as START
from ner_recall.core.vocabulary import (
    IGNORE_INDEX as IGNORE,  # a reference id whose position is dropped on both sides
)


def decode_pair(
    pred: NDArray[np.integer],
    ref: NDArray[np.integer],
    lengths: NDArray[np.int64],
    canon: NDArray[np.int64],
    flags: NDArray[np.uint8],
    type_of: NDArray[np.int32],
    reasons: NDArray[np.uint8],
    start: NDArray[np.int64],
    end: NDArray[np.int64],
    kind: NDArray[np.int32],
    reason: NDArray[np.uint8],
    pairs: NDArray[np.int64],
    degree: NDArray[np.int64],
) -> tuple[int, int, int, int, int, int]:
    """Both sides in one pass: ``(bad, kept, correct, gold entities, predicted entities, pairs)``, each
    side's entities written into row 0 (the references) or 1 (the predictions) of ``start``,
    ``end``, ``kind`` (their type) and ``reason``: ``reasons[previous code, code]`` of the
    entity's first token, 0 when it is not repaired, else 1 + the index in
    ``ner_decoding_report.REASONS`` (it begins on ``I-`` or ``E-``: after ``O`` or none, another
    type, the same type). The caller makes each row one slot longer than the tokens.

    Two flat entities overlap when they share a token: every overlapping (gold, predicted)
    pair is written into ``pairs`` (row 0 the gold entity, row 1 the prediction) the first time
    a token of both is met, so in the order of gold then prediction, as
    ``ner_matching._candidates`` gives them; ``degree`` (zeros on entry) counts each entity's
    pairs (row 0 the gold entities, row 1 the predictions).

    ``bad``: -1 when every kept id lies in ``[0, len(canon))``, else the flat index of the first
    that does not (the rest is then unfinished). A reference ``IGNORE`` drops its position on
    both sides; ``kept``: the other positions, ``correct``: those whose two tags are equal (their
    ``canon`` codes: one code per distinct label name, ``O`` 0). Entities are lenient (as
    ``scheme=None``), positions count kept tokens, sentences back to back; ``flags[previous
    code, code]`` holds the transition bits (``START``, ``END``; a sentence starts after code 0).
    """
    n_names, n_codes = canon.shape[0], flags.shape[0]
    table, why = flags.ravel(), reasons.ravel()
    # each side writes every token's position into its next free slot and moves on only where
    # an entity starts (or, for the ends, ends): no branch on what the tags say
    kg = kp = eg = ep = i = pos = correct = m = 0
    last_g = last_p = -1
    for s in range(lengths.shape[0]):
        pg = pp = 0
        for _ in range(lengths[s]):
            r = ref[i]
            q = pred[i]
            i += 1
            if r == IGNORE:
                continue
            if r < 0 or r >= n_names or q < 0 or q >= n_names:
                return i - 1, 0, 0, 0, 0, 0
            cg = canon[r]
            cp = canon[q]
            correct += cg == cp
            if (cg | cp | pg | pp) == 0:  # within O on both sides: nothing starts or ends
                pos += 1
                continue
            f = table[pg * n_codes + cg]
            end[0, eg] = pos
            eg += (f & END) != 0
            start[0, kg] = pos
            kind[0, kg] = type_of[cg]
            reason[0, kg] = why[pg * n_codes + cg]
            kg += (f & START) != 0
            f = table[pp * n_codes + cp]
            end[1, ep] = pos
            ep += (f & END) != 0
            start[1, kp] = pos
            kind[1, kp] = type_of[cp]
            reason[1, kp] = why[pp * n_codes + cp]
            kp += (f & START) != 0
            if cg != 0 and cp != 0 and (kg - 1 != last_g or kp - 1 != last_p):
                last_g, last_p = kg - 1, kp - 1  # a non-O token lies in its side's last entity
                pairs[0, m], pairs[1, m] = last_g, last_p
                degree[0, last_g] += 1
                degree[1, last_p] += 1
                m += 1
            pg, pp = cg, cp
            pos += 1
        end[0, eg] = pos
        eg += (table[pg * n_codes] & END) != 0
        end[1, ep] = pos
        ep += (table[pp * n_codes] & END) != 0
    return -1, pos, correct, kg, kp, m


def isolated(
    g: NDArray[np.int64], p: NDArray[np.int64], g_degree: NDArray[np.int64], p_degree: NDArray[np.int64]
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Which pairs join two entities that overlap nothing else (kept as they are), and the
    indices of the others (the chains, which ``ner_matching.flat_resolution`` resolves).

    >>> keep, rest = isolated(np.array([0, 1, 1]), np.array([0, 1, 2]), np.array([1, 2]), np.array([1, 1, 1]))
    >>> keep.tolist(), rest.tolist()
    ([True, False, False], [1, 2])
    """
    keep = np.empty(g.shape[0], np.bool_)
    rest = np.empty(g.shape[0], np.int64)
    n = 0
    for m in range(g.shape[0]):
        alone = g_degree[g[m]] == 1 and p_degree[p[m]] == 1
        keep[m] = alone
        rest[n] = m
        n += not alone
    return keep, rest[:n]


def count_row(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    keep: NDArray[np.bool_],
    g_start: NDArray[np.int64],
    g_end: NDArray[np.int64],
    g_type: NDArray[np.int32],
    p_start: NDArray[np.int64],
    p_end: NDArray[np.int64],
    p_type: NDArray[np.int32],
    k: int,
) -> NDArray[np.int64]:
    """The count row of ``ner_core.COLUMNS`` (``k`` types a block) of the kept pairs: matched gold
    per scenario, predictions of the other-type scenarios, missed gold, spurious predictions."""
    row = np.zeros(8 * k, np.int64)
    g_free = np.ones(g_start.shape[0], np.bool_)
    p_free = np.ones(p_start.shape[0], np.bool_)
    for m in range(g.shape[0]):
        if not keep[m]:
            continue
        a, b = g[m], p[m]
        g_free[a] = False
        p_free[b] = False
        scenario = (0 if g_start[a] == p_start[b] and g_end[a] == p_end[b] else 2) + (
            1 if g_type[a] != p_type[b] else 0
        )
        row[scenario * k + g_type[a]] += 1
        if scenario == 1 or scenario == 3:
            row[(4 + (1 if scenario == 3 else 0)) * k + p_type[b]] += 1
    for a in range(g_start.shape[0]):
        if g_free[a]:
            row[6 * k + g_type[a]] += 1
    for b in range(p_start.shape[0]):
        if p_free[b]:
            row[7 * k + p_type[b]] += 1
    return row


#: units whose Poisson weights :func:`poisson_sums` adds in 16 bits before it moves them into
#: int64 (a weight is at most 8: 8 x 8,000 < 2**16)
SUM_UNITS = 8000
_M1, _M2, _S33 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53), np.uint64(33)
_U16 = np.uint16


def poisson_sums(
    seeded: NDArray[np.uint64],
    pattern: NDArray[np.int64],
    steps: NDArray[np.uint64],
    cuts: NDArray[np.uint16],
    sums: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Each distinct row's summed Poisson weights in each resample, added into ``sums`` (rows x
    resamples, integers in float64): ``ner_counts_state._pattern_sums`` as one loop. Units come sorted by their row
    (``pattern``); a unit's weights in the four resamples of group ``g`` are the four 16-bit
    lanes (little-endian) of MurmurHash3's finaliser of ``seeded + steps[g]``, each read as the
    number of the eight ``cuts`` it reaches (``ner_counts_state.POISSON_TABLE`` is that count at
    each 16-bit value). Lanes past the last resample are computed and not added.

    >>> cuts = np.array([1, 2, 3, 4, 5, 6, 7, 8], np.uint16)  # every lane but 0 to 7 reads as 8
    >>> with np.errstate(over="ignore"):  # NumPy's scalars warn where compiled code wraps silently
    ...     sums = poisson_sums(np.array([7, 9], np.uint64), np.array([0, 0]), np.array([5], np.uint64),
    ...                         cuts, np.zeros((1, 4)))
    >>> sums.tolist()
    [[16.0, 16.0, 16.0, 16.0]]
    """
    n, groups, resamples = seeded.shape[0], steps.shape[0], sums.shape[1]
    c0, c1, c2, c3, c4, c5, c6, c7 = cuts[0], cuts[1], cuts[2], cuts[3], cuts[4], cuts[5], cuts[6], cuts[7]
    z = np.empty(groups, np.uint64)
    lanes = z.view(np.uint16)  # one loop over 16-bit values: wide vectors when compiled
    held = np.zeros(4 * groups, np.uint16)
    count = 0
    for u in range(n):
        s = seeded[u]
        for g in range(groups):
            x = s + steps[g]
            x ^= x >> _S33
            x *= _M1
            x ^= x >> _S33
            x *= _M2
            x ^= x >> _S33
            z[g] = x
        for r in range(4 * groups):
            v = lanes[r]
            held[r] += (
                _U16(v >= c0)
                + _U16(v >= c1)
                + _U16(v >= c2)
                + _U16(v >= c3)
                + _U16(v >= c4)
                + _U16(v >= c5)
                + _U16(v >= c6)
                + _U16(v >= c7)
            )
        count += 1
        if u == n - 1 or pattern[u + 1] != pattern[u] or count == SUM_UNITS:
            row = pattern[u]
            for r in range(resamples):
                sums[row, r] += held[r]
            held[:] = 0
            count = 0
    return sums


_S32 = np.uint64(32)


def row_patterns(
    cells: NDArray[np.int64],
    width: int,
    units: NDArray[np.int64],
    pattern: NDArray[np.int64],
    first: NDArray[np.int64],
    last: NDArray[np.int64],
    signs: NDArray[np.uint64],
) -> tuple[int, int]:
    """The units of sorted ``cells`` (``unit * width + column``, one per count) and the distinct
    rows they hold, as ``ner_counts_state.unit_patterns`` finds them: writes each unit with a
    count (ascending) into ``units`` and the number of its row into ``pattern`` (rows numbered
    as first met), and for each row the cells ``[first, last)`` of its first unit; returns
    (units, rows). A row is looked up by the sum of a hash of each of its (column, count)
    cells, in a table of open addressing that doubles past half full, and confirmed cell by
    cell: two rows whose hashes collide only cost a probe. ``signs``: room for each row's hash.

    >>> units, pattern, first, last, signs = *(np.zeros(4, np.int64) for _ in range(4)), np.zeros(4, np.uint64)
    >>> with np.errstate(over="ignore"):
    ...     found = row_patterns(np.array([1, 1, 5, 5, 9, 10]), 4, units, pattern, first, last, signs)
    >>> found, units[:3].tolist(), pattern[:3].tolist()  # units 0 and 1 hold 2 of column 1; unit 2: columns 1, 2
    ((3, 2), [0, 1, 2], [0, 0, 1])
    """
    n = cells.shape[0]
    slots = 1 << 10
    table = np.full(slots, -1, np.int64)
    n_units = n_rows = 0
    i = 0
    while i < n:
        unit = cells[i] // width
        base = unit * width
        j = i
        sign = np.uint64(0)
        while j < n and cells[j] // width == unit:
            k = j
            while j < n and cells[j] == cells[k]:
                j += 1
            x = (np.uint64(cells[k] - base) << _S32) + np.uint64(j - k)
            x ^= x >> _S33
            x *= _M1
            x ^= x >> _S33
            x *= _M2
            x ^= x >> _S33
            sign += x
        h = np.int64(sign & np.uint64(slots - 1))
        while True:
            p = table[h]
            if p < 0:  # a new row
                p = n_rows
                table[h], signs[p], first[p], last[p] = p, sign, i, j
                n_rows += 1
                break
            if signs[p] == sign and last[p] - first[p] == j - i:
                other = (cells[first[p]] // width) * width
                same = True
                for t in range(j - i):
                    if cells[i + t] - base != cells[first[p] + t] - other:
                        same = False
                        break
                if same:
                    break
            h = (h + 1) & (slots - 1)
        units[n_units], pattern[n_units] = unit, p
        n_units += 1
        i = j
        if 2 * n_rows > slots:  # past half full: twice the slots, every row placed again
            slots *= 2
            table = np.full(slots, -1, np.int64)
            for q in range(n_rows):
                h = np.int64(signs[q] & np.uint64(slots - 1))
                while table[h] >= 0:
                    h = (h + 1) & (slots - 1)
                table[h] = q
    return n_units, n_rows
