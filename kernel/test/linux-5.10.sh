#!/bin/sh
# Debian 11's linux-source-5.10 for kernel-5.10 (kernel/Makefile): downloaded with apt-get from
# bullseye-security and bullseye through apt state of its own under DIR/apt (the system's apt
# sources stay as they are), unpacked into DIR/linux-source-5.10.
# Usage: linux-5.10.sh DIR
set -e
dir=$1
[ -n "$dir" ] || { echo "usage: linux-5.10.sh DIR" >&2; exit 1; }
[ -f "$dir/linux-source-5.10/.unpacked" ] && exit 0
apt="$dir/apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/deb"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat > "$apt/sources.list" <<EOS
deb [signed-by=$keyring] http://deb.debian.org/debian bullseye main
deb [signed-by=$keyring] http://deb.debian.org/debian-security bullseye-security main
EOS
opts="-o Dir::Etc::sourcelist=$apt/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get $opts update -qq
rm -f "$apt/deb"/linux-source-5.10_*.deb
# shellcheck disable=SC2086
(cd "$apt/deb" && apt-get $opts download -qq linux-source-5.10)
deb=$(ls "$apt/deb"/linux-source-5.10_*.deb)
echo "linux-5.10: $(basename "$deb")"
rm -rf "$apt/x" "$dir/linux-source-5.10"
dpkg-deb -x "$deb" "$apt/x"
tar -C "$dir" -xf "$apt/x/usr/src/linux-source-5.10.tar.xz"
rm -rf "$apt/x"
basename "$deb" > "$dir/linux-source-5.10/.debian-package"
touch "$dir/linux-source-5.10/.unpacked"
