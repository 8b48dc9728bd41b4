#!/usr/bin/env python3
"""Put CBQ (sch_cbq.c) back into a Linux 5.10 tree from which it was retired (idempotent).

Linux 5.10.211 removed net/sched/sch_cbq.c, its Kconfig entry and its Makefile line (the
stable backport of "net/sched: Retire CBQ qdisc"); every linux-source-5.10 that Debian 11
still serves (5.10.218 and later) is without it, while the UAPI (struct tc_cbq_*,
TCA_CBQ_*) stayed.  This script adds the three back: the qdisc's source file, taken from
SRC (Linux 5.10.210 or earlier: net/sched/sch_cbq.c of a kernel.org 5.10 tarball), and the
`NET_SCH_CBQ` option and the `sch_cbq.o` line, and makes CBQ's qlen_notify() idempotent as
Linux 5.10.262 expects (see QLEN_NOTIFY_OLD below).

Usage: add_cbq.py LINUX_TREE SRC
"""

import os
import sys

KCONFIG_ANCHOR = "config NET_SCH_HTB\n"
KCONFIG_BLOCK = """config NET_SCH_CBQ
\ttristate "Class Based Queueing (CBQ)"
\thelp
\t  The Class-Based Queueing qdisc of Linux 5.10.210 and earlier, put back
\t  for the seed 002 experiments of the MSFC project (kernel/scripts/add_cbq.py).

"""
# Linux 5.10.239 and later call a parent's qlen_notify() whenever a child's backlog is reduced,
# also when the class is not active (net/sched: "Always pass notifications when child class
# becomes empty", backported with an idempotent qlen_notify() for every qdisc that 5.10 still
# had; CBQ was gone by then).  CBQ's unlinks the class from the active list it is not on:
# a NULL dereference at the first `tc qdisc add ... parent <cbq class>`.  The same guard
# as the others got: only an active class (one with next_alive set) is deactivated.
QLEN_NOTIFY_OLD = """\tstruct cbq_class *cl = (struct cbq_class *)arg;

\tcbq_deactivate_class(cl);
}"""
QLEN_NOTIFY_NEW = """\tstruct cbq_class *cl = (struct cbq_class *)arg;

\tif (cl->next_alive)	/* idempotent: kernel/scripts/add_cbq.py */
\t\tcbq_deactivate_class(cl);
}"""
MAKEFILE_ANCHOR = "obj-$(CONFIG_NET_SCH_HTB)\t+= sch_htb.o\n"
MAKEFILE_LINE = "obj-$(CONFIG_NET_SCH_CBQ)\t+= sch_cbq.o\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: add_cbq.py LINUX_TREE SRC")
    tree, src = sys.argv[1], sys.argv[2]
    try:
        code = open(src).read()
    except OSError as e:
        sys.exit(f"add_cbq: cannot read the CBQ source {src}: {e.strerror}")
    if "cbq_enqueue" not in code or "Class-Based Queueing" not in code:
        sys.exit(f"add_cbq: {src} is not Linux's net/sched/sch_cbq.c")
    if code.count(QLEN_NOTIFY_OLD) == 1:
        code = code.replace(QLEN_NOTIFY_OLD, QLEN_NOTIFY_NEW, 1)
    elif QLEN_NOTIFY_NEW not in code:
        sys.exit(f"add_cbq: {src}: cbq_qlen_notify() is not Linux 5.10's; adapt this script")
    sched = os.path.join(tree, "net", "sched")
    dest = os.path.join(sched, "sch_cbq.c")
    if not os.path.exists(dest) or open(dest).read() != code:
        with open(dest, "w") as fh:
            fh.write(code)
    for name, anchor, block in (
        ("Kconfig", KCONFIG_ANCHOR, KCONFIG_BLOCK),
        ("Makefile", MAKEFILE_ANCHOR, MAKEFILE_LINE),
    ):
        path = os.path.join(sched, name)
        text = open(path).read()
        if block.splitlines()[0] in text:
            continue
        if text.count(anchor) != 1:
            sys.exit(f"add_cbq: {path} has no single {anchor.strip()!r}; not a Linux 5.10 tree?")
        text = text.replace(anchor, block + anchor if name == "Kconfig" else anchor + block, 1)
        with open(path, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
