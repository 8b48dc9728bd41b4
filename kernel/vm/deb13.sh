#!/bin/sh
# Debian 13 (trixie) kernels for the qemu test VM, on a Debian 12 machine.  Their headers
# packages need Debian 13's gcc-14 and kbuild tools, which do not run on Debian 12, so DKMS
# and the probe build run in a Debian 13 root tree (mmdebstrap) that holds dkms and the
# headers; the kernel images are downloaded and unpacked as deps.sh does for Debian 12's.
# Debian's archive is read with apt's own state under DIR/apt (the machine's apt sources are
# not touched).
#
#   deb13.sh newest DIR          the ABI name of the kernel trixie-backports' metapackage
#                                linux-image-cloud-amd64 depends on (e.g. 7.3.4+deb13-cloud-amd64)
#   deb13.sh deps DIR KVER...    the kernel images under DIR/linux-image-KVER/root and the
#                                build root DIR/deb13-root with dkms and linux-headers-KVER,
#                                and Debian 13's iproute2 (its tc goes into the VM with them)
#   deb13.sh dkms DIR TREE VERSION KVER...
#                                dkms_install.sh in the build root with the staged DKMS tree
#                                TREE: one line per kernel, its version and the module's path
#                                on this machine
#   deb13.sh kbuild DIR MODDIR KVER
#                                the out-of-tree module in MODDIR (its Kbuild) built against
#                                KVER's headers in the build root; the .ko files land in MODDIR
#   deb13.sh run DIR CMD...      CMD in the build root (/proc mounted, in a private mount
#                                namespace); DIR/deb13-root/msfc is the place to share files
#   deb13.sh bpf-root DIR        the BPF build root DIR/deb13-bpf-root: Debian 13's clang,
#                                llvm, libbpf-dev and bpftool (the BPF qdisc, bpf/Makefile)
#   deb13.sh bpf-run DIR CMD...  CMD in the BPF build root, as run does
#
# DIR is the VM build directory (kernel/build/vm).  MSFC_DEBIAN_MIRROR= names the archive
# (default: the one this machine's apt uses).
set -eu
cmd=${1:?usage: deb13.sh newest|deps|dkms|kbuild|run|bpf-root|bpf-run DIR ...}
dir=${2:?usage: deb13.sh $cmd DIR ...}
shift 2
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
APT_DIR=$dir/apt
ROOT=$dir/deb13-root
BPF_ROOT=$dir/deb13-bpf-root
BPF_PKGS="clang,llvm,libbpf-dev,bpftool,make,gcc,libc6-dev,libelf-dev,zlib1g-dev,libzstd-dev,pkg-config,xz-utils,zstd"

mirror() {
	if [ -n "${MSFC_DEBIAN_MIRROR:-}" ]; then
		echo "$MSFC_DEBIAN_MIRROR"
		return
	fi
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk '/^Types:/ { deb = ($0 ~ /(^|[ \t])deb([ \t]|$)/) }
			     /^URIs:/ && deb { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f"
		done
		[ -f /etc/apt/sources.list ] &&
			awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' \
				/etc/apt/sources.list
	} | head -n 1
}

# apt-get / apt-cache with the trixie and trixie-backports lists of APT_DIR; the lists are
# fetched when missing or older than a day
apt_opts() {
	echo "-o Dir::Etc::sourcelist=$APT_DIR/sources.list -o Dir::Etc::sourceparts=$APT_DIR/sources.list.d" \
		"-o Dir::State::Lists=$APT_DIR/lists -o Dir::Cache=$APT_DIR/cache" \
		"-o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
}
apt_update() {
	m=$(mirror)
	[ -n "$m" ] || { echo "deb13.sh: no Debian archive in this machine's apt sources: give one with MSFC_DEBIAN_MIRROR=" >&2; exit 1; }
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" "$APT_DIR/sources.list.d"
	printf 'deb [signed-by=%s] %s trixie main\ndeb [signed-by=%s] %s trixie-backports main\n' \
		"$KEYRING" "$m" "$KEYRING" "$m" > "$APT_DIR/sources.list.new"
	if cmp -s "$APT_DIR/sources.list.new" "$APT_DIR/sources.list" &&
		[ -n "$(find "$APT_DIR/lists" -maxdepth 1 -name '*trixie-backports*Packages*' -mtime -1)" ]; then
		rm -f "$APT_DIR/sources.list.new"
		return
	fi
	mv "$APT_DIR/sources.list.new" "$APT_DIR/sources.list"
	# shellcheck disable=SC2046
	apt-get $(apt_opts) -qq update > "$APT_DIR/update.log" 2>&1 || {
		cat "$APT_DIR/update.log" >&2
		echo "deb13.sh: apt-get update of trixie and trixie-backports failed" >&2
		exit 1
	}
}

