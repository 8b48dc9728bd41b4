#!/bin/sh
# PID 1 of the UML shaping boots (seed 002): runs test/shaping.py with the spec MSFC_SPEC and
# writes MSFC_RESULT (both host paths, the root file system is the host's over hostfs).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmpfs /run
mkdir -p /run/tmp && export TMPDIR=/run/tmp
mkdir -p /run/netns
echo "msfc-shaping: init started"
/usr/bin/python3 "$MSFC_KDIR/test/shaping.py" "$MSFC_KDIR" "$MSFC_SPEC" "$MSFC_RESULT"
echo "msfc-shaping: exit $?"
echo o > /proc/sysrq-trigger
sleep 10
