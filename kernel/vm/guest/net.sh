# Sourced by the jobs of both Linux testbeds (the qemu VM's kernel/vm/guest/*.sh and the UML
# testbed's kernel/test/uml_testbed_*.sh): the test network and the qdiscs under test.
#
#   cli (10.0.1.1) --veth-- rtr (10.0.1.2 | 10.0.2.1) --veth-- srv (10.0.2.2)
#    |
#   cli2 (10.0.3.1, net_add_host2)
#
# The bottleneck is the router: `bottleneck KIND DOWN_KBIT [UP_KBIT]` puts the qdisc on both
# of its egress devices (cli_r toward the clients: downloads at DOWN_KBIT, srv_r toward the
# server: uploads at UP_KBIT, DOWN_KBIT unless given).  `delay MS` adds netem delay of MS/2 on
# the client's and the server's egress, so the base RTT is MS and the netem queues are never
# the bottleneck.  Segmentation offloads are off on every device, so every qdisc sees the
# packets of the wire.  The tools' paths may be set before sourcing (the UML testbed runs the
# project's tc).
IP=${IP:-/usr/bin/ip}
TC=${TC:-/usr/sbin/tc}
ETHTOOL=${ETHTOOL:-/usr/sbin/ethtool}
IPERF3=${IPERF3:-/usr/bin/iperf3}
IRTT=${IRTT:-/usr/bin/irtt}

# listening NS tcp|udp ADDR:PORT: true once a socket of namespace NS listens there (ss where
# the tools have it, else busybox's netstat)
listening() {
	case $2 in tcp) o=-ltn ;; *) o=-lun ;; esac
	if command -v ss > /dev/null; then
		$IP netns exec "$1" ss $o | grep -q "$3 "
	else
		$IP netns exec "$1" netstat $o | grep -q "$3 "
	fi
}

