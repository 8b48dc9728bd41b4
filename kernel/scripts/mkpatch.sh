#!/bin/sh
# Write OUT_DIR/0001-net-sched-add-MSFC.patch: the MSFC qdisc as a patch against
# linux-source-6.12 (net/sched/{Kconfig,Makefile}, include/uapi/linux/pkt_sched.h, new files,
# the KUnit trace vectors generated from test/vectors; the generated differential set is left
# out of the patch).  Run by `make -C kernel patch`;
# PYTHON must have the msfc package (the project's .venv).
set -e
[ $# -eq 1 ] || { echo "usage: mkpatch.sh OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
: "${PYTHON:=$here/../.venv/bin/python}"
mkdir -p "$1"
outdir=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files="linux-source-6.12/net/sched/Kconfig linux-source-6.12/net/sched/Makefile \
       linux-source-6.12/net/sched/sch_fq_codel.c linux-source-6.12/include/uapi/linux/pkt_sched.h"
tar -C "$tmp" -xf /usr/src/linux-source-6.12.tar.xz $files
mv "$tmp/linux-source-6.12" "$tmp/a"
cp -r "$tmp/a" "$tmp/b"
(cd "$here" && "$PYTHON" -m scripts.prepare_tree --generated 0 --copy "$tmp/b")
out="$outdir/0001-net-sched-add-MSFC.patch"
{
	echo "net/sched: add MSFC (Multilevel Stochastically Fair CoDel)"
	echo
	echo "Priority classes served by a DRR with geometric quanta (quantum * ratio^class),"
	echo "SFQ-hashed flows with an inner DRR and CoDel per flow, classification by"
	echo "skb->priority, tc filters or a DSCP map; KUnit suite with cross-check traces."
	echo
	(cd "$tmp" && diff -ruN a b || true) | sed -E "s#^((---|\+\+\+) [^\t]*)\t.*#\1#"
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkpatch: $out"
