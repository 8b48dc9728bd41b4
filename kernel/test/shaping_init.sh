#!/bin/sh
# PID 1 of the UML shaping boots (seed 002): runs test/shaping.py with the spec MSFC_SPEC and
# writes MSFC_RESULT (both host paths, the root file system is the host's over hostfs).
. "$MSFC_KDIR/test/uml_env.sh"
mkdir -p /run/netns
echo "msfc-shaping: init started"
/usr/bin/python3 "$MSFC_KDIR/test/shaping.py" "$MSFC_KDIR" "$MSFC_SPEC" "$MSFC_RESULT"
echo "msfc-shaping: exit $?"
echo o > /proc/sysrq-trigger
sleep 10
