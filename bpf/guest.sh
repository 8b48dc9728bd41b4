# Job of `make -C bpf test` in the qemu VM (Debian 13's 7.3.4 kernel, CONFIG_NET_SCH_BPF=y):
# the loader refuses bad parameters, loads and registers msfc_bpf, tc puts it on the router's
# egress toward the server with its shaper as the bottleneck, ping crosses it, then three TCP
# uploads marked CS1, BE and AF41 (classes 0, 1, 2 of the default DSCP map) share it.  Before
# that, the package's files apply saved configurations at "boot" (msfc-apply).  Every
# step's exit code, stdout and stderr go to /out/<step>.{rc,out,err}; the host checks them.
. /job/net.sh
O=/out
L=/job/msfc-bpf
RATE=${RATE:-4000}
DURATION=${DURATION:-10}
step() {	# step NAME COMMAND...: run, keep rc/stdout/stderr
	name=$1
	shift
	"$@" > $O/$name.out 2> $O/$name.err
	echo $? > $O/$name.rc
}
# The package's boot path first, before anything mounts bpffs: the files of the .deb
# (/job/root.tar) unpacked at their places, saved configurations in /etc/msfc applied by the
# ifupdown hook as ifup runs it (and by msfc-apply as the systemd unit does).  The VM's
# /bin/sh is busybox's, which runs its own applets before the PATH's programs: MSFC_TC names
# Debian's tc, which a Debian router's "tc" is.
tar -xf /job/root.tar -C /
BOOT="env MSFC_TC=$TC MODE=start PHASE=post-up"
for d in bpf0 bpf1 mod0; do $IP link add $d type dummy && $IP link set $d up; done
$IP addr add 10.8.0.1/24 dev bpf0
printf '# shaped uplink\nbandwidth 10mbit prios 3\n\tratio 2   # three classes\n' > /etc/msfc/bpf0.bpf
step boot_bpf $BOOT IFACE=bpf0 /etc/network/if-up.d/msfc
awk '$2 == "/sys/fs/bpf" && $3 == "bpf"' /proc/mounts > $O/boot_bpffs.txt
step boot_bpf_show $TC -j qdisc show dev bpf0
# packets through it (the dummy device drops them after the qdisc)
ping -c 3 -i 0.2 -W 1 10.8.0.2 > /dev/null 2>&1
step boot_bpf_stats /usr/sbin/msfc-bpf stats -j
# applied again (ifup after ifdown, or the unit's ExecStart): left alone
step boot_bpf_again $BOOT IFACE=bpf0 /etc/network/if-up.d/msfc
step boot_bpf_unit $BOOT /usr/lib/msfc/msfc-apply bpf0
step boot_bpf_show_again $TC -j qdisc show dev bpf0
step boot_bpf_stats_again /usr/sbin/msfc-bpf stats -j
# the file changed: registered again with the new parameters
printf 'bandwidth 20mbit prios 4\n' > /etc/msfc/bpf0.bpf
step boot_bpf_changed $BOOT IFACE=bpf0 /etc/network/if-up.d/msfc
step boot_bpf_changed_stats /usr/sbin/msfc-bpf stats -j
# a bad file: the loader's message, nothing changes
printf 'bandwidth 20mbit prios 17\n' > /etc/msfc/bpf0.bpf
step boot_bpf_bad $BOOT IFACE=bpf0 /etc/network/if-up.d/msfc
step boot_bpf_bad_show $TC -j qdisc show dev bpf0
step boot_bpf_bad_stats /usr/sbin/msfc-bpf stats -j
# a second interface: refused, the BPF qdisc has one instance
printf 'prios 4 bandwidth 20mbit\n' > /etc/msfc/bpf1.bpf
step boot_bpf_second $BOOT IFACE=bpf1 /etc/network/if-up.d/msfc
step boot_bpf_second_show $TC -j qdisc show dev bpf1
# the module path from the same files: a tc batch file, then one whose second line tc refuses
insmod /lib/modules/sch_msfc.ko
printf '%s\n' 'qdisc replace dev mod0 root handle 1: htb default 1' \
	'class replace dev mod0 parent 1: classid 1:1 htb rate 10mbit' \
	'qdisc replace dev mod0 parent 1:1 handle 10: msfc boost on' > /etc/msfc/mod0.tc
step boot_tc $BOOT IFACE=mod0 /etc/network/if-up.d/msfc
step boot_tc_again $BOOT IFACE=mod0 /etc/network/if-up.d/msfc
step boot_tc_show $TC -j qdisc show dev mod0
printf '%s\n' 'qdisc replace dev mod0 root handle 1: htb default 1' \
	'qdisc replace dev mod0 parent 1:1 msfc target 5' > /etc/msfc/mod0.tc
