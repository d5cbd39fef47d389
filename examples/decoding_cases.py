"""Odd and untyped tag sequences, decoded by seqeval (default and strict IOB2 modes) and by
ner_recall_metric, side by side: the table of docs/decoding.md.

    python examples/decoding_cases.py
"""

import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from seqeval.metrics.sequence_labeling import get_entities  # noqa: E402
from seqeval.scheme import IOB2, Tokens  # noqa: E402

from ner_recall.core.decoding import tags_to_spans  # noqa: E402

#: (what the case shows, tags, options of ours)
CASES = [
    ("untyped chunk tags", ["B", "I", "O", "B"], {}),
    ("untyped, strict IOB2", ["I", "I", "B", "I"], {"scheme": "IOB2"}),
    ("untyped beside typed", ["B", "I", "B-PER"], {}),
    ("bare types", ["PER", "PER", "O"], {}),
    ("bare types, IO", ["PER", "PER", "I-LOC"], {"scheme": "IO"}),
    ("empty tag", ["B-PER", ""], {}),
    ("trailing space", ["B-PER", "I-PER "], {}),
    ("carriage return", ["B-PER\r"], {}),
    ("control character", ["B-PER\x00"], {}),
    ("double hyphen", ["B--PER"], {}),
    ("hyphen at the end", ["B-PER-"], {}),
    ("type O", ["B-O"], {}),
    ("lower-case prefix", ["b-PER"], {}),
    ("no hyphen", ["BPER"], {}),
    ("O with a type", ["O-PER"], {}),
    ("a hyphen alone", ["-"], {}),
    ("empty type", ["B-", "I-"], {}),
    ("BILOU, lenient", ["U-PER", "B-PER", "L-PER"], {}),
    ("space inside a type", ["B-WORK OF ART"], {}),
    ("hyphen inside a type", ["B-MISC-X", "I-MISC-X"], {}),
]


def show(entities):
    return " ".join(f"{t!r} {a}:{b}" for t, a, b in entities) or "none"


def seqeval(tags, strict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if strict:
                return show((e.tag, e.start, e.end) for e in Tokens(tags, IOB2).entities)
            return show((t, a, b + 1) for t, a, b in get_entities(tags))
        except Exception as error:  # noqa: BLE001 - the peer's error is what the table shows
            return type(error).__name__


def ours(tags, options):
    try:
        return show(tags_to_spans(tags, **options))
    except ValueError as error:
        message = str(error)  # "tag 'X' at tags[j] <reason>" or "invalid tag 'X' at tags[j] (expected)<hint>"
        reason = (
            message.split("] ", 1)[1]
            if message.startswith("tag ")
            else "invalid tag" + message.rsplit(")", 1)[1]
        )
        return "ValueError: " + reason.replace("|", "\\|")


def main():
    print("| case | tags | seqeval default | seqeval strict (IOB2) | here |")
    print("|---|---|---|---|---|")
    for case, tags, options in CASES:
        shown = " ".join(repr(t) for t in tags).replace("|", "\\|")
        where = f" ({', '.join(f'{k}={v!r}' for k, v in options.items())})" if options else ""
        print(
            f"| {case}{where} | `{shown}` | {seqeval(tags, False)} | {seqeval(tags, True)} | {ours(tags, options)} |"
        )


if __name__ == "__main__":
    main()
