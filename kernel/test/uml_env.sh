# Sourced by the PID-1 scripts of the UML boots (boot, bench, shaping): the root file system is
# the host's over hostfs, so proc, sys and /run are mounted privately and temporary files go
# to tmpfs; nothing is written to the host outside the result file.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# the guest's scripts import the msfc package (its reader of the UAPI header) from the
# checkout, with the host's python3
export PYTHONPATH="$MSFC_KDIR/../python"
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmpfs /run
# /tmp stays the host's (the repository may live there)
mkdir -p /run/tmp && export TMPDIR=/run/tmp
