# The BPF qdisc's fuzz step in the qemu VM (bpf/fuzz.py writes the operations, checks the
# results).  Sourced by a job after /job/net.sh; `fuzz_bpf` runs /job/fuzz_ops.txt, one
# operation a line ("N VERB ARGS..."), while UDP traffic of four DSCPs crosses the router's
# devices both ways and a multiqueue veth (400 kbit/s a flow: under TCG more leaves the
# operations little of the virtual CPU):
#
#   load WORDS...        msfc-bpf load WORDS...
#   unload               msfc-bpf unload
#   stats                msfc-bpf stats -j
#   add|replace SLOT K   tc qdisc add|replace of kind K at SLOT
#   del SLOT             tc qdisc del at SLOT
#   sleep MS             let the traffic run
#
# SLOT: srv_r or cli_r (the router's root qdiscs toward the server and the clients),
# mq0:Q (class 1:Q of the mq root of the router's 4-queue veth toward the sink), htb (class
# 1:1 of an htb root on a dummy device).  Per operation /out/fuzz.txt gets "@@ N RC PINNED"
# (PINNED: 1 if /sys/fs/bpf/msfc_bpf/link exists afterwards), then the operation's stdout
# ("O " lines) and stderr ("E " lines); the kernel log gets "msfc-fuzz: op N ..." before it,
# so a report follows the operation that caused it.  At the end the traffic stops, every
# qdisc goes, the kind is unloaded, and "final" records say what is left.
FZ_L=/job/msfc-bpf
FZ_OUT=/out/fuzz.txt

fuzz_net() {
	grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
	$IP netns list | grep -qw rtr || net_setup
	# a veth with four transmit queues (mq root, one child qdisc per queue) to a sink host
	$IP netns add sink
	$IP -n sink link set lo up
	$IP link add mq0 netns rtr numtxqueues 4 numrxqueues 4 type veth peer name mq0p netns sink \
		numtxqueues 4 numrxqueues 4
	$IP -n rtr addr add 10.0.9.1/24 dev mq0
	$IP -n sink addr add 10.0.9.2/24 dev mq0p
	$IP -n rtr link set mq0 up
	$IP -n sink link set mq0p up
	$IP -n sink route add default via 10.0.9.1
	$IP netns exec rtr $TC qdisc replace dev mq0 root handle 1: mq
	# an htb class: a BPF qdisc may not sit there
	$IP -n rtr link add dum1 type dummy
	$IP -n rtr link set dum1 up
	$IP netns exec rtr $TC qdisc add dev dum1 root handle 1: htb default 1
	$IP netns exec rtr $TC class add dev dum1 parent 1: classid 1:1 htb rate 10mbit
}

# traffic PORT NS-FROM DEST DSCP [-R]: UDP at 400 kbit/s in runs of 20 s until the fuzz ends
# (a run is ended after 30 s: a shaper of a few bytes a second stalls iperf3's control
# connection)
fuzz_traffic() {
	while [ -e /tmp/fuzz_on ]; do
		timeout 30 $IP netns exec $2 $IPERF3 -c $3 -p $1 -u -b 400k -l 1000 -t 20 --dscp $4 $5 \
			--connect-timeout 2000 > /dev/null 2>&1 &
		echo $! > /tmp/fuzz_traffic.$1
		wait $! || usleep 500000
	done
}

fuzz_slot() {	# fuzz_slot VERB SLOT [KIND]: the tc command of one operation
	case $2 in
	srv_r | cli_r) $IP netns exec rtr $TC qdisc $1 dev $2 root $3 ;;
	mq0:*) $IP netns exec rtr $TC qdisc $1 dev mq0 parent 1:${2#mq0:} $3 ;;
	htb) $IP netns exec rtr $TC qdisc $1 dev dum1 parent 1:1 $3 ;;
	*) echo "fuzz: unknown slot $2" >&2; return 2 ;;
	esac
}

fuzz_record() {	# fuzz_record N RC
	p=0
	[ -e /sys/fs/bpf/msfc_bpf/link ] && p=1
	{
		echo "@@ $1 $2 $p"
		sed 's/^/O /' /tmp/fuzz.o
		sed 's/^/E /' /tmp/fuzz.e
	} >> $FZ_OUT
}

fuzz_bpf() {
	echo "fuzz: network" > /dev/console
	fuzz_net
	echo "fuzz: traffic" > /dev/console
	: > $FZ_OUT
	for p in 5301 5302 5303 5304; do
		$IP netns exec srv $IPERF3 -s -p $p -D > /dev/null 2>&1
		$IP netns exec cli $IPERF3 -s -p $p -D > /dev/null 2>&1
		$IP netns exec sink $IPERF3 -s -p $p -D > /dev/null 2>&1
	done
	sleep 1
	touch /tmp/fuzz_on
	# uploads through srv_r, a download (-R) through cli_r, a flow into the mq veth
	fuzz_traffic 5301 cli 10.0.2.2 8 &
	fuzz_traffic 5302 cli 10.0.2.2 46 &
	fuzz_traffic 5303 cli 10.0.2.2 34 -R &
	fuzz_traffic 5304 srv 10.0.9.2 0 &
	t0=$(date +%s)
	while read -r n verb rest; do
		echo "msfc-fuzz: op $n $verb $rest" > /dev/kmsg
		echo "fuzz: #$n $verb $rest" > /dev/console
		set -- $rest
		case $verb in
		load) $FZ_L load "$@" ;;
		unload) $FZ_L unload ;;
		stats) $FZ_L stats -j ;;
		add | replace | del) fuzz_slot $verb "$@" ;;
		sleep) usleep $(($1 * 1000)) ;;
		*) echo "fuzz: unknown operation $verb" >&2; false ;;
		esac < /dev/null > /tmp/fuzz.o 2> /tmp/fuzz.e
		fuzz_record $n $?
	done < /job/fuzz_ops.txt
	echo "$(($(date +%s) - t0))" > /out/fuzz_seconds.txt
	rm -f /tmp/fuzz_on
	echo "fuzz: stopping the traffic" > /dev/console
	for f in /tmp/fuzz_traffic.*; do kill $(cat $f) 2> /dev/null; done
	wait
	# what is left: every qdisc goes, then the kind; adding it again must be refused
	for s in srv_r cli_r mq0:1 mq0:2 mq0:3 mq0:4; do
		fuzz_slot del $s > /tmp/fuzz.o 2> /tmp/fuzz.e
		fuzz_record final_del_$s $?
	done
	if [ -e /sys/fs/bpf/msfc_bpf/link ]; then $FZ_L unload; else echo "not loaded"; fi \
		> /tmp/fuzz.o 2> /tmp/fuzz.e
	fuzz_record final_unload $?
	fuzz_slot add srv_r msfc_bpf > /tmp/fuzz.o 2> /tmp/fuzz.e
	fuzz_record final_add $?
	$IP netns exec rtr $TC qdisc show > /tmp/fuzz.o 2> /tmp/fuzz.e
	fuzz_record final_show $?
	dmesg > /out/fuzz_dmesg.txt
}
