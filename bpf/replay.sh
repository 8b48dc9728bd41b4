# Job of bpf/replay.py in the qemu VM: every trace of /job/replay/ into msfc_bpf at the root
# of a dummy device through the replay module (bpf/replay/msfc_bpf_replay.c).  Per trace NAME:
# NAME.words (the loader's words), NAME.flows, NAME.ops (E and D lines); the decisions go to
# /out/replay/NAME.out, the loader's output to NAME.load, the exit codes of the steps to
# NAME.rc ("load add replay del unload").
L=/job/msfc-bpf
TC=${TC:-/usr/sbin/tc}
IP=${IP:-/usr/bin/ip}
mkdir -p /out/replay
mount -t bpf bpf /sys/fs/bpf
# no IPv6 on the device: the kernel's own packets (MLD) would pass its qdisc
sysctl -qw net.ipv6.conf.default.disable_ipv6=1
$IP link add dum0 type dummy || exit 1
$IP link set dum0 up
insmod /job/msfc_bpf_replay.ko || exit 1
for w in /job/replay/*.words; do
	n=$(basename "$w" .words)
	o=/out/replay/$n
	$L load $(cat "$w") > $o.load 2>&1
	rl=$?
	$TC qdisc add dev dum0 root msfc_bpf 2>> $o.load
	ra=$?
	{ echo "dev dum0 flows $(cat /job/replay/$n.flows)"; cat /job/replay/$n.ops; } > /proc/msfc_bpf_replay 2>> $o.load
	rr=$?
	cat /proc/msfc_bpf_replay > $o.out 2>> $o.load
	$TC qdisc del dev dum0 root 2>> $o.load
	rd=$?
	$L unload >> $o.load 2>&1
	echo "$rl $ra $rr $rd $?" > $o.rc
done
dmesg > /out/replay_dmesg.txt
