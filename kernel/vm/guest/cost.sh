# Job of the per-packet cost test (msfc.testbed bench): pktgen sends PPS packets per second
# through dev_queue_xmit() (xmit_mode queue_xmit) into a dummy device whose root qdisc is,
# in turn, each of QDISCS (noqueue: none), ROUNDS times interleaved; the guest's CPU time
# (/proc/stat) over each run divided by the packets the qdisc passed is the cost per packet.
# UDP source ports are random in 1..FLOWS (one 5-tuple each), DSCP BE.
insmod /lib/modules/sch_msfc.ko
/usr/bin/ip link add dum0 type dummy
/usr/bin/ip link set dum0 up
PG=/proc/net/pktgen
pg() { echo "$2" > "$PG/$1"; }
pg kpktgend_0 rem_device_all
pg kpktgend_0 "add_device dum0"
pg dum0 "count $COUNT"
pg dum0 "pkt_size 500"
pg dum0 "delay $((1000000000 / PPS))"
pg dum0 "xmit_mode queue_xmit"
pg dum0 "dst 10.9.0.2"
pg dum0 "dst_mac 02:00:00:00:00:02"
pg dum0 "udp_src_min 1"
pg dum0 "udp_src_max $FLOWS"
pg dum0 "flag UDPSRC_RND"
r=0	# round 0 warms up (emulation translates each code path the first time) and is not kept
while [ $r -le "$ROUNDS" ]; do
	for q in $QDISCS; do
		/usr/sbin/tc qdisc del dev dum0 root 2> /dev/null
		case $q in
		noqueue) ;;
		cake) /usr/sbin/tc qdisc add dev dum0 root cake unlimited ;;	# diffserv3, as msfc 3 classes
		*) /usr/sbin/tc qdisc add dev dum0 root $q ;;
		esac
		T=/out/cost/$q.$r
		[ $r -eq 0 ] && T=/tmp/warmup/$q
		mkdir -p $T
		/usr/bin/ip -s -j link show dev dum0 > $T/link_before.json
		head -n 1 /proc/stat > $T/cpu_before
		cut -d " " -f 1 /proc/uptime > $T/start
		echo start > $PG/pgctrl
		cut -d " " -f 1 /proc/uptime > $T/stop
		head -n 1 /proc/stat > $T/cpu_after
		/usr/sbin/tc -s -j qdisc show dev dum0 > $T/tc.json
		/usr/bin/ip -s -j link show dev dum0 > $T/link_after.json
	done
	r=$((r + 1))
done
