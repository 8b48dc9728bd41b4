# Job of the deterministic UML testbed's Flent tests (msfc.linux), sourced by /job/run.sh
# after it set TEST (rrul, rrul_cs8, rrul_be, tcp_nup), QDISC (a kind of net.sh's bottleneck),
# MSFC_ARGS_UP/MSFC_ARGS_DOWN (msfc's words on each router egress), RATE and RATE_UP (kbit/s
# toward the clients and toward the server), RTT_MS, DUR (s), UPLOADS (tcp_nup's streams),
# NAME, FLENT_DELAY, IRTT_DELAY, IRTT_DUR and IRTT_DSCP (the voice stream's DSCP, 46 (EF)
# unless set; msfc.linux.flent.TESTS' voice_dscp).
# Flent's own test from cli to srv (its TCP flows run DUR s, from FLENT_DELAY s after its
# start) and at the same time a VoIP-like irtt stream (20 ms, 172 bytes, DSCP IRTT_DSCP) that
# starts IRTT_DELAY s after Flent and runs IRTT_DUR s, within the TCP flows' time.  Output in
# /job/out: NAME.flent.gz (Flent's own), irtt_dscp$IRTT_DSCP.irtt.json (and .err),
# tc_cli_r.json/tc_srv_r.json (tc -s -j after the test), start/stop (guest uptime),
# cpu_before/cpu_after, the versions.
TC=/msfc/kdir/build/iproute2-src/iproute2-6.1.0/tc/tc
. /msfc/kdir/vm/guest/net.sh
O=/job/out
IRTT_DSCP=${IRTT_DSCP:-46}
set -x
net_setup
delay "$RTT_MS"
bottleneck "$QDISC" "$RATE" "${RATE_UP:-$RATE}" || { echo "flent: cannot set up $QDISC"; exit 1; }
$IP netns exec rtr $TC qdisc show > $O/tc_setup.txt
{ flent --version; netperf -V; irtt version | head -n 1; uname -a; } > $O/versions.txt 2>&1
$IP netns exec srv netserver -D -L 10.0.2.2 > $O/netserver.log 2>&1 &
$IP netns exec srv irtt server -b 10.0.2.2 -i 0 > $O/irtt-server.log 2>&1 &
n=0
until listening srv tcp :12865 && listening srv udp :2112; do
	n=$((n + 1)); [ $n -gt 100 ] && { echo "flent: servers did not start"; exit 1; }
	sleep 0.1
done
case $TEST in
rrul|rrul_cs8|rrul_be) params= ;;
tcp_nup) params="--test-parameter upload_streams=$UPLOADS" ;;
*) echo "flent: unknown test $TEST"; exit 1 ;;
esac
cpu_stat > $O/cpu_before
cut -d " " -f 1 /proc/uptime > $O/start
# shellcheck disable=SC2086
$IP netns exec cli flent "$TEST" $params -H 10.0.2.2 -l "$DUR" --delay "$FLENT_DELAY" -s 0.2 \
	-D $O -t "$NAME" \
	> $O/flent.log 2>&1 &
FLENT=$!
sleep "$IRTT_DELAY"
# irtt's --dscp is the whole TOS byte: the DSCP shifted left by two (46: 0xb8)
$IP netns exec cli irtt client -Q -i 20ms -l 172 -d "${IRTT_DUR}s" --dscp=$((IRTT_DSCP << 2)) \
	--timeouts=10s --local=10.0.1.1:40046 -o $O/irtt_dscp$IRTT_DSCP.irtt.json 10.0.2.2 \
	> /dev/null 2> $O/irtt_dscp$IRTT_DSCP.err &
IRTT=$!
wait $IRTT $FLENT
cut -d " " -f 1 /proc/uptime > $O/stop
cpu_stat > $O/cpu_after
for dev in cli_r srv_r; do $IP netns exec rtr $TC -s -j qdisc show dev $dev > $O/tc_$dev.json; done
ls -l $O
