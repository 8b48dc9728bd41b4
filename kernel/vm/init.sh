#!/bin/busybox sh
# PID 1 of the test VM: mounts, the stock modules, then the job /job/run.sh; its output
# directory /out is written as a tar archive onto the virtio disk /dev/vda, then power off.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
ln -s /run /var/run
mkdir -p /run/netns
while read -r m; do
	insmod "/lib/modules/$m.ko" 2>/dev/null || echo "init: insmod $m failed"
done < /etc/modules.order
echo "msfc-vm: up, kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpu"
cd /job && sh /job/run.sh > /out/job.log 2>&1
echo $? > /out/job.rc
echo "msfc-vm: job exit $(cat /out/job.rc)"
cat /proc/uptime > /out/uptime
if [ -b /dev/vda ]; then
	tar -cf /dev/vda -C /out . && sync
else
	echo "msfc-vm: no /dev/vda, results lost"
fi
poweroff -f
