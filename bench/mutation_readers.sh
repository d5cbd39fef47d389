#!/bin/sh
# Mutation testing of ner_recall/pipeline/record.py and ner_recall/readers/formats.py with mutmut, each against its own test file
# (bench/mutation.md). mutmut names a mutant by the module path of its file, and the tests import
# the root modules as the package ner_recall (bootstrap.py): the run happens in a scratch copy where
# the modules also sit in a folder ner_recall/, and bootstrap points the package there.
#   sh bench/mutation_readers.sh ner_record  (or ner_formats); then: cd $SCRATCH && mutmut results
set -e
MODULE=${1:?give ner_record or ner_formats}
TESTS=${2:-tests/test_${MODULE#ner_}.py}
[ "$MODULE" = ner_formats ] && TESTS=${2:-tests/test_formats.py}
REPO=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${SCRATCH:-/tmp/mutation_$MODULE}
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH/ner_recall"
(cd "$REPO" && git ls-files -z | xargs -0 tar -c) | tar -x -C "$SCRATCH"
cp "$SCRATCH"/ner_*.py "$SCRATCH/ner_recall/"
sed -i 's|module.__path__ = \[str(ROOT)\]|module.__path__ = [str(ROOT / "ner_recall")]|' "$SCRATCH/bootstrap.py"
{
    echo "[mutmut]"
    echo "source_paths=ner_recall/$MODULE.py"
    echo "also_copy="
    echo "    bootstrap.py"
    for f in "$SCRATCH"/ner_*.py; do echo "    $(basename "$f")"; done
    for f in "$SCRATCH"/ner_recall/ner_*.py; do
        [ "$(basename "$f")" = "$MODULE.py" ] || echo "    ner_recall/$(basename "$f")"
    done
    echo "pytest_add_cli_args_test_selection="
    echo "    $TESTS"
    echo "    -k"
    echo "    not command_line"
    echo "pytest_add_cli_args="
    echo "    -p"
    echo "    no:cacheprovider"
} > "$SCRATCH/setup.cfg"
cd "$SCRATCH" && mutmut run --max-children 2
