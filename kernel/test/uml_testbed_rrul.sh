# Job of the deterministic UML testbed's rrul test (msfc.linux tests.py), sourced by
# /job/run.sh after it set QDISC_KIND, QDISC_WORDS, RATE (kbit/s), RTT_MS, DUR (s), NAME.
# Flent's rrul (netperf, 4 TCP flows each way marked BE/CS1/CS5/EF, its ping and UDP
# probes) from cli to srv, and at the same time a VoIP-like irtt stream (20 ms, 172 bytes,
# EF) that starts IRTT_DELAY s after Flent and ends before it.  Output in /job/out:
# NAME.flent.gz (Flent's own), irtt_dscp46.irtt.json, tc_cli_r.json/tc_srv_r.json (tc -s -j
# after the test), start/stop (guest uptime), cpu_before/cpu_after, the versions.
. /msfc/kdir/test/uml_testbed_net.sh
O=/job/out
set -x
net_setup
delay "$RTT_MS"
bottleneck "$QDISC_KIND" "$RATE" "$QDISC_WORDS" || { echo "rrul: cannot set up $QDISC_KIND"; exit 1; }
$IP netns exec rtr $TC qdisc show > $O/tc_setup.txt
{ flent --version; netperf -V; irtt version | head -n 1; uname -a; } > $O/versions.txt 2>&1
$IP netns exec srv netserver -D -L 10.0.2.2 > $O/netserver.log 2>&1 &
$IP netns exec srv irtt server -b 10.0.2.2 -i 0 > $O/irtt-server.log 2>&1 &
n=0
until $IP netns exec srv ss -ltn | grep -q ':12865 ' && $IP netns exec srv ss -lun | grep -q ':2112 '; do
	n=$((n + 1)); [ $n -gt 100 ] && { echo "rrul: servers did not start"; exit 1; }
	sleep 0.1
done
head -n 1 /proc/stat > $O/cpu_before
cut -d " " -f 1 /proc/uptime > $O/start
$IP netns exec cli flent rrul -H 10.0.2.2 -l "$DUR" -s 0.2 -D $O -t "$NAME" > $O/flent.log 2>&1 &
FLENT=$!
sleep "$IRTT_DELAY"
$IP netns exec cli irtt client -Q -i 20ms -l 172 -d "${IRTT_DUR}s" --dscp=0xb8 --timeouts=10s \
	--local=10.0.1.1:40046 -o $O/irtt_dscp46.irtt.json 10.0.2.2 > /dev/null 2> $O/irtt_dscp46.err &
IRTT=$!
wait $IRTT $FLENT
cut -d " " -f 1 /proc/uptime > $O/stop
head -n 1 /proc/stat > $O/cpu_after
for dev in cli_r srv_r; do $IP netns exec rtr $TC -s -j qdisc show dev $dev > $O/tc_$dev.json; done
ls -l $O
