#!/bin/sh
# Start the deterministic UML testbed's kernel with its three host directories at constant
# paths (msfc.linux, docs/linux-testbed.md "Determinism").
#
#   uml_sandbox.sh ROOT KDIR JOB KERNEL ARG...
#
# The kernel mixes its command line into its random pool, and the command line names the
# root tree, the project's kernel/ directory and the job directory.  So that the same seed
# gives the same run whatever the checkout's location and whichever job runs at the same
# time, KERNEL runs in a private mount namespace in which ROOT, KDIR and JOB are bind-mounted
# at $MSFC_UML_BASE/root, /kdir and /job (MSFC_UML_BASE: /run/msfc-uml unless given); the
# ARGs should name those paths.  Needs root (mount namespaces); exits 97 with a message when
# the namespace cannot be made, so that the caller can fall back.
set -eu
[ $# -ge 4 ] || { echo "usage: uml_sandbox.sh ROOT KDIR JOB KERNEL ARG..." >&2; exit 2; }
BASE=${MSFC_UML_BASE:-/run/msfc-uml}
if [ "${MSFC_UML_IN_NS:-}" != 1 ]; then
	mkdir -p "$BASE" 2> /dev/null || { echo "uml_sandbox: cannot make $BASE" >&2; exit 97; }
	MSFC_UML_IN_NS=1 exec unshare --mount --propagation private -- "$0" "$@" ||
		{ echo "uml_sandbox: unshare --mount failed (not root?)" >&2; exit 97; }
fi
ROOT=$1 KDIR=$2 JOB=$3
shift 3
if ! { mount -t tmpfs -o size=1m,mode=0755 msfc-uml "$BASE" &&
	mkdir "$BASE/root" "$BASE/kdir" "$BASE/job" &&
	mount --bind "$ROOT" "$BASE/root" &&
	mount --bind "$KDIR" "$BASE/kdir" &&
	mount --bind "$JOB" "$BASE/job"; }; then
	echo "uml_sandbox: cannot bind-mount the testbed's directories under $BASE" >&2
	exit 97
fi
unset MSFC_UML_IN_NS
exec "$@"
