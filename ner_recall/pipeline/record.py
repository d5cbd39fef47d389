"""A record of a run: the results with everything that produced them, so that a score in a paper can
be reproduced and its inputs checked (Lignos and Kamyab, "If You Build Your Own NER Scorer,
Non-replicable Results Will Come", 2020: half a point of F1 moves with unstated decoding choices).

A record is a JSON-ready dict (layout :data:`RECORD_VERSION`): the config, every option given and the
defaults of the others, the seed, the decoding report, the matching policy, the package versions, a
SHA-256 of each input and the results. Inputs are hashed over a canonical form: the JSON of the
value with lists and tuples alike, numpy arrays and numbers as the Python lists and numbers they
hold, dict keys sorted, no spaces, UTF-8. Options that hold per-sentence data (``texts``,
``document_ids``, ...) are hashed, not stored: a rerun takes them again.

>>> fingerprint([["B-PER", "O"]]) == fingerprint((("B-PER", "O"),))
True
>>> fingerprint([[1, 2]]) == fingerprint([[1.0, 2]])
False
"""

import hashlib
import json
import platform
from collections.abc import Mapping
from importlib import metadata
from typing import Any

import numpy as np

RECORD_FORMAT = "ner_recall_metric record"
RECORD_VERSION = 1
#: options that hold per-sentence data: hashed like the predictions, given again to rerun
DATA_OPTIONS = (
    "subgroups",
    "texts",
    "document_ids",
    "slices",
    "tokens",
    "token_scores",
    "train_entities",
    "threshold_from",
)
MATCHING = (
    "One matching for every mode (docs/matching.md): gold and predicted entities sharing a position "
    "are candidate pairs; the matching is one-to-one; every pair of the same type and offsets is "
    "matched; then the most pairs, then the most pairs of the same type, then the closest pairs "
    "(identical offsets, then the larger Dice coefficient), then the leftmost; independent of the "
    "order of entities and sentences. Spans end exclusive."
)
PACKAGES = ("numpy", "evaluate", "datasets", "pyarrow", "scipy")


def _plain(value):
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "to_pylist"):  # an Arrow column
        return _plain(value.to_pylist())
    if hasattr(value, "tolist"):  # a tensor
        return _plain(value.tolist())
    return value


def canonical(value: object) -> bytes:
    """The canonical bytes of a value (see the module's docstring)."""
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def fingerprint(value: object) -> str:
    """``sha256:`` and the hex digest of the canonical bytes."""
    return "sha256:" + hashlib.sha256(canonical(value)).hexdigest()


def versions() -> dict:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def make_record(config: str, inputs: dict, options: dict, defaults: dict, results: dict) -> dict:
    """The record of one ``compute``: ``inputs`` {name: value} (predictions, references,
    subgroups), ``options`` the options given, ``defaults`` every option of the config with its
    default."""
    data = {k: v for k, v in options.items() if k in DATA_OPTIONS}
    stored = {k: v for k, v in options.items() if k not in DATA_OPTIONS}
    plain = _plain(stored)
    try:
        json.dumps(plain)
    except TypeError as error:
        raise ValueError(f"an option cannot be written in a record: {error}") from None
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "config": config,
        "options": plain,
        "defaults": {k: _plain(v) for k, v in defaults.items() if k not in options},
        "seed": _plain(options.get("seed", defaults.get("seed"))),
        "inputs": {
            name: fingerprint(value) for name, value in {**inputs, **data}.items() if value is not None
        },
        "decoding": results.get("decoding"),
        "matching": MATCHING,
        "versions": versions(),
        "results": json.loads(canonical(results)),
    }


#: the inputs of a run, which a record hashes and never holds among its options
INPUTS = ("predictions", "references", "subgroups", "predictions_b")
#: the parts of a record and the type each must be
PARTS = {"config": str, "options": dict, "inputs": dict, "results": dict}


