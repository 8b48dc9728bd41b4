#!/bin/sh
# PID 1 of the deterministic UML testbed (python -m msfc.linux; docs/linux-testbed.md): runs
# in the Debian 13 root tree (kernel/build/uml-root, rootflags=), copied there as
# /msfc/init.sh by msfc.linux.uml before each boot.  From the kernel command line:
#   MSFC_KDIR  the project's kernel/ directory on the host (mounted at /msfc/kdir: the job
#              scripts and the project's tc)
#   MSFC_JOB   a host directory holding run.sh (the job) and receiving out/ (mounted at /job)
# The job runs as `sh /job/run.sh` with its output in /job/out, then the machine powers off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /dev/shm	# Flent's multiprocessing
mkdir -p /msfc/kdir /job
if mount -t hostfs -o "hostfs=$MSFC_KDIR" hostfs /msfc/kdir &&
	mount -t hostfs -o "hostfs=$MSFC_JOB" hostfs /job && mkdir -p /job/out; then
	echo "msfc-uml: up, kernel $(uname -r)"
	sh /job/run.sh > /job/out/job.log 2>&1
	echo "msfc-uml: job exit $?"
else
	echo "msfc-uml: cannot mount the host directories $MSFC_KDIR and $MSFC_JOB"
fi
sync
echo o > /proc/sysrq-trigger
sleep 10
