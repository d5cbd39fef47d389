"""evaluate's patches, set apart: the cache, streaming and distributed runs of ``NerRecallMetric``.

The metric class inherits :class:`EvaluatePatches` before ``evaluate.Metric``. Each patch says which
evaluate behaviour it fixes (a ``# PATCH`` comment); ``tests/test_evaluate_patches.py`` holds one test
per patch that checks that evaluate still behaves so, and fails the day it does not (the patch may then
go). Written for the evaluate versions pinned in ``requirements.txt``.

Nothing here scores: the pipeline is ``ner_pipeline``; the class provides ``config_name``,
``_feature_names`` and ``_compute``.

>>> EvaluatePatches.__mro__[-1] is object and hasattr(EvaluatePatches, "_release_cache")
True
"""

import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import datasets
import pyarrow as pa
from datasets.utils.py_utils import temp_seed

from ner_recall.core.cache import CachedColumns, arrow_columns
from ner_recall.core.doubt import has_doubt
from ner_recall.core.inputs import CLASS_ID, TAG, as_list, check_batch, check_kind
from ner_recall.core.spans import check_entity_types, split_extras
from ner_recall.pipeline.options import SPAN_CONFIGS, SUBGROUP_CONFIGS, check_options, check_subgroups
from ner_recall.readers.model_outputs import spans_from_outputs


# PATCH reading the caches of a distributed run (see the distributed section below)
def _read_caches(paths):
    """Every process's cache file as one Arrow-backed ``datasets.Dataset``; files of a process
    that added nothing are left out (their format may differ from the others')."""
    tables = []
    for process_id, path in enumerate(paths):
        try:
            tables.append(datasets.table.MemoryMappedTable.from_file(path))
        except FileNotFoundError:
            raise ValueError(
                f"the cache file of process {process_id} ({path}) is gone: another run with the same"
                " experiment_id and cache_dir removed it; give each run its own experiment_id"
            ) from None
    kept = [t for t in tables if t.num_rows] or tables[:1]
    kinds = {str(t.schema.field("predictions").type) for t in kept}
    if len(kinds) > 1:
        raise ValueError(
            f"the processes added different kinds of input ({sorted(kinds)}): every process adds"
            " tags, or every process class ids"
        )
    return datasets.Dataset(datasets.table.concat_tables(kept))


if TYPE_CHECKING:  # the patches are mixed into an evaluate.Metric: its attributes are theirs
    from evaluate import Metric as _PatchedBase
else:
    _PatchedBase = object


