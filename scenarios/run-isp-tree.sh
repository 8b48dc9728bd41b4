#!/bin/sh
# Runs the ISP-tree benchmark for several schedulers, one after another.
#
#   scenarios/run-isp-tree.sh [-p PRESET] [-b BUILD_DIR] OUT_DIR [SCHEDULER ...] [-- OPTIONS]
#
# Defaults: preset quick, build dir ./build, the thesis's four schedulers
# (PfifoFast CoDel FqCoDel Msfc).  Results go to OUT_DIR/<scheduler>/; options after
# "--" are passed to every run (e.g. -- --rng-run=2); stderr of each run goes to
# OUT_DIR/<scheduler>.stderr.  Exits non-zero if a run fails.
set -eu
preset=quick
build=build
while getopts p:b:h opt; do
    case $opt in
    p) preset=$OPTARG ;;
    b) build=$OPTARG ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
    sed -n '2,10p' "$0" >&2
    exit 2
fi
out=$1
shift
schedulers=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    schedulers="$schedulers $1"
    shift
done
[ $# -gt 0 ] && shift
[ -n "$schedulers" ] || schedulers="PfifoFast CoDel FqCoDel Msfc"
prog="$build/scenario-isp-tree"
if [ ! -x "$prog" ]; then
    echo "run-isp-tree: $prog not found: build first (make build)" >&2
    exit 2
fi
mkdir -p "$out"
start=$(date +%s)
for s in $schedulers; do
    t0=$(date +%s)
    echo "run-isp-tree: $s ($preset) -> $out/$s" >&2
    "$prog" --preset="$preset" --scheduler="$s" --out="$out/$s" "$@" 2> "$out/$s.stderr" || {
        rc=$?
        echo "run-isp-tree: $s failed (exit $rc), see $out/$s.stderr" >&2
        tail -3 "$out/$s.stderr" >&2
        exit $rc
    }
    echo "run-isp-tree: $s done in $(( $(date +%s) - t0 )) s" >&2
done
echo "run-isp-tree: all done in $(( $(date +%s) - start )) s" >&2
