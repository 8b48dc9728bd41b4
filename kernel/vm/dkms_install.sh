#!/bin/sh
# DKMS round trip for the staged source tree: remove any earlier msfc/<version>, then
# dkms add, then build and install for every KERNEL_VERSION; prints one line per kernel:
# the kernel version and the installed module's path.
# Usage: dkms_install.sh STAGED_TREE VERSION KERNEL_VERSION...
set -e
src=$1 ver=$2
shift 2
[ -f "$src/dkms.conf" ] || { echo "dkms_install.sh: no $src/dkms.conf (make -C kernel dkms-src)" >&2; exit 2; }
command -v dkms > /dev/null || { echo "dkms_install.sh: dkms missing (make -C kernel vm-deps)" >&2; exit 1; }
for kver in "$@"; do
	[ -d "/lib/modules/$kver/build" ] || { echo "dkms_install.sh: no headers for $kver: apt-get install linux-headers-$kver" >&2; exit 1; }
done
# A source tree already registered under this version is replaced by the staged one.
if dkms status -m msfc -v "$ver" 2> /dev/null | grep -q .; then
	dkms remove -m msfc -v "$ver" --all > /dev/null 2>&1
fi
rm -rf "/usr/src/msfc-$ver"
dkms add "$src" > /dev/null
for kver in "$@"; do
	dkms build -m msfc -v "$ver" -k "$kver" > "$src.build.log" 2>&1 || {
		echo "dkms_install.sh: dkms build failed, log:" >&2
		# dkms 2 (Debian 12) leaves make.log in build/, dkms 3 (Debian 13) names it in its output
		cat "$src.build.log" >&2
		cat "/var/lib/dkms/msfc/$ver/build/make.log" >&2 2> /dev/null || true
		exit 1
	}
	dkms install -m msfc -v "$ver" -k "$kver" --force > "$src.install.log" 2>&1 || {
		cat "$src.install.log" >&2
		exit 1
	}
	ko=$(find "/lib/modules/$kver/updates" -name 'sch_msfc.ko*' | head -n 1)
	[ -n "$ko" ] || { echo "dkms_install.sh: dkms install left no sch_msfc.ko under /lib/modules/$kver/updates" >&2; exit 1; }
	echo "$kver $ko"
done
