# Job of both Linux testbeds' iperf3/irtt tests (msfc.linux: the qemu VM's bench, the UML
# testbed's): one qdisc (QDISC) on the bottleneck of RATE kbit/s toward the clients and
# RATE_UP kbit/s (RATE unless set) toward the server with RTT_MS of netem delay, then each
# test of TESTS in turn.  Output per test in $OUT/<test>/ (OUT: /out unless set): iperf3 -J
# and irtt -o json reports, tc -s -j of the bottleneck, /proc/stat before and after (guest
# CPU), the test's start time.  NET_SH: where net.sh is (/job/net.sh unless set).
. "${NET_SH:-/job/net.sh}"
OUT=${OUT:-/out}
RATE_UP=${RATE_UP:-$RATE}
# the qemu VM loads the DKMS-built module; the UML kernel has msfc built in
[ ! -f /lib/modules/sch_msfc.ko ] || insmod /lib/modules/sch_msfc.ko
net_setup
net_add_host2
delay "$RTT_MS"
bottleneck "$QDISC" "$RATE" "$RATE_UP" || { echo "bench.sh: cannot set up $QDISC"; exit 1; }
$IP netns exec srv $IRTT server -b 10.0.2.2 -i 0 > $OUT/irtt-server.log 2>&1 &
n=0
until listening srv udp 10.0.2.2:2112; do
	n=$((n + 1))
	[ $n -gt 100 ] && { echo "bench.sh: irtt server did not start"; exit 1; }
	sleep 0.1
done

# iperf_server PORT: a one-off iperf3 server in srv, waited for until it listens (they start
# slowly on a loaded machine under emulation). All servers of a test start before any client,
# so that the clients run over the same seconds.
iperf_server() {
	$IP netns exec srv $IPERF3 -s -1 -p "$1" > /dev/null 2>&1 &
	n=0
	until listening srv tcp ":$1"; do
		n=$((n + 1))
		[ $n -gt 100 ] && { echo "bench.sh: iperf3 server on $1 did not start"; exit 1; }
		sleep 0.1
	done
}
# iperf_client_in NS PORT NAME ARGS...: the client in the namespace NS (cli or cli2), its
# JSON report in $T/NAME.iperf.json; iperf_client PORT NAME ARGS...: the same in cli.
# Writes and reads of IPERF_BLOCK bytes (ARGS' own -l wins): iperf3 counts whole blocks only,
# and its TCP default of 128 KiB reports 0 for a flow that moves less than that in the test
# (33 flows at 2 Mbit/s)
IPERF_BLOCK=${IPERF_BLOCK:-4K}
iperf_client_in() {
	ns=$1 port=$2 name=$3
	shift 3
	$IP netns exec "$ns" $IPERF3 -c 10.0.2.2 -p "$port" -J -l "$IPERF_BLOCK" "$@" \
		> "$T/$name.iperf.json" 2> "$T/$name.err" &
	PIDS="$PIDS $!"
}
iperf_client() { iperf_client_in cli "$@"; }
# irtt_start NAME TOS [SECONDS]: voice-like isochronous UDP, 20 ms interval, 172-byte
# packets, for SECONDS (DUR unless given). One open attempt with a long timeout: a retried
# handshake whose first reply arrives late makes the client stop after its first packets.
irtt_start() {
	$IP netns exec cli $IRTT client -Q -i 20ms -l 172 -d "${3:-$DUR}s" --dscp="$2" --timeouts=10s \
		-o "$T/$1.irtt.json" 10.0.2.2 > /dev/null 2> "$T/$1.err" &
	PIDS="$PIDS $!"
}
# class_stats SUFFIX: the counters of every class of the bottleneck (JSON) in
# $T/tc_class_<dev>SUFFIX.json, where the tools print classes as JSON: TC_CLASS_JSON names
# such a tc (iproute2 6.1, the qemu VM's, prints classes as text only)
class_stats() {
	[ -n "${TC_CLASS_JSON:-}" ] || return 0
	for dev in cli_r srv_r; do
		$IP netns exec rtr $TC_CLASS_JSON -s -j class show dev $dev > "$T/tc_class_$dev$1.json"
	done
}
begin() {
	T=$OUT/$1
	PIDS=""
	mkdir -p "$T"
	cpu_stat > "$T/cpu_before"
	cut -d " " -f 1 /proc/uptime > "$T/start"
	# the classes' counters once the flows are past their start (the first third of the
	# test), so that shares can be read over the rest
	[ -z "${TC_CLASS_JSON:-}" ] || { sleep $((DUR / 3)) && class_stats _warm; } &
	WARM=$!
}
end() {
	wait $PIDS	# the clients; the irtt server runs on
	cut -d " " -f 1 /proc/uptime > "$T/stop"
	cpu_stat > "$T/cpu_after"
	wait $WARM
	class_stats ""
	for dev in cli_r srv_r; do $IP netns exec rtr $TC -s -j qdisc show dev $dev > "$T/tc_$dev.json"; done
}

