#!/bin/sh
# Install what the qemu test VM needs (Debian bookworm): qemu, busybox, dkms, the traffic tools,
# perf, the headers of the guest kernels, and the guest kernel images themselves (downloaded with
# `apt-get download` and unpacked under kernel/build/vm/, not installed on the host).
# Usage: deps.sh VM_BUILD_DIR KERNEL_VERSION...
set -e
out=$1
shift
[ -n "$out" ] && [ $# -gt 0 ] || { echo "usage: deps.sh VM_BUILD_DIR KERNEL_VERSION..." >&2; exit 2; }
PKGS="qemu-system-x86 busybox-static dkms iperf3 irtt ethtool xz-utils cpio kmod gcc make dpkg-dev \
      pkg-config libmnl-dev libelf-dev libcap-dev libbpf-dev iproute2 linux-perf"
for v in "$@"; do PKGS="$PKGS linux-headers-$v"; done
apt="apt-get -o DPkg::Lock::Timeout=900"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	$apt update -qq
	DEBIAN_FRONTEND=noninteractive $apt install -y -qq --no-install-recommends $missing
fi
mkdir -p "$out"
for v in "$@"; do
	d="$out/linux-image-$v"
	[ -f "$d/.unpacked" ] && continue
	rm -rf "$d" && mkdir -p "$d"
	(cd "$d" && $apt download -qq "linux-image-$v" && dpkg-deb -x linux-image-"$v"_*.deb root &&
		rm -f linux-image-"$v"_*.deb)
	[ -f "$d/root/boot/vmlinuz-$v" ] || { echo "deps.sh: linux-image-$v has no /boot/vmlinuz-$v" >&2; exit 1; }
	depmod -b "$d/root" "$v"	# modules.dep is written by the package's postinst, not shipped
	touch "$d/.unpacked"
done
