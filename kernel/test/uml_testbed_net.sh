# Sourced by the jobs of the deterministic UML testbed (msfc.linux): the network and the
# qdiscs under test, in the Debian 13 root tree with the project's tc.
#
#   cli (10.0.1.1) --veth-- rtr (10.0.1.2 | 10.0.2.1) --veth-- srv (10.0.2.2)
#
# `bottleneck KIND RATE_KBIT` puts the qdisc under test on both egress devices of the router
# (cli_r toward the client: downloads, srv_r toward the server: uploads).  `delay MS` adds
# netem delay of MS/2 on the client's and the server's egress (base RTT MS; the netem queues
# are never the bottleneck).  Segmentation and receive offloads are off on every device.
IP=/usr/bin/ip
TC=/msfc/kdir/build/iproute2-src/iproute2-6.1.0/tc/tc
ETHTOOL=/usr/sbin/ethtool

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
		$IP netns exec "$ns" $ETHTOOL -K "$dev" tso off gso off gro off > /dev/null 2>&1
		$IP -n "$ns" link set "$dev" up
	done
	$IP -n cli route add default via 10.0.1.2
	$IP -n srv route add default via 10.0.2.1
	$IP netns exec rtr sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
}

delay() {
	half=$(( $1 / 2 ))
	$IP netns exec cli $TC qdisc replace dev cli_c root netem delay ${half}ms limit 100000
	$IP netns exec srv $TC qdisc replace dev srv_s root netem delay ${half}ms limit 100000
}

# bottleneck KIND RATE_KBIT [MSFC_WORDS]: KIND fq_codel or msfc (under an htb class of the
# rate; msfc with MSFC_WORDS after `msfc`) or cake (cake bandwidth RATE diffserv4).
bottleneck() {
	kind=$1 r=$2 words=$3
	for dev in cli_r srv_r; do
		tc_r="$IP netns exec rtr $TC"
		case $kind in
		fq_codel|msfc)
			$tc_r qdisc add dev $dev root handle 1: htb default 1 || return 1
			$tc_r class add dev $dev parent 1: classid 1:1 htb rate ${r}kbit || return 1
			# shellcheck disable=SC2086
			$tc_r qdisc add dev $dev parent 1:1 handle 10: $kind $words || return 1
			;;
		cake) $tc_r qdisc add dev $dev root cake bandwidth ${r}kbit diffserv4 || return 1 ;;
		*) echo "uml_testbed_net.sh: unknown qdisc kind $kind" >&2; return 1 ;;
		esac
	done
}