for test in $TESTS; do
	case $test in
	rrul)	# 4 TCP uploads and 4 downloads marked BE/CS1/CS5/EF, irtt in EF, BE and CS1
		for p in 5300 5301 5302 5303 5304 5305 5306 5307; do iperf_server $p; done
		begin rrul
		p=5300
		for d in 0 8 40 46; do
			iperf_client $p up_dscp$d -t "$DUR" --dscp $d
			iperf_client $((p + 1)) down_dscp$d -t "$DUR" --dscp $d -R
			p=$((p + 2))
		done
		irtt_start irtt_dscp46 0xb8
		irtt_start irtt_dscp0 0
		irtt_start irtt_dscp8 0x20
		end
		;;
	shares)	# bulk TCP uploads, 1 against 10 flows in each of CS1, BE and CS5
		for p in 5400 5401 5402 5403 5404 5405; do iperf_server $p; done
		begin shares
		p=5400
		for d in 8 0 40; do
			iperf_client $p one_dscp$d -t "$DUR" --dscp $d -P 1
			iperf_client $((p + 1)) ten_dscp$d -t "$DUR" --dscp $d -P 10
			p=$((p + 2))
		done
		end
		;;
	cubic_bbr)	# CUBIC against BBR, both best effort
		iperf_server 5500
		iperf_server 5501
		begin cubic_bbr
		iperf_client 5500 cubic_dscp0 -t "$DUR" -C cubic
		iperf_client 5501 bbr_dscp0 -t "$DUR" -C bbr
		end
		;;
	dos_same|dos_lower|dos_higher)	# seed 001: one BE TCP flow against 10 unresponsive UDP
		# flows together 120 % of the link, in the same, a lower (CS1), a higher (EF) class
		case $test in dos_same) fd=0 ;; dos_lower) fd=8 ;; dos_higher) fd=46 ;; esac
		iperf_server 5600
		iperf_server 5601
		begin $test
		iperf_client 5600 tcp_dscp0 -t "$DUR" --dscp 0
		iperf_client 5601 flood_dscp$fd -t "$DUR" --dscp $fd -u -P 10 -l 1200 \
			-b $((RATE_UP * 12 / 100))k
		end
		;;
	hosts)	# per-host isolation: host A (cli) one TCP upload and one download, host B (cli2)
		# HOST_B_FLOWS of each, all best effort, to and from the same server
		for p in 5700 5701 5702 5703; do iperf_server $p; done
		begin hosts
		iperf_client_in cli 5700 hostA_up_dscp0 -t "$DUR" -P 1
		iperf_client_in cli2 5701 hostB_up_dscp0 -t "$DUR" -P "$HOST_B_FLOWS"
		iperf_client_in cli 5702 hostA_down_dscp0 -t "$DUR" -P 1 -R
		iperf_client_in cli2 5703 hostB_down_dscp0 -t "$DUR" -P "$HOST_B_FLOWS" -R
		end
		;;
	l4s)	# a scalable sender beside a Classic one in one class: a DCTCP upload from cli
		# (DSCP 4; Linux 6.12's DCTCP sends ECT(0)) and a CUBIC upload from cli2 (DSCP 0,
		# Not-ECT), both class 1 of the default map.  DCTCP is the default of cli while the
		# test runs, so that its connection negotiates ECN in its SYN (iperf3 -C sets the
		# algorithm after connecting: DCTCP without ECN falls back to Reno); the server's
		# sockets take DCTCP's ECE rule (an ACK at every change of CE).  A namespace's
		# default must be an algorithm the initial namespace allows.  L4S_PACED=1: the DCTCP
		# sender paces (iperf3 --fq-rate sets SO_MAX_PACING_RATE, here far above the link's
		# rate, which turns on TCP's own pacing at its pacing rate, as RFC 9332's scalable
		# senders pace) instead of sending each ACK's packets at once
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp"
		paced=
		if [ "${L4S_PACED:-0}" = 1 ]; then
			paced="--fq-rate 1G"
		elif [ "${L4S_PACED:-0}" != 0 ]; then
			echo "bench.sh: L4S_PACED=$L4S_PACED: not 0 or 1"
			exit 1
		fi
		$IP netns exec srv sysctl -qw net.ipv4.tcp_congestion_control=dctcp
		$IP netns exec cli sysctl -qw net.ipv4.tcp_congestion_control=dctcp
		iperf_server 5800
		iperf_server 5801
		begin l4s
		# each packet of the uploads as it reaches the router (cli_r) and as the bottleneck's
		# qdisc hands it to srv_r: the sojourn per packet (msfc.linux.l4s), headers only
		CAPS=
		for dev in cli_r srv_r; do
			$IP netns exec rtr tcpdump -i $dev -n -U -Z root -s 96 -w "$T/$dev.pcap" \
				tcp dst portrange 5800-5801 > "$T/tcpdump_$dev.log" 2>&1 &
			CAPS="$CAPS $!"
		done
		for dev in cli_r srv_r; do
			n=0
			until grep -q "listening on" "$T/tcpdump_$dev.log"; do
				n=$((n + 1))
				[ $n -gt 100 ] && { echo "bench.sh: tcpdump on $dev did not start"; exit 1; }
				sleep 0.1
			done
		done
		iperf_client_in cli 5800 dctcp_dscp4 -t "$DUR" -C dctcp --dscp 4 $paced
		iperf_client_in cli2 5801 cubic_dscp0 -t "$DUR" -C cubic
		end
		kill -INT $CAPS
		wait $CAPS
		for ns in srv cli; do
			$IP netns exec $ns sysctl -qw net.ipv4.tcp_congestion_control=cubic
		done
		;;
	nqb)	# an NQB stream beside bulk TCP of its class (msfc.linux.nqb): NQB_BULK (8 unless
		# set) TCP uploads from cli in best effort (DSCP 0) and the voice-like irtt stream
		# marked NQB_DSCP (45, NQB, unless set; 0: the same stream unmarked), which starts
		# NQB_MARGIN s (3 unless set) after the uploads and stops as long before them, so
		# that it runs while every upload is running.  Output in nqb_dscp$NQB_DSCP/
		d=${NQB_DSCP:-45} m=${NQB_MARGIN:-3}
		[ "$DUR" -gt $((2 * m)) ] || { echo "bench.sh: nqb needs DUR above $((2 * m)) s"; exit 1; }
		iperf_server 5900
		begin nqb_dscp$d
		iperf_client 5900 bulk_dscp0 -t "$DUR" -P "${NQB_BULK:-8}"
		sleep "$m"
		# irtt's --dscp is the whole TOS byte: the DSCP shifted left by two (45: 0xb4)
		irtt_start irtt_dscp$d $((d << 2)) $((DUR - 2 * m))
		end
		;;
	*) echo "bench.sh: unknown test $test"; exit 1 ;;
	esac
	sleep 1
done
