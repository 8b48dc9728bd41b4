# Job of the per-packet cost benchmark (msfc.linux.vm cost): the probe sch_msfc_bench.ko
# (built out of tree against the kernel's headers, kernel/net/sched/sch_msfc_bench.c) times
# only the qdisc: it enqueues batches of synthetic packets into the root qdisc of a dummy
# device and dequeues them under the qdisc lock.  Every qdisc of /job/qdiscs.txt (one per
# line: LABEL MODE TC-ARGS..., MODE "clear" or "keephash") is measured for each of FLOWS,
# interleaved over ROUNDS rounds (the order rotates every round), after one warm-up round
# that is not kept.  One line per measurement in /out/cost.txt: ROUND FLOWS LABEL RESULT,
# RESULT as the probe reports it.  With /job/msfc-bpf (the BPF qdisc's loader) in the job, the
# kind msfc_bpf is registered with the loader's defaults first (its output in
# /out/bpf_load.txt) and unregistered at the end (the kernel log then in /out/dmesg.txt).
. /job/net.sh
P=/sys/module/sch_msfc_bench/parameters/bench
insmod /lib/modules/sch_msfc.ko || exit 1
insmod /job/sch_msfc_bench.ko || exit 1
$IP link add dum0 type dummy || exit 1
$IP link set dum0 up
if [ -e /job/msfc-bpf ]; then
	mount -t bpf bpf /sys/fs/bpf || exit 1
	/job/msfc-bpf load > /out/bpf_load.txt 2>&1 || { echo "cost: msfc-bpf load: $(cat /out/bpf_load.txt)"; exit 1; }
fi
CS=/sys/devices/system/clocksource/clocksource0/current_clocksource
cat $CS > /out/clocksource_before
n=$(grep -c . /job/qdiscs.txt)
: > /out/cost.txt
r=0
while [ $r -le "$ROUNDS" ]; do
	for flows in $FLOWS; do
		k=0
		while [ $k -lt "$n" ]; do
			line=$(sed -n "$(((k + r) % n + 1))p" /job/qdiscs.txt)
			k=$((k + 1))
			set -- $line
			label=$1 mode=$2
			shift 2
			# del + add, not replace: a replace by the same kind changes only the options given
			$TC qdisc del dev dum0 root 2> /dev/null
			$TC qdisc add dev dum0 root "$@" || { echo "cost: tc qdisc add $*: failed"; exit 1; }
			if [ $r -eq 0 ]; then batches=$WARMUP; else batches=$BATCHES; fi
			m=""
			[ "$mode" = keephash ] && m=keephash
			echo "dum0 $flows $batches $m" > $P || { echo "cost: $label: $(cat $P)"; exit 1; }
			[ $r -eq 0 ] || echo "$r $flows $label $(cat $P)" >> /out/cost.txt
		done
	done
	r=$((r + 1))
done
$TC qdisc del dev dum0 root
cat $CS > /out/clocksource_after
cat /proc/sys/kernel/tainted > /out/tainted.txt
# Profile: where each qdisc of PROFILE spends its time, sampled by perf (cpu-clock) during
# one long measurement with FLOWS' last value; per qdisc /out/profile-LABEL.txt, one line per
# symbol: "overhead;symbol" as perf report writes it with a field separator.
if [ -n "$PROFILE" ] && [ -x /usr/bin/perf ]; then
	for label in $PROFILE; do
		line=$(grep "^$label " /job/qdiscs.txt) || { echo "cost: $label is not in qdiscs.txt"; exit 1; }
		set -- $line
		mode=$2
		shift 2
		$TC qdisc del dev dum0 root 2> /dev/null
		$TC qdisc add dev dum0 root "$@" || exit 1
		m=""
		[ "$mode" = keephash ] && m=keephash
		/usr/bin/perf record -q -e cpu-clock -F 5000 -a -o /tmp/perf.data -- \
			sh -c "echo 'dum0 ${FLOWS##* } $PROFILE_BATCHES noparts $m' > $P" 2> /out/profile-$label.err ||
			{ echo "cost: perf record for $label failed: $(cat /out/profile-$label.err)"; exit 1; }
		/usr/bin/perf report -q -i /tmp/perf.data --stdio --sort sym -t ';' --percent-limit 0.5 \
			> /out/profile-$label.txt 2>> /out/profile-$label.err
		cat $CS > /out/clocksource_after_profile
		echo "$label $(cat $P)" > /out/profile-$label.probe
		rm -f /tmp/perf.data
	done
fi
if [ -e /job/msfc-bpf ]; then
	$TC qdisc del dev dum0 root 2> /dev/null
	/job/msfc-bpf unload || { echo "cost: msfc-bpf unload failed"; exit 1; }
	dmesg > /out/dmesg.txt
fi
