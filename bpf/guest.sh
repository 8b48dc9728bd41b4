# Job of `make -C bpf test` in the qemu VM (Debian 13's 7.3.4 kernel, CONFIG_NET_SCH_BPF=y):
# the loader refuses bad parameters, loads and registers msfc_bpf, tc puts it on the router's
# egress toward the server with its shaper as the bottleneck, ping crosses it, then three TCP
# uploads marked CS1, BE and AF41 (classes 0, 1, 2 of the default DSCP map) share it.  Every
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
mount -t bpf bpf /sys/fs/bpf
grep -w CONFIG_NET_SCH_BPF /proc/config.gz > /dev/null 2>&1 || true
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
# of the class (without isolate the flows would share it, 4:1).
step load_iso $L load bandwidth ${RATE}kbit isolate src
step add_iso $R qdisc add dev srv_r root msfc_bpf
$IP netns exec srv $IPERF3 -s -1 -p 5201 -D > /dev/null 2>&1
$IP netns exec srv $IPERF3 -s -1 -p 5202 -D > /dev/null 2>&1
sleep 1
$IP netns exec cli $IPERF3 -c 10.0.2.2 -p 5201 -t $DURATION -O 2 -P 4 -J \
	> $O/iperf_iso0.json 2> $O/iperf_iso0.err &
pid0=$!
$IP netns exec cli2 $IPERF3 -c 10.0.2.2 -p 5202 -t $DURATION -O 2 -J \
	> $O/iperf_iso1.json 2> $O/iperf_iso1.err &
pid1=$!
wait $pid0 $pid1
step stats_iso_j $L stats -j
step del_iso $R qdisc del dev srv_r root
step unload_iso $L unload
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
