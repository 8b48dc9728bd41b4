#!/bin/sh
# Build the Debian 13 (trixie) root tree the deterministic UML testbed boots on
# (docs/linux-testbed.md, "The deterministic UML testbed"): mmdebstrap from Debian's archive,
# the traffic tools (flent, netperf, irtt, iperf3), iproute2, ethtool, python3, ping, tcpdump
# (the l4s test's captures), mount, procps.  Usage: uml_root.sh DIR.  Idempotent: a finished
# tree has DIR/.msfc-root holding the package list it was made with; a different list or an
# unfinished tree is rebuilt.
set -eu
DIR=${1:?usage: uml_root.sh DIR}
SUITE=${MSFC_UML_SUITE:-trixie}
# the Debian archive this machine's apt uses (deb822 sources or sources.list), unless given
apt_mirror() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^Types:/ { deb = ($0 ~ /(^|[ \t])deb([ \t]|$)/) }
		     /^URIs:/ && deb { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f"
	done | head -n 1
	[ -f /etc/apt/sources.list ] &&
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' \
			/etc/apt/sources.list
}
MIRROR=${MSFC_UML_MIRROR:-$(apt_mirror | head -n 1)}
if [ -z "$MIRROR" ]; then
	echo "uml-root: no Debian archive in this machine's apt sources: give one with" \
		"MSFC_UML_MIRROR=<URL of a Debian archive>" >&2
	exit 1
fi
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PKGS="mount,procps,flent,netperf,irtt,iperf3,iproute2,ethtool,python3,iputils-ping,tcpdump"
STAMP="$SUITE $MIRROR $PKGS"

if [ -f "$DIR/.msfc-root" ] && [ "$(cat "$DIR/.msfc-root")" = "$STAMP" ]; then
	echo "uml-root: $DIR is up to date ($SUITE: $PKGS)"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "uml-root: mmdebstrap needs root here (it runs in root mode); run as root" >&2
	exit 1
fi
if ! command -v mmdebstrap > /dev/null; then
	echo "uml-root: installing mmdebstrap (apt-get)"
	if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
		--no-install-recommends mmdebstrap > /dev/null; then
		echo "uml-root: cannot install mmdebstrap with apt-get: install it (Debian package" \
			"'mmdebstrap') or check the network to the Debian archive" >&2
		exit 1
	fi
fi
if [ ! -f "$KEYRING" ]; then
	echo "uml-root: $KEYRING missing: install debian-archive-keyring" >&2
	exit 1
fi
rm -rf "$DIR.new"
mkdir -p "$(dirname "$DIR")"
echo "uml-root: mmdebstrap $SUITE into $DIR ($PKGS)"
if ! mmdebstrap --quiet --variant=apt --include="$PKGS" "$SUITE" "$DIR.new" \
	"deb [signed-by=$KEYRING] $MIRROR $SUITE main"; then
	rm -rf "$DIR.new"
	echo "uml-root: mmdebstrap failed: is $MIRROR reachable (network to Debian's archive)?" >&2
	exit 1
fi
# mount points the testbed's init uses (tmpfs on /dev/shm for Flent's multiprocessing) and
# /run/mount (mount(8)'s lock): a boot that must create them differs from every later one
# (msfc.linux.uml.TREE_DIRS, which also makes them in older trees)
mkdir -p "$DIR.new/dev/shm" "$DIR.new/msfc/kdir" "$DIR.new/job" "$DIR.new/run/mount"
echo "$STAMP" > "$DIR.new/.msfc-root"
rm -rf "$DIR"
mv "$DIR.new" "$DIR"
echo "uml-root: done: $DIR ($(du -sm "$DIR" | cut -f1) MB)"
