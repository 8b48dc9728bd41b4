#!/bin/sh
# PID 1 of the UML benchmark boot: per-packet CPU cost (enqueue + dequeue) of msfc and
# fq_codel as root qdisc of the same veth, measured in the kernel (sch_msfc_bench.c).
. "$MSFC_KDIR/test/uml_env.sh"
TC=$MSFC_KDIR/build/iproute2-src/iproute2-6.1.0/tc/tc
P=/sys/module/sch_msfc_bench/parameters/bench
ip link add va type veth peer name vb
ip link set va up
ip link set vb up
out=$MSFC_RESULT.tmp
echo "[" > $out
sep=""
for rep in 1 2 3 4 5; do
  for flows in 1 64 1024; do
    for q in "msfc" "msfc overload class" "msfc weights exact" "msfc inversion prevent" \
             "msfc isolate both" "msfc boost on" \
             "msfc overload class weights exact boost on" \
             "msfc overload class weights exact boost on isolate dst" \
             "msfc prios 8 ratio 1.5" "fq_codel" "pfifo limit 10240"; do
      # a new qdisc each time: "replace" would keep the options of the entry before
      $TC qdisc del dev va root 2>/dev/null
      $TC qdisc add dev va root $q
      echo "va $flows 4000" > $P
      r=$(cat $P)
      echo "bench: $q: $r"
      echo "$sep{\"qdisc\": \"$q\", \"rep\": $rep, \"result\": \"$r\"}" >> $out
      sep=","
    done
  done
done
echo "]" >> $out
mv $out $MSFC_RESULT
echo o > /proc/sysrq-trigger
sleep 10