net_setup() {
	for n in cli rtr srv; do $IP netns add $n; $IP -n $n link set lo up; done
	$IP link add cli_c netns cli type veth peer name cli_r netns rtr
	$IP link add srv_s netns srv type veth peer name srv_r netns rtr
	$IP -n cli addr add 10.0.1.1/24 dev cli_c
	$IP -n rtr addr add 10.0.1.2/24 dev cli_r
	$IP -n rtr addr add 10.0.2.1/24 dev srv_r
	$IP -n srv addr add 10.0.2.2/24 dev srv_s
	for p in cli:cli_c rtr:cli_r rtr:srv_r srv:srv_s; do
		ns=${p%%:*} dev=${p#*:}
		$IP netns exec $ns $ETHTOOL -K $dev tso off gso off gro off > /dev/null 2>&1
		$IP -n $ns link set $dev up
	done
	$IP -n cli route add default via 10.0.1.2
	$IP -n srv route add default via 10.0.2.1
	$IP netns exec rtr sysctl -qw net.ipv4.ip_forward=1
}

# A second client host, cli2 (10.0.3.1), on a link of its own to cli, which forwards for it
# as a home gateway would (no NAT): the router sees two client addresses behind its one
# client-facing device cli_r, so both hosts share the bottleneck in each direction and cli2's
# packets cross the same netem delay on cli_c.
net_add_host2() {
	$IP netns add cli2
	$IP -n cli2 link set lo up
	$IP link add cli2_c netns cli2 type veth peer name cli2_g netns cli
	$IP -n cli2 addr add 10.0.3.1/24 dev cli2_c
	$IP -n cli addr add 10.0.3.2/24 dev cli2_g
	for p in cli2:cli2_c cli:cli2_g; do
		ns=${p%%:*} dev=${p#*:}
		$IP netns exec $ns $ETHTOOL -K $dev tso off gso off gro off > /dev/null 2>&1
		$IP -n $ns link set $dev up
	done
	$IP -n cli2 route add default via 10.0.3.2
	$IP -n rtr route add 10.0.3.0/24 via 10.0.1.1
	$IP netns exec cli sysctl -qw net.ipv4.ip_forward=1
}

delay() {
	half=$(( $1 / 2 ))
	$IP netns exec cli $TC qdisc replace dev cli_c root netem delay ${half}ms limit 100000
	$IP netns exec srv $TC qdisc replace dev srv_s root netem delay ${half}ms limit 100000
}

# Our sqm-style shaper: HTB at the link rate with three priority bands, each under fq_codel.
# Voice and video (CS4-CS7, AF4x, EF, VA) in the first band, guaranteed a quarter and capped
# at half of the link so it cannot starve the rest; best effort guaranteed half; bulk (CS1,
# LE) a quarter; idle bandwidth is lent by priority.
sqm_bands() {
	dev=$1 r=$2
	tc_r="$IP netns exec rtr $TC"
	$tc_r qdisc add dev $dev root handle 1: htb default 12
	$tc_r class add dev $dev parent 1: classid 1:1 htb rate ${r}kbit
	$tc_r class add dev $dev parent 1:1 classid 1:11 htb rate $((r / 4))kbit ceil $((r / 2))kbit prio 1
	$tc_r class add dev $dev parent 1:1 classid 1:12 htb rate $((r / 2))kbit ceil ${r}kbit prio 2
	$tc_r class add dev $dev parent 1:1 classid 1:13 htb rate $((r / 4))kbit ceil ${r}kbit prio 3
	for b in 11 12 13; do
		$tc_r qdisc add dev $dev parent 1:$b handle $b: fq_codel
	done
	# DSCP (the upper six bits of the TOS byte) -> band
	for tos in 0x80 0x88 0x90 0x98 0xa0 0xb0 0xb8 0xc0 0xe0; do	# CS4 AF41-43 CS5 VA EF CS6 CS7
		$tc_r filter add dev $dev parent 1: protocol ip prio 1 u32 \
			match ip dsfield $tos 0xfc flowid 1:11
	done
	for tos in 0x04 0x20; do	# LE, CS1
		$tc_r filter add dev $dev parent 1: protocol ip prio 2 u32 \
			match ip dsfield $tos 0xfc flowid 1:13
	done
}

# bottleneck KIND DOWN_KBIT [UP_KBIT]: KIND is one of msfc, fq_codel, fq_pie, pfifo_fast (each
# under an HTB shaper at the rate), msfc_lowrate (msfc with the CoDel settings docs/kernel.md gives for links
# below 4 Mbit/s), msfc_<mode> (a mode beyond the thesis, msfc.linux.records' MSFC_MODES: msfc
# $MSFC_ARGS_UP on the egress toward the server, msfc $MSFC_ARGS_DOWN on the one toward the
# clients), msfc_bw_<mode> (msfc's own shaper at the root, no HTB: msfc bandwidth RATE
# $MSFC_ARGS_UP / $MSFC_ARGS_DOWN, records' MSFC_SHAPED_MODES), cake_ds3, cake_ds4 (cake's
# own shaper, its default triple-isolate), cake_ds4_dual (cake diffserv4 isolating the client
# hosts: dual-srchost toward the server, dual-dsthost toward the clients), cake_be (cake's
# own shaper, one tin: besteffort), sqm (sqm_bands).
bottleneck() {
	kind=$1
	for dev in cli_r srv_r; do
		tc_r="$IP netns exec rtr $TC"
		case $dev in
		srv_r) margs=${MSFC_ARGS_UP:-} hosts=dual-srchost r=${3:-$2} ;;
		*) margs=${MSFC_ARGS_DOWN:-} hosts=dual-dsthost r=$2 ;;
		esac
		case $kind in
		msfc|fq_codel|fq_pie|pfifo_fast)
			$tc_r qdisc add dev $dev root handle 1: htb default 1 || return 1
			$tc_r class add dev $dev parent 1: classid 1:1 htb rate ${r}kbit || return 1
			$tc_r qdisc add dev $dev parent 1:1 handle 10: $kind || return 1
			;;
		msfc_lowrate)
			$tc_r qdisc add dev $dev root handle 1: htb default 1 || return 1
			$tc_r class add dev $dev parent 1: classid 1:1 htb rate ${r}kbit || return 1
			$tc_r qdisc add dev $dev parent 1:1 handle 10: msfc target 15ms interval 150ms || return 1
			;;
		msfc_bw_*)
			[ -n "$margs" ] || { echo "net.sh: $kind needs MSFC_ARGS_UP and MSFC_ARGS_DOWN" >&2; return 1; }
			$tc_r qdisc add dev $dev root msfc bandwidth ${r}kbit $margs || return 1
			;;
		msfc_*)
			[ -n "$margs" ] || { echo "net.sh: $kind needs MSFC_ARGS_UP and MSFC_ARGS_DOWN" >&2; return 1; }
			$tc_r qdisc add dev $dev root handle 1: htb default 1 || return 1
			$tc_r class add dev $dev parent 1: classid 1:1 htb rate ${r}kbit || return 1
			$tc_r qdisc add dev $dev parent 1:1 handle 10: msfc $margs || return 1
			;;
		cake_ds3) $tc_r qdisc add dev $dev root cake bandwidth ${r}kbit diffserv3 || return 1 ;;
		cake_ds4) $tc_r qdisc add dev $dev root cake bandwidth ${r}kbit diffserv4 || return 1 ;;
		cake_ds4_dual) $tc_r qdisc add dev $dev root cake bandwidth ${r}kbit diffserv4 $hosts || return 1 ;;
		cake_be) $tc_r qdisc add dev $dev root cake bandwidth ${r}kbit besteffort || return 1 ;;
		sqm) sqm_bands $dev $r || return 1 ;;
		*) echo "net.sh: unknown qdisc kind $kind" >&2; return 1 ;;
		esac
	done
}

# Guest CPU use: the "cpu" line of /proc/stat (user nice system idle iowait irq softirq ...).
cpu_stat() { head -n 1 /proc/stat; }