class EvaluatePatches(_PatchedBase):
    """The overrides of ``evaluate.Metric`` that validate before the cache, score directly, keep a
    failed call from spoiling the object, and make distributed runs safe."""

    # evaluate.Metric sets these to None in its __init__ and to their values in untyped methods, so the
    # checker cannot tell their types: as the patches use them (annotations only, nothing is set here)
    writer: Any  # a datasets ArrowWriter, or None
    buf_writer: pa.BufferOutputStream | None
    cache_file_name: str | None
    filelock: Any  # a datasets FileLock, or None
    filelocks: list | None
    file_paths: list[str] | None
    _first: tuple | None  # (side, sentence, position, value) of the first item added

    # ---------------------------------------------------------------- the input path

    # PATCH compute. evaluate's Metric.compute adds the inputs to its Arrow cache, reads them back and only
    # then calls _compute, where the options are first seen: a typo costs a full write and read, and a whole
    # corpus handed to compute is encoded row by row. Here options are checked first, and one process with
    # nothing added scores the inputs directly.
    def compute(
        self, *, predictions: Any = None, references: Any = None, **kwargs: Any
    ) -> dict[str, Any] | None:
        """Score the inputs given here and everything added before (see the Args below).

        Options are checked before anything is read or the cache touched, so that a typo costs
        nothing. With nothing added before and one process (the common case), the inputs are
        validated here and scored directly, without evaluate's cache.
        """
        names = self._feature_names()
        given = {"predictions": predictions, "references": references, **kwargs}
        if isinstance(given.get("subgroups"), Iterator):  # a generator: one pass, kept as a list
            given["subgroups"] = list(given["subgroups"])
        missing = [k for k in names if k not in given]
        if missing and not (predictions is None and references is None):  # evaluate's own message
            raise ValueError(
                f"Evaluation module inputs are missing: {missing}. All required inputs are {names}"
            )
        inputs = {k: given.get(k) for k in names}
        options = {k: v for k, v in kwargs.items() if k not in names}
        check_options(self.config_name, options)  # before the cache is touched: a typo costs nothing
        label_names = options.get("label_names")
        if any(v is not None for v in inputs.values()):
            if self.writer is None and self.num_process == 1:
                return self._compute_directly(inputs, options, label_names)
            self.add_batch(**inputs)
        elif self.writer is None and self.num_process == 1:
            raise ValueError(
                "no sentences: compute got no predictions and references, and none were added"
                " (add_batch, add)"
            )
        elif self.writer is None:  # a process with an empty shard still takes part
            self.selected_feature_format = self._input_features(getattr(self, "_kind", None))
            self._init_writer()
        if self.process_id == 0 and self.num_process == 1:
            check_kind(getattr(self, "_kind", None), getattr(self, "_first", None), label_names)
        try:
            return super().compute(**options)
        except BaseException:
            self._release_cache()
            raise
        finally:
            self._forget_stream()

    def _compute_directly(self, inputs, options, label_names):
        """``_compute`` on validated inputs: evaluate's cache is neither written nor read."""
        if self.config_name in SPAN_CONFIGS:
            scored = "ranking" in (options.get("scores") or ())  # predictions carry a "score"
            sides = {  # model output (pipelines, GLiNER) as entities, then checked
                name: check_entity_types(
                    spans_from_outputs(
                        inputs[name], name, options.get("texts"), scored and name == "predictions"
                    ),
                    name,
                    scored=scored and name == "predictions",
                )
                for name in ("predictions", "references")
            }
            subgroups = inputs.get("subgroups")
            if (
                subgroups is not None
                and not isinstance(subgroups, (str, bytes))
                and len(subgroups) != len(sides["references"])
            ):
                raise ValueError(
                    f"subgroups has {len(subgroups)} names but there are {len(sides['references'])} examples"
                )
            return self._compute(**dict(inputs, **sides), **options)
        batch = check_batch(inputs["predictions"], inputs["references"])
        if self.config_name == "subgroups":
            check_subgroups(inputs.get("subgroups"), "subgroups")
            if len(inputs["subgroups"]) != len(batch.lengths):
                raise ValueError(
                    f"subgroups has {len(inputs['subgroups'])} names but there are"
                    f" {len(batch.lengths)} sentences"
                )
        check_kind(batch.kind, batch.first, label_names)
        if not len(batch.lengths):
            raise ValueError("no sentences: predictions and references are empty")
        inputs = dict(inputs, predictions=batch.predictions, references=batch.references)
        del batch  # its codes, if any, go with the checked lists, freed once laid out
        with temp_seed(self.seed):
            return self._compute(**inputs, **options)

    # PATCH add_batch / add. evaluate encodes a batch against the features and reports a bad row as
    # "Predictions and/or references don't match the expected format", naming no place, after part of a
    # stream may have been written. Here every batch is validated first, errors name their place, and a
    # batch is written as one Arrow table.
    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch of sentences, validated first, so that errors name their place and a
        failed call stores nothing. An empty batch adds nothing."""
        unknown = sorted(set(kwargs) - set(self._feature_names()))
        if unknown:
            raise ValueError(f"unknown input {unknown[0]!r}; inputs: {self._feature_names()}")
        if isinstance(kwargs.get("subgroups"), Iterator):  # a generator: one pass, kept as a list
            kwargs["subgroups"] = list(kwargs["subgroups"])
        if self.config_name in SPAN_CONFIGS:
            return self._add_entities(predictions, references, kwargs)
        batch = check_batch(predictions, references)
        if self.config_name in SUBGROUP_CONFIGS:
            check_subgroups(kwargs.get("subgroups"), "subgroups")
            if len(kwargs["subgroups"]) != len(batch.lengths):
                raise ValueError(
                    f"subgroups has {len(kwargs['subgroups'])} names but the batch has"
                    f" {len(batch.lengths)} sentences"
                )
        if not len(batch.lengths):
            return
        self._store(batch, kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one sentence, validated first (errors name the place in the sentence)."""
        unknown = sorted(set(kwargs) - set(self._feature_names()))
        if unknown:
            raise ValueError(f"unknown input {unknown[0]!r}; inputs: {self._feature_names()}")
        if self.config_name in SPAN_CONFIGS:
            return self._add_entities(
                [prediction], [reference], {k: [v] for k, v in kwargs.items()}, single=True
            )
        batch = check_batch(prediction, reference, single=True)
        if self.config_name in SUBGROUP_CONFIGS:
            check_subgroups([kwargs.get("subgroups")], "subgroups", single=True)
        self._store(batch, {k: [v] for k, v in kwargs.items()})

    def _store(self, batch, extra):
        """Write a validated batch to evaluate's cache, as one Arrow table in the format of its
        kind (evaluate's own encoding, one Python call per sentence, is not needed); a failed
        first write leaves no cache file behind."""
        kind, added = getattr(self, "_kind", None), getattr(self, "_added", 0)
        if kind and batch.kind and kind != batch.kind:
            side, i, j, value = batch.first
            raise ValueError(
                f"{side}[{added + i}][{j}] is a {batch.kind} ({value!r}) but earlier sentences hold"
                f" {kind}s; compute the stream added so far first, or add the same kind"
            )
        created = self.writer is None
        try:
            if created:
                self.selected_feature_format = self._input_features(kind or batch.kind)
                self._init_writer()
            table = arrow_columns(batch, kind or batch.kind)
            table.update(
                {name: pa.array(as_list(values), type=pa.string()) for name, values in extra.items()}
            )
            self.writer.write_table(
                pa.table(table).select(self._feature_names())
            )  # cast to the cache's schema
        except BaseException:
            if created:
                self._drop_writer()
            raise
        if batch.first is not None and getattr(self, "_first", None) is None:
            side, i, j, value = batch.first
            self._first = (side, added + i, j, value)
        self._kind, self._added = kind or batch.kind, added + len(batch.lengths)

    def _input_features(self, kind):
        """evaluate's input format for tags (the default) or class ids."""
        return self.features[1] if kind == CLASS_ID else self.features[0]

    def _forget_stream(self):
        self._kind = self._first = None
        self._added = 0

    # PATCH a failed first write. evaluate leaves the cache file and its lock of a failed add_batch behind.
    def _drop_writer(self):
        """Forget the cache file a failed first write created, so that the next call starts clean."""
        writer, self.writer = self.writer, None
        del writer
        if self.cache_file_name is not None and os.path.exists(self.cache_file_name):
            os.remove(self.cache_file_name)
        if self.filelock is not None:
            self.filelock.release()
        self.cache_file_name = self.filelock = self.selected_feature_format = self.buf_writer = None
        self._forget_stream()

    # PATCH a failed compute. evaluate keeps the data, locks and cache files of a compute whose _compute
    # raised, and the next add_batch or compute on the object then fails; here they go as after a success.
    def _release_cache(self):
        """After a failed ``compute``: the data read, the locks held and the cache files go, as
        after a successful one, so that the object stays usable."""
        self.data = None
        self.buf_writer = None
        for lock, path in reversed(list(zip(self.filelocks or [], self.file_paths or []))):
            if os.path.exists(path):
                os.remove(path)
            if lock is not None:
                lock.release()
        self.file_paths = self.filelocks = None
        self._remove_join_logs()

    # PATCH distributed runs. evaluate's process 0 reads every process's cache file with one format, so a
    # process that added nothing (its file empty, of the default format) breaks the read; and two runs that
    # share an experiment_id and a cache_dir silently read each other's files. Join logs detect the second,
    # _read_caches skips empty files.
    # ---------------------------------------------------------------- distributed runs

    def _join_log(self, process_id):
        return os.path.join(self.data_dir, f"{self.experiment_id}-{self.num_process}-{process_id}.joined")

    def _init_writer(self, timeout=1):
        super()._init_writer(timeout)
        if self.num_process > 1 and not self.keep_in_memory:  # after the rendez-vous: one line per process
            with open(self._join_log(self.process_id), "a") as f:
                f.write(f"{uuid.uuid4().hex}\n")

    # PATCH reading the cache. evaluate memory-maps the whole cache file, and every page of its tag strings
    # read stays resident; one process that added tag strings reads its file one record batch at a time
    # into codes instead (core.cache.CachedColumns), so that a stream's peak memory is a compute's.
    def _finalize(self):
        if self.num_process == 1 and not self.keep_in_memory and self._reads_codes():
            if self.writer is not None:
                self.writer.finalize()
            self.writer = None
            self.file_paths, self.filelocks = self._get_all_cache_files()
            self.data = CachedColumns(self.file_paths[0])
            return None
        if self.num_process == 1 or self.process_id != 0 or self.keep_in_memory:
            return super()._finalize()
        if self.writer is not None:
            self.writer.finalize()
        self.writer = None
        self.file_paths, self.filelocks = self._get_all_cache_files()
        self._check_one_run()
        self.data = _read_caches(self.file_paths)

    def _reads_codes(self):
        """Whether the cache holds tag strings of a tag config (what CachedColumns reads)."""
        return self.config_name not in SPAN_CONFIGS and getattr(self, "_kind", None) == TAG

    def _check_one_run(self):
        """Raise unless exactly one process of each process_id joined this run: two runs that
        share an ``experiment_id`` and a cache directory would otherwise read each other's data."""
        for process_id in range(self.num_process):
            path = self._join_log(process_id)
            joined = open(path).read().split() if os.path.exists(path) else []
            if len(joined) != 1:
                self._remove_join_logs()
                raise ValueError(
                    f"process {process_id} of experiment_id {self.experiment_id!r} joined {len(joined)} times in"
                    f" {self.data_dir}: two distributed runs share this experiment_id and cache_dir, and their"
                    f" data would mix; give each run its own experiment_id (one value shared by its processes,"
                    f" e.g. a uuid made by process 0 and broadcast)"
                )

    def _remove_join_logs(self):
        if self.num_process > 1 and self.process_id == 0:
            for process_id in range(self.num_process):
                if os.path.exists(self._join_log(process_id)):
                    os.remove(self._join_log(process_id))

    def _add_entities(self, predictions, references, extra, single=False):
        """The span configs' ``add_batch`` / ``add``: entities checked (dicts of lists made lists of
        dicts), then stored by evaluate, a list of entity dicts per example."""
        # what the Arrow cast would change is checked now (shape, value types); offsets at compute
        sides = {  # model output is stored as its entities' label, start and end
            name: check_entity_types(
                spans_from_outputs(column, name[:-1] if single else name),
                name[:-1] if single else name,
                single=single,
            )
            for name, column in (("predictions", predictions), ("references", references))
        }
        if not single and has_doubt(sides["references"]) or single and has_doubt([sides["references"]]):
            raise ValueError(
                "references hold doubt (alternatives, vague labels or optional entities), which compute"
                "(predictions=..., references=...) resolves; add_batch and add store plain entities"
            )
        for name, column in sides.items():
            label = name[:-1] if single else name
            extras = split_extras(column, label)[1]
            if extras is not None:
                key, values = next(iter(extras.values.items()))
                i, j = extras.place(next(k for k, v in enumerate(values) if v is not None))
                raise ValueError(
                    f"{f'{label}[{j}]' if single else f'{label}[{i}][{j}]'} has {key!r}: entity extras"
                    " (attributes, fragments, optional) are read by compute(predictions=...,"
                    " references=...); add_batch and add store label, start and end"
                )
        if self.config_name in SUBGROUP_CONFIGS:
            check_subgroups(extra.get("subgroups"), "subgroups", single=single)
        return super().add_batch(**sides, **extra)
