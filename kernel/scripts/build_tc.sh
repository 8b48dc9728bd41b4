#!/bin/sh
# Build iproute2's tc with the msfc front end.  Usage: build_tc.sh IPROUTE2_SRC_DIR
# (the directory `apt-get source iproute2` unpacked, e.g. iproute2-6.1.0)
set -e
src=$1
here=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$src/tc/q_fq_codel.c" ] || { echo "build_tc.sh: $src is not an iproute2 source tree" >&2; exit 1; }
for f in iproute2/q_msfc.c include/uapi/linux/pkt_sched_msfc.h; do
	cmp -s "$here/$f" "$src/tc/$(basename $f)" || cp "$here/$f" "$src/tc/"
done
grep -q "q_msfc.o" "$src/tc/Makefile" || \
	sed -i 's/^TCMODULES += q_fq_codel.o$/&\nTCMODULES += q_msfc.o/' "$src/tc/Makefile"
cd "$src"
[ -f config.mk ] || ./configure > /dev/null
make -s -j2 SUBDIRS="lib tc" > /dev/null
