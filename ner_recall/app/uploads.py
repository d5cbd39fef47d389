"""Uploads read and scored through the metric object: each upload slot takes one file, a brat pair
(``.ann`` + ``.txt``, or several pairs), or a ``.zip`` of them; the files are put in a folder of
their own under their own names, so that an error names the user's file, never a server path.

Reading goes through ``metric.read_systems`` and scoring through ``metric.compute`` and
``metric.compare`` (with ``system_intervals``); an error about a sentence is placed in its file and line by
``metric.locate``.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ner_recall.app.common import InputFailed, metric
from ner_recall.readers.files import TAG_BUCKETS

#: a zip upload's bounds: members and uncompressed bytes (a larger archive is refused before
#: anything is extracted)
ZIP_MEMBERS, ZIP_BYTES = 10_000, 200 * 2**20


class Upload:
    """One slot's files in a folder of their own: ``path`` is what the readers take (the file, a
    brat ``.ann``, or the folder of several brat pairs); ``name`` is what the user uploaded."""

    def __init__(self, uploads: Sequence[Any], slot: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="ner_app_upload_"))
        self.slot = slot
        names = [place(u, self.folder) for u in uploads]
        if len(names) == 1 and names[0].lower().endswith(".zip"):
            names = unzip(self.folder / names[0], self.folder, slot)
        self.path, self.name = self._choose(names)

    def _choose(self, names: list[str]) -> tuple[str, str]:
        ann = sorted(n for n in names if n.lower().endswith(".ann"))
        if ann:
            missing = [n for n in ann if os.path.splitext(n)[0] + ".txt" not in names]
            if missing:
                raise ValueError(
                    f"{self.slot}: brat needs each .ann with its .txt; upload {os.path.splitext(missing[0])[0]}.txt "
                    f"together with {missing[0]} (select both files, or a zip of them)"
                )
            if len(ann) == 1:
                return str(self.folder / ann[0]), ann[0]
            return str(self.folder), f"{len(ann)} brat documents"
        if len(names) != 1:
            raise ValueError(
                f"{self.slot}: one file per slot ({len(names)} given: {', '.join(sorted(names))}); "
                "only brat takes several (.ann and .txt pairs)"
            )
        return str(self.folder / names[0]), names[0]

    def scrub(self, message: str) -> str:
        """``message`` with this upload's server folder taken out: the user's file names stay."""
        return message.replace(str(self.folder) + os.sep, "").replace(str(self.folder), self.name)


def upload_paths(upload: Any) -> list[str]:
    """A Gradio upload (a path, a file object, a list of them, or None) as a list of paths."""
    if upload is None:
        return []
    if isinstance(upload, (list, tuple)):
        return [p for u in upload for p in upload_paths(u)]
    path = (
        upload if isinstance(upload, str) else getattr(upload, "name", None) or getattr(upload, "path", None)
    )
    return [path] if path else []


def place(upload: str, folder: Path) -> str:
    """The uploaded file in ``folder`` under its own name (linked, or copied across devices)."""
    name = os.path.basename(upload)
    if not os.path.isfile(upload):
        raise ValueError(f"{name}: the file is missing (upload it again)")
    if os.path.exists(folder / name):
        raise ValueError(f"two files named {name} in one slot")
    try:
        os.link(upload, folder / name)
    except OSError:
        shutil.copyfile(upload, folder / name)
    return name


def unzip(archive: Path, folder: Path, slot: str) -> list[str]:
    """The files of a zip upload in ``folder`` (their base names, folders inside flattened),
    bounded in members and bytes; ValueError naming the archive otherwise."""
    try:
        with zipfile.ZipFile(archive) as z:
            members = [
                m for m in z.infolist() if not m.is_dir() and not os.path.basename(m.filename).startswith(".")
            ]
            total = sum(m.file_size for m in members)
            if len(members) > ZIP_MEMBERS or total > ZIP_BYTES:
                raise ValueError(
                    f"{slot}: {archive.name} holds {len(members)} files, {total:,} bytes uncompressed; "
                    f"at most {ZIP_MEMBERS:,} files and {ZIP_BYTES:,} bytes"
                )
            names = [os.path.basename(m.filename) for m in members]
            if len(set(names)) != len(names):
                raise ValueError(f"{slot}: {archive.name} holds two files of one name in different folders")
            for member, name in zip(members, names):
                with z.open(member) as source, open(folder / name, "wb") as target:
                    shutil.copyfileobj(source, target)
                    if target.tell() > member.file_size:  # a header that understates its size
                        raise ValueError(f"{slot}: {archive.name}: {member.filename} is larger than it says")
    except zipfile.BadZipFile as error:
        raise ValueError(f"{slot}: {archive.name} is not a zip archive ({error})") from None
    os.remove(archive)
    if not names:
        raise ValueError(f"{slot}: {archive.name} holds no file")
    return names


def gather(upload: Any, slot: str) -> Upload | None:
    """One upload slot's files as an :class:`Upload`, or None when the slot is empty; an error
    names the slot's file as the one that failed."""
    paths = upload_paths(upload)
    try:
        return Upload(paths, slot) if paths else None
    except ValueError as error:
        raise InputFailed.of(error, f"{slot} file") from None


