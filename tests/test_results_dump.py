"""Results stay as they were: ``bench/results_dump.py`` recomputed equals the committed dump, key by key."""

import json
import os
import sys

import pytest

from conftest import ROOT

DUMP = os.path.join(ROOT, "bench", "results_dump.json")


@pytest.fixture(scope="module")
def now():
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import results_dump

    return results_dump.dump()


def test_every_dumped_result_is_unchanged(now):
    with open(DUMP) as f:
        before = json.load(f)
    assert sorted(now) == sorted(before)
    changed = [key for key in before if before[key] != now[key]]
    assert not changed, f"results changed for {changed[:5]}"
