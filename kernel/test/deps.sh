#!/bin/sh
# Install what `make -C kernel test` needs (Debian bookworm): kernel source + build tools,
# iproute2 source + its build deps, traffic tools for the boot test.
set -e
PKGS="linux-source-6.12 flex bison libelf-dev bc make gcc cpio python3 dpkg-dev pkg-config \
      libmnl-dev libelf-dev libcap-dev libbpf-dev iperf3 iproute2"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# `apt-get source iproute2` needs a deb-src entry
if ! grep -rqs "^Types:.*deb-src\|^deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	cat > /etc/apt/sources.list.d/msfc-deb-src.sources <<EOS
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	need_update=1
fi
if [ -n "$missing" ] || [ -n "$need_update" ]; then
	apt-get -o DPkg::Lock::Timeout=900 update -qq
	[ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $missing
fi
