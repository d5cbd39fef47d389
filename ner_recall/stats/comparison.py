"""Two systems on the same references: per-unit count rows compared (paired bootstrap and
approximate randomisation), overall, per slice and per bucket.

>>> from ner_recall.pipeline import options as ner_options
>>> from ner_recall.pipeline import compute as ner_pipeline
>>> from ner_recall.stats.uncertainty import check_comparison_options
>>> options = ner_options.check_options("default", {})
>>> settings = check_comparison_options(permutations=200, ci_resamples=0)
>>> gold = [["B-PER", "O"], ["B-LOC", "O"], ["B-ORG", "O"]]
>>> worse = [["B-PER", "O"], ["O", "O"], ["O", "O"]]
>>> out = ner_pipeline.compare_systems(gold, worse, gold, options, settings)  # scored, then compare_scored
>>> out["difference"]["overall_f1"], round(out["p_values"]["overall_f1"], 2)
(-0.5, 0.53)
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ner_recall.core.vocabulary import holm, same_count
from ner_recall.families.buckets import compare_buckets
from ner_recall.families.documents import by_unit, document_scores
from ner_recall.families.slices import SLICE_KEY, group_by, slice_codes
from ner_recall.pipeline.options import Options
from ner_recall.stats.uncertainty import (
    align_types,
    comparison_results,
    families_of,
    interval_results,
    paired,
    paired_scores,
)


def compare_scored(
    systems: Sequence[tuple[dict[str, Any], NDArray[np.int64], tuple[str, ...], Any]],
    units: tuple[NDArray[np.intp], int],
    options: Options,
    settings: Mapping[str, Any],
    by_document: bool = False,
    system_intervals: int = 0,
) -> dict[str, Any]:
    """Two systems scored on the same references: the dict ``compare`` returns.

    ``systems``: each system's ``(results, per-sentence count rows, type names, bucket rows)``
    (``ner_pipeline.score_tags`` with one unit per sentence); ``units``: each sentence's unit and
    their number (its document with ``by_document``). ``settings``: the checked comparison options
    (``check_comparison_options``). With ``system_intervals`` each system's results also get their
    own ``"intervals"``, from the same per-unit rows, at ``system_intervals`` resamples (0: none).
    With ``slices`` in the options, ``"slices"`` holds the comparison on each slice, its p-values
    corrected for the number of slices (Holm).
    """
    families = families_of(options.scoring.scores)
    if by_document:  # as compute gives them with document_ids
        for results, rows, types, _ in systems:
            results["documents"] = document_scores(by_unit(rows, units), types, options)
    if system_intervals:
        level = {
            "resamples": system_intervals,
            "confidence_level": settings["confidence_level"],
            "seed": settings["seed"],
        }
        for results, rows, types, _ in systems:
            results["intervals"] = interval_results(
                by_unit(rows, units),
                types,
                level,
                families,
                beta=options.beta,
                zero_division=options.zero_division,
            )
    union = tuple(sorted(set(systems[0][2]) | set(systems[1][2])))
    rows_a, rows_b = (align_types(rows, types, union) for _, rows, types, _ in systems)
    out = _paired(by_unit(rows_a, units), by_unit(rows_b, units), union, settings, families, options)
    summary = {
        "unit": "document" if by_document else "sentence",
        "units": units[1],
        "permutations": settings["permutations"],
        "ci_resamples": settings["resamples"],
        "confidence_level": settings["confidence_level"],
        "seed": settings["seed"],
    }
    result = comparison_results(out, systems[0][0], systems[1][0], summary)
    if options.slices:
        result["slices"] = _slice_comparisons(rows_a, rows_b, units, union, options, settings, families)
    if options.buckets:
        (a, _, _, buckets_a), (b, _, _, buckets_b) = systems

        def paired(stats_a, stats_b, names, score, estimate):
            return paired_scores(
                stats_a,
                stats_b,
                names,
                score,
                estimate,
                settings["permutations"],
                settings["resamples"],
                settings["confidence_level"],
                settings["seed"],
            )

        result["buckets"] = compare_buckets(
            by_unit(buckets_a.rows, units),
            by_unit(buckets_b.rows, units),
            buckets_a.layout,
            (a["buckets"], b["buckets"]),
            paired,
            options.beta,
        )
    return result


def _paired(rows_a, rows_b, types, settings, families, options):
    return paired(
        rows_a,
        rows_b,
        types,
        settings["permutations"],
        settings["resamples"],
        settings["confidence_level"],
        settings["seed"],
        families,
        beta=options.beta,
        zero_division=options.zero_division,
    )


def _slice_comparisons(rows_a, rows_b, units, types, options, settings, families):
    """Per slice key and value: the difference b - a, its interval and p-values on the slice's
    sentences (or their documents), and the p-values corrected over the key's values (Holm)."""
    out = {}
    for key, values in options.slices.items():
        where = "slices" if key == SLICE_KEY and len(options.slices) == 1 else f"slices[{key!r}]"
        distinct, code = slice_codes(values, where, len(rows_a))
        groups = group_by(code, len(distinct))  # each value's sentences, in order, from one sort
        table: dict[Any, dict[str, Any]] = {}  # slice value -> its comparison
        for i, value in enumerate(distinct):
            keep = groups.members(i)
            local, inverse = np.unique(units[0][keep], return_inverse=True)
            slice_units = (inverse, len(local))
            cmp = _paired(
                by_unit(rows_a[keep], slice_units),
                by_unit(rows_b[keep], slice_units),
                types,
                settings,
                families,
                options,
            )
            table[value] = {
                "sentences": len(keep),
                "difference": dict(zip(cmp["names"], cmp["difference"].tolist())),
                "p_values": dict(zip(cmp["names"], cmp["p_values"].tolist())),
            }
            if "intervals" in cmp:
                table[value]["intervals"] = {
                    n: [float(cmp["intervals"][0, j]), float(cmp["intervals"][1, j])]
                    for j, n in enumerate(cmp["names"])
                }
        names = set.intersection(*(set(t["p_values"]) for t in table.values()))
        for name in sorted(names):
            adjusted = holm([t["p_values"][name] for t in table.values()])
            for t, p in zip(table.values(), adjusted):
                t.setdefault("p_values_holm", {})[name] = p
        out[key] = {"values": table, "correction": "holm"}
    return out


def check_same_layout(predictions_b: Any, references: Any, name: str = "predictions_b") -> None:
    """Raise unless the second system has as many sentences as the references, each as long
    (the references first: a bad one is named as such)."""
    for side, value in (("references", references), (name, predictions_b)):
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
            raise ValueError(
                f"{side} must be a list of tag lists, one per sentence; got {type(value).__name__}"
            )
    if isinstance(predictions_b, (str, bytes)) or not hasattr(predictions_b, "__len__"):
        raise ValueError(
            f"{name} must be a list of tag lists, one per sentence; got {type(predictions_b).__name__}"
        )
    same_count(name, len(predictions_b), "references", len(references))
    for i, (pred, ref) in enumerate(zip(predictions_b, references)):
        if isinstance(pred, (str, bytes)) or not hasattr(pred, "__len__"):
            raise ValueError(f"{name}[{i}] must be a list of tags; got {type(pred).__name__}")
        if hasattr(ref, "__len__") and len(pred) != len(ref):
            raise ValueError(f"{name}[{i}] has {len(pred)} tags but references[{i}] has {len(ref)}")
