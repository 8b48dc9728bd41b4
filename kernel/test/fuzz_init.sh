#!/bin/sh
# PID 1 of the fuzz boot: the netlink fuzzer of msfc, then the memory-limit flood
# (test/fuzz_netlink.py).  MSFC_FUZZ_SEED, MSFC_FUZZ_OPS, MSFC_FLOOD_S come from the kernel
# command line; results go to $MSFC_RESULT.fuzz.json and $MSFC_RESULT.flood.json.
. "$MSFC_KDIR/test/uml_env.sh"
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "msfc-fuzz: init started"
/usr/bin/python3 "$MSFC_KDIR/test/fuzz_netlink.py" --kdir "$MSFC_KDIR" \
	--seed "${MSFC_FUZZ_SEED:-1}" --ops "${MSFC_FUZZ_OPS:-2000}" --result "$MSFC_RESULT.fuzz.json"
echo "msfc-fuzz: fuzz exit $?"
/usr/bin/python3 "$MSFC_KDIR/test/fuzz_netlink.py" --kdir "$MSFC_KDIR" \
	--seed "${MSFC_FUZZ_SEED:-1}" --flood "${MSFC_FLOOD_S:-10}" --result "$MSFC_RESULT.flood.json"
echo "msfc-fuzz: flood exit $?"
echo o > /proc/sysrq-trigger
sleep 10
