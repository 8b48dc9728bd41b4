#!/bin/sh
# PID 1 of a KUnit-only boot (make -C kernel kunit-vectors): the suite has run before init.
echo "msfc-kunit: init started"
echo o > /proc/sysrq-trigger
sleep 10
