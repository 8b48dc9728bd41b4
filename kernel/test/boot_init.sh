#!/bin/sh
# PID 1 of the User-Mode Linux boot test (root = the host filesystem over hostfs).
. "$MSFC_KDIR/test/uml_env.sh"
mkdir -p /run/netns
echo "msfc-boot: init started"
/usr/bin/python3 "$MSFC_KDIR/test/boot_test.py" "$MSFC_KDIR" "$MSFC_RESULT"
echo "msfc-boot: exit $?"
echo o > /proc/sysrq-trigger
sleep 10