#: the metric's sides, in the order of the upload slots that hold them (gold, predictions, second
#: predictions; the two golds: gold, second gold)
SIDES = ("references", "predictions", "predictions_b")


def scrubbed(error: BaseException, uploads: Sequence[Upload | None]) -> BaseException:
    """``error`` (a ValueError) with every upload's server folder taken out of its message, naming
    the file that failed when one did: the slot it came from, the slot of the metric's side that
    refused it (the gold file's for predictions of a file with two tag columns), or the one file a
    reader's message starts with (``gold.conll line 3: ...``)."""
    if not isinstance(error, ValueError):
        return error
    message = str(error)
    for upload in uploads:
        if upload is not None:
            message = upload.scrub(message)
    return InputFailed(message, failed_file(error, message, uploads))


def failed_file(error: ValueError, message: str, uploads: Sequence[Upload | None]) -> str | None:
    """The upload slot's file an error is about (see :func:`scrubbed`), or None."""
    if isinstance(error, InputFailed) and error.named:
        return error.named
    if isinstance(error, InputFailed) and error.side in SIDES:
        at = SIDES.index(error.side)
        upload = uploads[at] if at < len(uploads) else None
        upload = upload or (uploads[0] if error.side == "predictions" else None)
        return f"{upload.slot} file" if upload else None
    named = [u for u in uploads if u and re.match(rf"{re.escape(u.name)}( line \d+[^:]*)?: ", message)]
    return f"{named[0].slot} file" if len(named) == 1 else None


def read_slices(path: str, name: str, n_sentences: int) -> list[str]:
    """One slice value per line, one line per sentence; ValueError naming the file."""
    try:
        return _slices(path, name, n_sentences)
    except ValueError as error:
        raise InputFailed.of(error, "slices file") from None


def _slices(path: str, name: str, n_sentences: int) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            values = [line.rstrip("\r\n") for line in f]
    except UnicodeDecodeError as error:
        raise ValueError(f"slices file {name}: cannot read it as UTF-8 text ({error})") from None
    if len(values) != n_sentences:
        raise ValueError(
            f"slices file {name}: {len(values)} lines but the files hold {n_sentences} sentences"
        )
    empty = next((i for i, v in enumerate(values) if not v.strip()), None)
    if empty is not None:
        raise ValueError(f"slices file {name} line {empty + 1}: empty; every sentence needs a slice value")
    return values


# ---------------------------------------------------------------------------- scoring read files


def offset_unit(inputs: Any) -> str:
    """What an entity's length counts in read files: tokens, or characters of a text."""
    return "characters" if inputs.over_texts() else "tokens"