step boot_tc_bad $BOOT IFACE=mod0 /etc/network/if-up.d/msfc
step boot_tc_bad_show $TC -j qdisc show dev mod0
# both files for one interface
printf 'prios 3\n' > /etc/msfc/mod0.bpf
step boot_both $BOOT IFACE=mod0 /etc/network/if-up.d/msfc
$TC qdisc del dev bpf0 root
/usr/sbin/msfc-bpf unload > /dev/null
for d in bpf0 bpf1 mod0; do $IP link del $d; done
rm -rf /etc/msfc/* /run/msfc
# the tests of the loader itself
grep -q ' /sys/fs/bpf bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf
step bad_prios $L load prios 17
step bad_ratio $L load ratio 17
step bad_target $L load target 200ms
step bad_quanta $L load prios 16 ratio 16 quantum 1048576
step bad_time $L load target 5
step bad_isolate $L load isolate host
step bad_auto $L load auto some
step bad_ecn $L load ecn
step bad_quanta_count $L load prios 4 quanta 95,1514,757
step bad_dscp_map $L load dscp_map ef:16
step not_loaded_add $TC qdisc add dev lo root msfc_bpf
step load $L load bandwidth ${RATE}kbit
step load_again $L load
net_setup
net_add_host2
R="$IP netns exec rtr $TC"
step add $R qdisc add dev srv_r root handle 1: msfc_bpf
step show_add $R -j qdisc show dev srv_r
# one instance at a time: the state lives in the program's maps
step add_second $R qdisc add dev cli_r root msfc_bpf
step ping $IP netns exec cli ping -c 5 -i 0.2 10.0.2.2
# shares NAME: the three uploads for DURATION seconds, iperf3's JSON in /out/iperf_NAME<i>.json
shares() {
	i=0
	for dscp in 8 0 34; do
		$IP netns exec srv $IPERF3 -s -1 -p $((5201 + i)) -D > /dev/null 2>&1
		i=$((i + 1))
	done
	sleep 1
	i=0
	for dscp in 8 0 34; do
		$IP netns exec cli $IPERF3 -c 10.0.2.2 -p $((5201 + i)) -t $DURATION -O 2 \
			--dscp $dscp -J > $O/iperf_$1$i.json 2> $O/iperf_$1$i.err &
		eval pid$i=$!
		i=$((i + 1))
	done
	wait $pid0 $pid1 $pid2
}
shares class
step stats_j $L stats -j
step stats $L stats
step show_s $R -s -j qdisc show dev srv_r
step del $R qdisc del dev srv_r root
step unload $L unload
step add_unloaded $R qdisc add dev srv_r root msfc_bpf
# The same with the other modes this version has: the shares stay those of the quanta.
# modes: the diffserv3 preset (overload class, weights exact, boost across) and order
# priority; quanta: boost on, the quanta given as bytes, the shaper's overhead, mpu, PTM
# framing and ingress accounting.
modes_run() {	# modes_run NAME LOAD-WORDS... (step sets $name: keep ours in $run)
	run=$1
	shift
	step load_$run $L load bandwidth ${RATE}kbit "$@"
	step add_$run $R qdisc add dev srv_r root msfc_bpf
	shares $run
	step stats_${run}_j $L stats -j
	step del_$run $R qdisc del dev srv_r root
	step unload_$run $L unload
}
modes_run modes diffserv3 order priority
modes_run quanta boost on quanta 1514,3028,6056 overhead 18 mpu 64 ptm ingress
# inversion prevent: one BE flow (class 1) beside four AF41 flows (class 2).  Class 2's
# quantum per flow is 6056 / 4 = 1514 bytes, so class 1 may give its one flow at most
# 1514 / ratio = 757 bytes a round: shares 757 : 6056 (1 : 8) instead of 3028 : 6056.
step load_inv $L load bandwidth ${RATE}kbit inversion prevent
step add_inv $R qdisc add dev srv_r root msfc_bpf
$IP netns exec srv $IPERF3 -s -1 -p 5201 -D > /dev/null 2>&1
$IP netns exec srv $IPERF3 -s -1 -p 5202 -D > /dev/null 2>&1
sleep 1
$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5201 -t $DURATION -O 2 --dscp 0 -J \
	> $O/iperf_inv0.json 2> $O/iperf_inv0.err &
pid0=$!
$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5202 -t $DURATION -O 2 --dscp 34 -P 4 -J \
	> $O/iperf_inv1.json 2> $O/iperf_inv1.err &
pid1=$!
wait $pid0 $pid1
step stats_inv_j $L stats -j
step del_inv $R qdisc del dev srv_r root
step unload_inv $L unload
# isolate src: host cli with four BE flows beside host cli2 with one; each host gets half
# of the class (without isolate the flows would share it, 4:1).  That holds when the five
# flows have five flow queues: the qdisc's active flows are sampled each second after
# iperf3's omitted start (iso_flows<N>.txt, the largest count).  Two flows hashed into one
# queue (about 1 load in 100 with 1024 queues) count as one flow of the host that opened
# it (3:1 when that is cli2); then the test is made again with a fresh load and new ports.
iso_run() {	# iso_run N: files iperf_iso<N>{0,1}.json, stats_iso<N>_j, iso_flows<N>.txt
	n=$1
	step load_iso$n $L load bandwidth ${RATE}kbit isolate src
	step add_iso$n $R qdisc add dev srv_r root msfc_bpf
	$IP netns exec srv $IPERF3 -s -1 -p 5201 -D > /dev/null 2>&1
	$IP netns exec srv $IPERF3 -s -1 -p 5202 -D > /dev/null 2>&1
	sleep 1
	$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5201 -t $DURATION -O 2 -P 4 -J \
		> $O/iperf_iso${n}0.json 2> $O/iperf_iso${n}0.err &
	pid0=$!
	$IP netns exec cli2 $IPERF3 -c 10.0.2.2 -p 5202 -t $DURATION -O 2 -J \
		> $O/iperf_iso${n}1.json 2> $O/iperf_iso${n}1.err &
	pid1=$!
	sleep 3
	most=0
	for _ in $(seq $((DURATION - 3))); do
		k=$($L stats -j | grep -o '"qdisc":{[^}]*' | grep -o '"active_flows":[0-9]*' |
			cut -d: -f2)
		[ "${k:-0}" -gt $most ] && most=$k
		sleep 1
	done
	echo $most > $O/iso_flows$n.txt
	wait $pid0 $pid1
	step stats_iso${n}_j $L stats -j
	step del_iso$n $R qdisc del dev srv_r root
	step unload_iso$n $L unload
}
iso_run 0
[ "$(cat $O/iso_flows0.txt)" -ge 5 ] || iso_run 1
# auto unmarked: a bulk TCP flow and a ping every 0.2 s, both unmarked (home class 1).  The
# ping's slot is sparse and climbs a class per T_up (10 intervals, 1 s); the bulk flow's
# CoDel state sinks it to class 0.
step load_auto $L load bandwidth ${RATE}kbit auto unmarked
step add_auto $R qdisc add dev srv_r root msfc_bpf
$IP netns exec srv $IPERF3 -s -1 -p 5201 -D > /dev/null 2>&1
sleep 1
$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5201 -t $DURATION -O 2 -J \
	> $O/iperf_auto0.json 2> $O/iperf_auto0.err &
pid0=$!
$IP netns exec cli ping -c $((DURATION * 5)) -i 0.2 10.0.2.2 > $O/auto_ping.txt 2>&1 &
pid1=$!
wait $pid0 $pid1
step stats_auto_j $L stats -j
step stats_auto $L stats
step del_auto $R qdisc del dev srv_r root
step unload_auto $L unload
# LE and NQB with the default map (LE, DSCP 1: the least-effort lane; NQB, DSCP 45: class 1
# as an NQB flow): a BE upload (class 1) beside an LE upload, and a thin UDP stream marked NQB
# (64 kbit/s of 200-byte packets).  The lane gets only what class 1 leaves; the NQB stream
# stays shallow, so queue protection never moves it.
step load_le $L load bandwidth ${RATE}kbit
step add_le $R qdisc add dev srv_r root msfc_bpf
for p in 5201 5202 5203; do
	$IP netns exec srv $IPERF3 -s -1 -p $p -D > /dev/null 2>&1
done
sleep 1
$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5201 -t $DURATION -O 2 --dscp 0 -J \
	> $O/iperf_le0.json 2> $O/iperf_le0.err &
pid0=$!
$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5202 -t $DURATION -O 2 --dscp 1 -J \
	> $O/iperf_le1.json 2> $O/iperf_le1.err &
pid1=$!
$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5203 -u -b 64k -l 200 -t $DURATION --dscp 45 -J \
	> $O/iperf_le2.json 2> $O/iperf_le2.err &
pid2=$!
wait $pid0 $pid1 $pid2
step stats_le_j $L stats -j
step stats_le $L stats
step del_le $R qdisc del dev srv_r root
step unload_le $L unload
# Overload: a limit of 100 packets and a UDP flood at five times the shaped rate; the flood's
# flow loses packets from its head (overload drops, the victim class chosen by overload class).
step load_small $L load limit 100 flows 64 drop_batch 16 bandwidth ${RATE}kbit overload class
step add_small $R qdisc add dev srv_r root msfc_bpf
$IP netns exec srv $IPERF3 -s -1 -p 5210 -D > /dev/null 2>&1
sleep 1
$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5210 -u -b $((RATE * 5))k -l 1400 -t 4 -J \
	> $O/iperf_flood.json 2> $O/iperf_flood.err
step stats_small_j $L stats -j
step stats_small $L stats
step del_small $R qdisc del dev srv_r root
step unload_small $L unload
dmesg > $O/dmesg.txt
cat /proc/sys/kernel/tainted > $O/tainted.txt
