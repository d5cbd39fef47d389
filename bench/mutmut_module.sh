#!/bin/bash
# One module's mutation run with mutmut 3 against its own test files, in a copy of the tree:
#   bench/mutmut_module.sh ner_doubt tests/test_doubt.py
# The copy is /tmp/mut-MODULE (the committed tree, git archive HEAD). mutmut keys its mutants by the
# module's name as imported from the copy's root ("ner_doubt"); the tests import the root as the
# package ner_recall (bootstrap.py) and the metric through evaluate, so after mutmut has written the
# mutated module, its module name is set to the key mutmut expects (one line after mutmut's import),
# and the run starts again. Scores: `mutmut results --all true` in the copy (results.txt).
set -u
module=$1
tests=$2
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
copy=/tmp/mut-$module
rm -rf "$copy"
mkdir -p "$copy"
git -C "$repo" archive HEAD | tar -x -C "$copy"
cd "$copy" || exit 1
printf '[mutmut]\nsource_paths=.\nonly_mutate=%s.py\npytest_add_cli_args_test_selection=%s\npytest_add_cli_args=-p no:cacheprovider -q -x\n' \
    "$module" "$tests" > setup.cfg
mutmut run --max-children 2 > generate.log 2>&1 &
pid=$!
for _ in $(seq 1 120); do
    grep -q "Running stats" generate.log 2>/dev/null && break
    sleep 1
done
kill "$pid" 2>/dev/null
sleep 2
kill -9 "$pid" 2>/dev/null
line=$(grep -n "^from mutmut.mutation.trampoline import" "mutants/$module.py" | head -1 | cut -d: -f1)
sed -i "${line}a __name__ = \"$module\"  # the key mutmut records" "mutants/$module.py"
rm -f mutants/mutmut-stats.json
mutmut run --max-children 2 > run.log 2>&1
mutmut results --all true > results.txt 2>&1
