#!/usr/bin/env bash
# Runs every ns-3 test suite of the project, one process per suite, and
# prints one line per test case and a closing "N passed, M failed" line.
set -u
runner=${1:-build/msfc-test-runner}
if [ ! -x "$runner" ]; then
    echo "run-ns3-tests: $runner not found; run 'make build' first" >&2
    exit 2
fi
passed=0
failed=0
for suite in $("$runner" --list); do
    out=$("$runner" --suite="$suite" --verbose 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -E '^\s+(PASS|FAIL|SKIP)|^\s+test=' | sed "s/^/[$suite] /"
    p=$(printf '%s\n' "$out" | grep -cE '^\s+PASS')
    f=$(printf '%s\n' "$out" | grep -cE '^\s+FAIL')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        printf '%s\n' "$out" | tail -n 20
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "ns-3 test cases: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