def check_record(record: object, where: str = "") -> None:
    """Raise a ValueError naming the part unless ``record`` is a record this version reads: its
    format and layout, ``config`` a str, ``options`` a dict of JSON values holding no input or
    per-sentence data, ``inputs`` a dict of ``sha256:`` hashes, ``results`` a dict, and the whole
    writable as JSON (no cycle, nesting within the interpreter's recursion). ``where`` is written
    before the message (the command line's ``--rerun path: ``)."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"{where}not a record: its 'format' is not {RECORD_FORMAT!r}")
    if type(record.get("version")) is not int or record.get("version") != RECORD_VERSION:
        raise ValueError(
            f"{where}a record of layout {record.get('version')!r:.40}; this metric reads {RECORD_VERSION}"
        )
    for key, kind in PARTS.items():
        if key not in record:
            raise ValueError(f"{where}not a record: no {key!r}")
        if not isinstance(record[key], kind):
            raise ValueError(
                f"{where}not a record: its {key!r} is a {kind.__name__}; got {type(record[key]).__name__}"
            )
    held = sorted(k for k in record["options"] if k in INPUTS or k in DATA_OPTIONS or not isinstance(k, str))
    if held:
        raise ValueError(
            f"{where}a tampered record: its 'options' hold {held[0]!r}, an input or per-sentence data, which a record hashes"
        )
    for name, digest in record["inputs"].items():
        if not isinstance(digest, str) or not digest.startswith("sha256:"):
            raise ValueError(
                f"{where}a tampered record: the hash of input {name!r} is not 'sha256:...'; got {digest!r:.80}"
            )
    try:
        json.dumps(record)
    except (ValueError, TypeError, RecursionError) as error:
        raise ValueError(
            f"{where}a tampered record: it cannot be written as JSON ({type(error).__name__}: {error})"
        ) from None


def check_inputs(record: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    """Raise, naming the input, unless ``given`` {name: value} are the inputs the record hashed."""
    for name, digest in record["inputs"].items():
        if name not in given or given[name] is None:
            raise ValueError(f"the record hashed {name!r}; give it again to rerun")
        if fingerprint(given[name]) != digest:
            raise ValueError(
                f"{name} is not the input of the record: its hash {fingerprint(given[name])} differs from {digest}"
            )
    extra = sorted(k for k, v in given.items() if v is not None and k not in record["inputs"])
    if extra:
        raise ValueError(f"{extra[0]!r} was not an input of the recorded run")


def same_results(record: dict, results: dict) -> bool:
    """Whether ``results`` are the record's, to the last bit of every float."""
    return canonical(results) == canonical(record["results"])


def differences(record: dict, results: dict, limit: int = 5) -> list:
    """The first ``limit`` result keys (dotted paths) whose values differ."""
    out: list[str] = []

    def walk(a, b, path):
        if len(out) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                walk(a.get(k), b.get(k), f"{path}.{k}" if path else k)
        elif a != b:
            out.append(path)

    walk(record["results"], json.loads(canonical(results)), "")
    return out


def model_index(
    results: Mapping[str, Any],
    model_name: str,
    dataset_name: str,
    dataset_type: str,
    split: str | None = None,
    dataset_config: str | None = None,
) -> dict:
    """The ``model-index`` metadata of a Hugging Face model card: seqeval's micro precision, recall,
    F1 (and accuracy in the tag configs) and the F1 of each MUC mode."""
    metrics = [
        {"type": key, "value": results[f"overall_{key}"], "name": key.capitalize()}
        for key in ("precision", "recall", "f1", "accuracy")
        if f"overall_{key}" in results
    ]
    for mode, row in results.get("muc", {}).items():
        metrics.append({"type": "f1", "value": row["f1"], "name": f"F1 (MUC {mode})"})
    dataset = {"name": dataset_name, "type": dataset_type}
    if split is not None:
        dataset["split"] = split
    if dataset_config is not None:
        dataset["config"] = dataset_config
    return {
        "model-index": [
            {
                "name": model_name,
                "results": [
                    {
                        "task": {"type": "token-classification", "name": "Token Classification"},
                        "dataset": dataset,
                        "metrics": metrics,
                    }
                ],
            }
        ]
    }


def flat_results(results: Mapping[str, Any], prefix: str = "") -> dict:
    """The results as one level of ``a/b/c`` keys with number values (for ``evaluate.save`` and
    logging tools); lists and strings are left out."""
    out = {}
    for key, value in results.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flat_results(value, name + "/"))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[name] = value
    return out
