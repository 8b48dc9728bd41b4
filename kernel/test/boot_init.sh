#!/bin/sh
# PID 1 of the User-Mode Linux boot test (root = the host filesystem over hostfs).
# Mount private proc/sys/tmpfs so nothing is written to the host outside the result file.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmpfs /run
# /tmp stays the host's (the repository may live there); temporary files go to tmpfs
mkdir -p /run/tmp && export TMPDIR=/run/tmp
mkdir -p /run/netns
echo "msfc-boot: init started"
/usr/bin/python3 "$MSFC_KDIR/test/boot_test.py" "$MSFC_KDIR" "$MSFC_RESULT"
echo "msfc-boot: exit $?"
echo o > /proc/sysrq-trigger
sleep 10
