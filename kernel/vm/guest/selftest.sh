# Job of `make -C kernel vm-test`: the DKMS-built sch_msfc in the stock kernel, configured by
# Debian's tc through the q_msfc.so plugin.  Every step's exit code, stdout and stderr go to
# /out/<step>.{rc,out,err}; the host checks them (msfc.linux.vm selftest).
. /job/net.sh
O=/out
RATE=${RATE:-4000}
step() {	# step NAME COMMAND...: run, keep rc/stdout/stderr
	name=$1
	shift
	"$@" > $O/$name.out 2> $O/$name.err
	echo $? > $O/$name.rc
}
step insmod insmod /lib/modules/sch_msfc.ko
grep -w sch_msfc /proc/modules > $O/modules.txt
cat /proc/sys/kernel/tainted > $O/tainted.txt
net_setup
R="$IP netns exec rtr $TC"
$R qdisc add dev srv_r root handle 1: htb default 1
$R class add dev srv_r parent 1: classid 1:1 htb rate ${RATE}kbit
step add $R qdisc add dev srv_r parent 1:1 handle 10: msfc prios 3 ratio 2 target 5ms interval 100ms
step show_add $R -j qdisc show dev srv_r
step change $R qdisc change dev srv_r parent 1:1 handle 10: msfc ratio 1.5 quantum 1500
step show_change $R -j qdisc show dev srv_r
# target alone: tc cannot know the interval (100ms), only the kernel can refuse it
step bad_target $R qdisc change dev srv_r parent 1:1 handle 10: msfc target 200ms
step bad_quanta $R qdisc change dev srv_r parent 1:1 handle 10: msfc prios 16 ratio 16 quantum 1048576
step bad_ratio $R qdisc change dev srv_r parent 1:1 handle 10: msfc ratio 17
step show_after_bad $R -j qdisc show dev srv_r
step change_back $R qdisc change dev srv_r parent 1:1 handle 10: msfc ratio 2 quantum 1514
# Class shares: two TCP uploads in each of CS1, BE and AF41 (classes 0, 1, 2 by the default
# DSCP map) through the msfc bottleneck; goodput from iperf3's JSON after 2 s of warm-up.
i=0
for dscp in 8 0 34; do
	$IP netns exec srv $IPERF3 -s -1 -p $((5201 + i)) -D > /dev/null 2>&1
	i=$((i + 1))
done
sleep 1
i=0
for dscp in 8 0 34; do
	$IP netns exec cli $IPERF3 -c 10.0.2.2 -p $((5201 + i)) -P 2 -t ${DURATION:-8} -O 2 \
		--dscp $dscp -J > $O/iperf_class$i.json 2> $O/iperf_class$i.err &
	i=$((i + 1))
done
wait
step stats_s $R -s qdisc show dev srv_r
step stats_sj $R -s -j qdisc show dev srv_r
step class_s $R -s class show dev srv_r
step del $R qdisc del dev srv_r parent 1:1 handle 10:
step show_del $R -j qdisc show dev srv_r
$R qdisc del dev srv_r root
# With boost on, msfc under an htb class keeps the flow it has just emptied listed (htb does
# not dequeue an empty leaf again); a change of isolate on the idle qdisc must forget it, or
# the next packet divides by a host load of 0 (an oops in msfc_dequeue, as msfc once did).
# The sequence on a dummy device; then a graft under an msfc class, refused with msfc's
# message.  IPv6 stays off on the device, so the two pings are its only packets.
cat /proc/sys/kernel/tainted > $O/idle_tainted_before.txt
$IP link add dummy1 type dummy
[ -w /proc/sys/net/ipv6/conf/dummy1/disable_ipv6 ] && echo 1 > /proc/sys/net/ipv6/conf/dummy1/disable_ipv6
$IP link set dummy1 up
$IP addr add 10.9.0.1/24 dev dummy1
step idle_htb $TC qdisc add dev dummy1 root handle 1: htb default 1
step idle_class $TC class add dev dummy1 parent 1: classid 1:1 htb rate 10mbit
step idle_add $TC qdisc add dev dummy1 parent 1:1 handle 10: msfc boost on
step idle_ping1 ping -c 1 -W 1 10.9.0.2
step idle_stats1 $TC -s -j qdisc show dev dummy1
step idle_change $TC qdisc change dev dummy1 parent 1:1 handle 10: msfc isolate src
step idle_ping2 ping -c 1 -W 1 10.9.0.3
step idle_stats2 $TC -s -j qdisc show dev dummy1
step idle_graft $TC qdisc add dev dummy1 parent 10:1 handle 20: pfifo
step idle_del $TC qdisc del dev dummy1 root
$IP link del dummy1
cat /proc/sys/kernel/tainted > $O/idle_tainted_after.txt
dmesg > $O/idle_dmesg.txt
# The saved configuration applied at boot (kernel/boot/msfc-apply through its ifupdown hook,
# as ifup runs it), twice (the interface may go down and up), then a file tc refuses.
if [ -f /job/msfc-apply ]; then
	mkdir -p /tmp/msfc-etc
	cat > /tmp/msfc-etc/dummy2.tc <<-EOF
	qdisc replace dev dummy2 root handle 1: htb default 1
	class replace dev dummy2 parent 1: classid 1:1 htb rate 10mbit
	qdisc replace dev dummy2 parent 1:1 handle 10: msfc boost on overload class weights exact
	EOF
	printf 'qdisc replace dev dummy3 root msfc target 5\n' > /tmp/msfc-etc/dummy3.tc
	$IP link add dummy2 type dummy && $IP link set dummy2 up
	$IP link add dummy3 type dummy && $IP link set dummy3 up
	HOOKENV="MODE=start MSFC_CONF_DIR=/tmp/msfc-etc MSFC_APPLY=/job/msfc-apply MSFC_TC=$TC"
	step boot_apply env IFACE=dummy2 $HOOKENV sh /job/if-up.d-msfc
	step boot_apply_again env IFACE=dummy2 $HOOKENV sh /job/if-up.d-msfc
	step boot_show $TC -j qdisc show dev dummy2
	step boot_apply_bad env IFACE=dummy3 $HOOKENV sh /job/if-up.d-msfc
	step boot_apply_none env IFACE=dummy4 $HOOKENV sh /job/if-up.d-msfc
	$IP link del dummy2
	$IP link del dummy3
fi
# The per-packet cost probe (make bench-linux-cost), built out of tree for this kernel: it
# loads and measures msfc at the root of a dummy device.
if [ -f /job/sch_msfc_bench.ko ]; then
	step probe_insmod insmod /job/sch_msfc_bench.ko
	$IP link add dum0 type dummy && $IP link set dum0 up
	$TC qdisc add dev dum0 root msfc
	P=/sys/module/sch_msfc_bench/parameters/bench
	step probe_run sh -c "echo 'dum0 64 20' > $P"
	cat $P > $O/probe_result.out
	$TC qdisc del dev dum0 root
	$IP link del dum0
	step probe_rmmod rmmod sch_msfc_bench
fi
step rmmod rmmod sch_msfc
