"""A real recall benchmark scored, as the EstNLTK leaderboard scores it.

The EstNLTK recall benchmark amundsen_01 (published in estnltk/estnltk-model-data, under
named_entity_recognition/recall_estimation/benchmarks; it states no license, so this repository does
not copy it) carries, for each sampled
entity, whether the EstNLTK default tagger found it (its ``correct`` column). We turn that into
predicted tags, score them with the metric's two configs, and get the published leaderboard
estimate (recall 0.5892016803782091, 95% CI 0.5442531601445354 to 0.6341502006118828).

    python examples/recall_benchmark.py [path/to/data_description.csv, its folder, or its URL]

Without an argument it reads ``../shared/benchmarks/amundsen_01`` where that folder is beside the
clone, and otherwise the published files from their public URL; where neither can be read it says
in one line where to get them.
"""

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ner_recall.readers.benchmarks import PUBLISHED  # noqa: E402

SHARED = os.path.join(ROOT, "..", "shared", "benchmarks", "amundsen_01", "data_description.csv")


def main(description_csv=None):
    metric = evaluate.load(os.path.join(ROOT, "ner_recall_metric.py"), "subgroups")
    if description_csv is None:  # ../shared's copy where it is beside the clone, else the public one
        description_csv = SHARED if os.path.isfile(SHARED) else PUBLISHED + "/amundsen_01"
    try:
        data = metric.load_benchmark(description_csv)
    except ValueError as error:
        sys.exit(
            f"{error} -- this is EstNLTK's benchmark amundsen_01: copy the folder "
            "named_entity_recognition/recall_estimation/benchmarks of the public repository "
            "estnltk/estnltk-model-data and run python examples/recall_benchmark.py benchmarks/amundsen_01"
        )
    # the tagger's outcome per sampled entity: found it (its gold tags) or not (all O)
    predictions = [
        tags if found else ["O"] * len(tags) for tags, found in zip(data["ner_tags"], data["correct"])
    ]
    results = metric.compute(
        predictions=predictions,
        references=data["ner_tags"],
        subgroups=data["subgroup"],
        subgroup_weights=metric.benchmark_sizes(description_csv),
        ci_method="weighted_wald",
    )
    recall = results["stratified_recall"]
    print(f"{len(data)} sampled entities in {len(recall['strata'])} subgroups")
    for name, stratum in recall["strata"].items():
        print(
            f"  {name:20s} found {stratum['correct']:5.0f} of {stratum['n']:4d}  weight {stratum['weight']:.3f}"
        )
    print(f"plain recall (strict): {results['muc']['strict']['recall']:.4f}")
    print(f"stratum-weighted recall: {recall['recall']!r}")
    print(f"95% CI ({recall['method']}): ({recall['ci_low']!r}, {recall['ci_high']!r})")
    wilson = metric.compute(
        predictions=predictions,
        references=data["ner_tags"],
        subgroups=data["subgroup"],
        subgroup_weights=metric.benchmark_sizes(description_csv),
    )["stratified_recall"]
    print(
        f"95% CI (wilson, the default, with the uncertainty of the sizes): "
        f"({wilson['ci_low']:.4f}, {wilson['ci_high']:.4f})"
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