case $cmd in
newest)
	apt_update
	# shellcheck disable=SC2046
	k=$(apt-cache $(apt_opts) show linux-image-cloud-amd64/trixie-backports 2> /dev/null |
		sed -n 's/^Depends:.*linux-image-\([0-9][^ ]*-cloud-amd64\) .*/\1/p' | head -n 1)
	[ -n "$k" ] || { echo "deb13.sh: trixie-backports has no linux-image-cloud-amd64" >&2; exit 1; }
	echo "$k"
	;;
deps)
	[ $# -gt 0 ] || exit 0
	apt_update
	m=$(mirror)
	for v in "$@"; do
		d="$dir/linux-image-$v"
		[ -f "$d/.unpacked" ] && continue
		rm -rf "$d" && mkdir -p "$d"
		# Debian 13's 7.x packages split the kernel: linux-image-KVER depends on
		# linux-binary-KVER (vmlinuz), linux-modules-KVER and linux-base-KVER (config)
		# shellcheck disable=SC2046
		pkgs=$(apt-cache $(apt_opts) show "linux-image-$v" | sed -n 's/^Depends: //p' | head -n 1 |
			tr ',' '\n' | sed -n "s/^ *\(linux-[a-z]*-$v\) .*/\1/p" | tr '\n' ' ')
		# shellcheck disable=SC2046
		(cd "$d" && apt-get $(apt_opts) -qq download "linux-image-$v" $pkgs) || {
			echo "deb13.sh: apt-get download linux-image-$v $pkgs failed" >&2
			exit 1
		}
		for deb in "$d"/*.deb; do dpkg-deb -x "$deb" "$d/root"; done
		rm -f "$d"/*.deb
		[ -e "$d/root/lib" ] || ln -s usr/lib "$d/root/lib"
		mkdir -p "$d/root/boot"
		for f in "$d/root/usr/lib/modules/$v/vmlinuz" "$d/root/boot/vmlinuz-$v"; do
			[ -f "$f" ] && [ ! -e "$d/root/boot/vmlinuz-$v" ] && ln "$f" "$d/root/boot/vmlinuz-$v"
		done
		[ -f "$d/root/boot/vmlinuz-$v" ] || { echo "deb13.sh: linux-image-$v and $pkgs hold no vmlinuz" >&2; exit 1; }
		depmod -b "$d/root" "$v"
		touch "$d/.unpacked"
	done
	pkgs="dkms,kmod,make,iproute2"
	for v in "$@"; do pkgs="$pkgs,linux-headers-$v"; done
	stamp="$m $pkgs"
	if [ -f "$ROOT/.msfc-root" ] && [ "$(cat "$ROOT/.msfc-root")" = "$stamp" ]; then
		exit 0
	fi
	command -v mmdebstrap > /dev/null || DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends mmdebstrap > /dev/null
	rm -rf "$ROOT.new"
	echo "deb13.sh: mmdebstrap trixie into $ROOT ($pkgs)"
	mmdebstrap --quiet --variant=apt --include="$pkgs" trixie "$ROOT.new" \
		"deb [signed-by=$KEYRING] $m trixie main" \
		"deb [signed-by=$KEYRING] $m trixie-backports main" || {
		rm -rf "$ROOT.new"
		echo "deb13.sh: mmdebstrap of the Debian 13 build root failed" >&2
		exit 1
	}
	mkdir -p "$ROOT.new/msfc"
	echo "$stamp" > "$ROOT.new/.msfc-root"
	rm -rf "$ROOT"
	mv "$ROOT.new" "$ROOT"
	;;
dkms)
	tree=${1:?usage: deb13.sh dkms DIR TREE VERSION KVER...} ver=${2:?}
	shift 2
	here=$(cd "$(dirname "$0")" && pwd)
	[ -f "$tree/dkms.conf" ] || { echo "deb13.sh: no $tree/dkms.conf (make -C kernel dkms-src)" >&2; exit 2; }
	rm -rf "$ROOT/msfc/dkms" && mkdir -p "$ROOT/msfc/dkms"
	cp -r "$tree" "$ROOT/msfc/dkms/msfc-$ver"
	cp "$here/dkms_install.sh" "$ROOT/msfc/dkms/"
	"$0" run "$dir" sh /msfc/dkms/dkms_install.sh "/msfc/dkms/msfc-$ver" "$ver" "$@" \
		> "$ROOT/msfc/dkms/modules.txt"
	while read -r k ko; do echo "$k $ROOT$ko"; done < "$ROOT/msfc/dkms/modules.txt"
	;;
kbuild)
	mod=${1:?usage: deb13.sh kbuild DIR MODDIR KVER} kver=${2:?}
	[ -d "$ROOT/lib/modules/$kver/build" ] || { echo "deb13.sh: no headers for $kver in $ROOT (make -C kernel vm-deps)" >&2; exit 1; }
	rm -rf "$ROOT/msfc/kbuild-$kver" && mkdir -p "$ROOT/msfc"
	cp -r "$mod" "$ROOT/msfc/kbuild-$kver"
	"$0" run "$dir" make -s -C "/lib/modules/$kver/build" M="/msfc/kbuild-$kver" modules
	cp "$ROOT/msfc/kbuild-$kver"/*.ko "$mod/"
	;;
bpf-root)
	m=$(mirror)
	[ -n "$m" ] || { echo "deb13.sh: no Debian archive in this machine's apt sources: give one with MSFC_DEBIAN_MIRROR=" >&2; exit 1; }
	stamp="$m $BPF_PKGS"
	if [ -f "$BPF_ROOT/.msfc-root" ] && [ "$(cat "$BPF_ROOT/.msfc-root")" = "$stamp" ]; then
		exit 0
	fi
	command -v mmdebstrap > /dev/null || DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends mmdebstrap > /dev/null
	rm -rf "$BPF_ROOT.new"
	echo "deb13.sh: mmdebstrap trixie into $BPF_ROOT ($BPF_PKGS)"
	mmdebstrap --quiet --variant=apt --include="$BPF_PKGS" trixie "$BPF_ROOT.new" \
		"deb [signed-by=$KEYRING] $m trixie main" || {
		rm -rf "$BPF_ROOT.new"
		echo "deb13.sh: mmdebstrap of the Debian 13 BPF build root failed" >&2
		exit 1
	}
	mkdir -p "$BPF_ROOT.new/msfc"
	echo "$stamp" > "$BPF_ROOT.new/.msfc-root"
	rm -rf "$BPF_ROOT"
	mv "$BPF_ROOT.new" "$BPF_ROOT"
	;;
bpf-run)
	[ -f "$BPF_ROOT/.msfc-root" ] || { echo "deb13.sh: no BPF build root $BPF_ROOT (deb13.sh bpf-root)" >&2; exit 1; }
	exec unshare --mount --propagation private sh -c \
		'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$BPF_ROOT" "$@"
	;;
run)
	[ -f "$ROOT/.msfc-root" ] || { echo "deb13.sh: no build root $ROOT (make -C kernel vm-deps)" >&2; exit 1; }
	# objtool and dkms read /proc; the mount ends with the namespace
	exec unshare --mount --propagation private sh -c \
		'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$ROOT" "$@"
	;;
*)
	echo "usage: deb13.sh newest|deps|dkms|kbuild|run|bpf-root|bpf-run DIR ..." >&2
	exit 2
	;;
esac
