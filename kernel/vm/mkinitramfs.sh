#!/bin/sh
# Build the base initramfs of the test VM: busybox (static), Debian's tc, ip, ethtool, iperf3
# and irtt with the libraries they load, the tc plugin q_msfc.so in Debian's TC_LIB_DIR, the
# DKMS-installed sch_msfc and the stock kernel's modules the tests use (decompressed, loaded
# in dependency order by /init).  A job (its /job/run.sh) is appended per boot as a second
# cpio archive.  With TC_ROOT (a Debian 13 root tree, vm/deb13.sh) its tc and the libraries
# it loads replace Debian 12's: a Debian 13 kernel is tested with Debian 13's tc.
# Usage: mkinitramfs.sh OUT.cpio.gz KERNEL_VERSION IMAGE_ROOT SCH_MSFC_KO Q_MSFC_SO [TC_ROOT]
set -e
out=$1 kver=$2 root=$3 msfc_ko=$4 plugin=$5 tc_root=$6
[ -n "$plugin" ] || { echo "usage: mkinitramfs.sh OUT KVER IMAGE_ROOT SCH_MSFC_KO Q_MSFC_SO [TC_ROOT]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
for f in "$root/lib/modules/$kver/modules.dep" "$msfc_ko" "$plugin" /bin/busybox; do
	[ -f "$f" ] || { echo "mkinitramfs.sh: missing $f (run make -C kernel vm-deps)" >&2; exit 1; }
done
st=$out.d
rm -rf "$st"
mkdir -p "$st/bin" "$st/sbin" "$st/usr/bin" "$st/usr/sbin" "$st/lib/modules" "$st/etc" \
	"$st/proc" "$st/sys" "$st/dev" "$st/run" "$st/tmp" "$st/var" "$st/out" "$st/job" \
	"$st/usr/lib/x86_64-linux-gnu/tc"
cp /bin/busybox "$st/bin/busybox"
# Debian's own tools, at their Debian paths (scripts call them by absolute path: busybox has
# applets of the same names).
for b in /usr/sbin/tc /usr/bin/ip /usr/sbin/ethtool /usr/bin/iperf3 /usr/bin/irtt; do
	real=$(readlink -f "$b")
	mkdir -p "$st$(dirname "$b")"
	cp "$real" "$st$b"
	ldd "$real" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do
		mkdir -p "$st$(dirname "$lib")"
		cp -L "$lib" "$st$lib"
	done
done
if [ -n "$tc_root" ]; then
	[ -x "$tc_root/usr/sbin/tc" ] || { echo "mkinitramfs.sh: no $tc_root/usr/sbin/tc (make -C kernel vm-deps)" >&2; exit 1; }
	cp "$tc_root/usr/sbin/tc" "$st/usr/sbin/tc"
	# the newer C library and the others replace Debian 12's (backward compatible)
	chroot "$tc_root" ldd /usr/sbin/tc | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do
		mkdir -p "$st$(dirname "$lib")"
		cp -L "$tc_root$lib" "$st$lib"
	done
fi
cp "$plugin" "$st/usr/lib/x86_64-linux-gnu/tc/q_msfc.so"
# Stock modules in dependency order (modprobe resolves them against the unpacked image).
MODS="virtio_pci virtio_blk veth ifb dummy sch_htb sch_prio sch_netem sch_cake cls_u32 cls_matchall \
      act_mirred sch_ingress tcp_bbr"
: > "$st/etc/modules.order"
for m in $MODS; do
	modprobe -S "$kver" -d "$root" --show-depends "$m" | while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		name=$(basename "$path" | sed 's/\.ko.*$//')
		grep -qx "$name" "$st/etc/modules.order" && continue
		case $path in
		*.xz) xz -dc "$path" > "$st/lib/modules/$name.ko" ;;
		*.zst) zstd -qdc "$path" > "$st/lib/modules/$name.ko" ;;
		*) cp "$path" "$st/lib/modules/$name.ko" ;;
		esac
		echo "$name" >> "$st/etc/modules.order"
	done
done
case $msfc_ko in
*.xz) xz -dc "$msfc_ko" > "$st/lib/modules/sch_msfc.ko" ;;
*) cp "$msfc_ko" "$st/lib/modules/sch_msfc.ko" ;;
esac
cp "$here/init.sh" "$st/init"
chmod 755 "$st/init"
(cd "$st" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$st"