#: why span files over tokens (no text) get no chart of an attribute tag files get
NO_BUCKET = {
    "sentence_length": "the span scoring counts a sentence in the characters of its text, and these files"
    " give tokens",
    "density": "the span scoring counts entities per 100 characters of a text, and these files give tokens",
    "capitalisation": "it reads an entity's text from the characters of a text, and these files give tokens",
}


def absent_buckets(inputs: Any) -> dict[str, str]:
    """The entity buckets of tag files that these files do not get, each with the reason."""
    if not inputs.is_spans():
        return {}
    if has_fragments(inputs):
        reason = "discontinuous entities (several fragments) have no single length or text to bucket"
        return dict.fromkeys(TAG_BUCKETS, reason)
    given = inputs.bucket_options()["buckets"]
    return {name: NO_BUCKET[name] for name in TAG_BUCKETS if name not in given}


def has_fragments(inputs: Any) -> bool:
    return any("fragments" in e for example in inputs.references + inputs.predictions for e in example)


def is_scored(inputs: Any) -> bool:
    """Whether the predictions are span items with a ``"score"`` (then the ranking family runs)."""
    return inputs.is_spans() and any("score" in e for example in inputs.predictions for e in example)


def score_options(inputs: Any, tag_options: dict, slices: list | None, ci_resamples: int) -> dict:
    """``compute``'s options for read files: errors, the confusion, the buckets the files allow
    (none, nor errors, for discontinuous entities: docs/discontinuous.md), slices and intervals."""
    spans = inputs.is_spans()
    options = {} if spans else dict(tag_options)
    listing = not (spans and has_fragments(inputs))
    options.update(errors=listing, ci_resamples=ci_resamples)
    options["scores"] = ["seqeval", "muc", "confusion"] + (["ranking"] if is_scored(inputs) else [])
    if listing:
        options.update(inputs.bucket_options())
    if slices is not None:
        options["slices"] = slices
    return options


def score(inputs: Any, tag_options: dict, slices: list | None = None, ci_resamples: int = 0) -> dict:
    """The metric's results on read files; a ValueError names file and line."""
    config = "spans" if inputs.is_spans() else "default"
    options = score_options(inputs, tag_options, slices, ci_resamples)
    try:
        return metric(config).compute(**{**inputs.compute_inputs(), **options})
    except ValueError as error:
        raise InputFailed(metric().locate(error, inputs), side=getattr(error, "side", None)) from None


def score_two(
    inputs: Any, inputs_b: Any, tag_options: dict, slices: list | None = None, ci_resamples: int = 0
) -> tuple[dict, dict, dict | None]:
    """Two systems on one gold: (results, results_b, comparison). Tags get the metric's comparison
    (difference, interval, p-value) with each system's own intervals; spans are scored apart
    (comparison None)."""
    if inputs.is_spans():
        results = score(inputs, {}, slices, ci_resamples)
        try:
            return results, score(inputs_b, {}, slices, ci_resamples), None
        except InputFailed as error:  # its predictions are the second file's
            side = "predictions_b" if error.side == "predictions" else error.side
            raise InputFailed.of(error, side=side) from None
    options = score_options(inputs, tag_options, slices, 0)
    options.pop("ci_resamples")
    try:
        out = metric().compare(
            predictions=inputs.predictions,
            predictions_b=inputs_b.predictions,
            references=inputs.references,
            document_ids=inputs.document_ids,
            system_intervals=ci_resamples,
            ci_resamples=ci_resamples or 1000,
            **options,
        )
    except ValueError as error:
        side = getattr(error, "side", None)
        second = side == "predictions_b"  # its place is in the second file
        where = (inputs_b, "predictions") if second else (inputs, None)
        raise InputFailed(metric().locate(error, *where), side=side) from None
    if ci_resamples:  # each slice's and bucket's own interval, as compute gives them for one system
        alone = score(inputs, tag_options, slices, ci_resamples)
        out["a"].update({k: alone[k] for k in ("slices", "buckets") if k in alone})
    return out["a"], out["b"], out
