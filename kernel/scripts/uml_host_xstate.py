#!/usr/bin/env python3
"""Let User-Mode Linux 6.12 run its processes on hosts with a large XSAVE area (idempotent).

UML keeps a process's FPU state in a fixed buffer of 2696 bytes (x87, SSE, AVX, AVX-512 and
PKRU in the standard XSAVE layout) and moves it with ptrace(PTRACE_GETREGSET/SETREGSET,
NT_X86_XSTATE).  The host kernel truncates a read to the buffer, but accepts a write only of
exactly its own XSAVE size (x86 xstateregs_set(): anything else is EFAULT).  On a host with
AMX (TILECFG and TILEDATA, 11008 bytes in all) every write fails: the first process UML starts
dies with "userspace - ptrace set fp regs failed, errno = 14" and the kernel panics
("Attempted to kill init").

The change: at start-up UML asks the host for its XSAVE size (a read into a large buffer
returns it); a write larger than UML's buffer goes through a scratch buffer of the host's
size holding UML's state, the rest zero and the features UML cannot hold marked as in their
initial state (cleared in XSTATE_BV).  The processes UML runs never enable AMX (it needs
arch_prctl permission, which UML does not pass on), so nothing is lost.  Hosts whose XSAVE
area fits UML's buffer take the old path unchanged.

Linux 5.10 (Debian 11's linux-source-5.10) has the same code with a non-static flag and
the same 2696-byte buffer; the script patches it alike.

Usage: uml_host_xstate.py LINUX_TREE
"""

import os
import sys

MARK = "/* host XSAVE area larger than FP_SIZE (kernel/scripts/uml_host_xstate.py) */"

OLD_DECL = "static int have_xstate_support;\n"
OLD_DECL_510 = "int have_xstate_support;\n"
NEW_DECL = f"""static int have_xstate_support;

{MARK}
static unsigned long host_fp_bytes;
static unsigned long *host_fp_scratch;

/* XSTATE_BV, the features present, at byte 512 of a standard-format XSAVE area */
#define UML_XSTATE_BV_OFFSET	512

static void *fp_for_host(unsigned long *fp_regs, size_t *len)
{{
	unsigned long long bv;
	size_t own = FP_SIZE * sizeof(unsigned long);

	*len = own;
	if (host_fp_bytes <= own || !host_fp_scratch)
		return fp_regs;
	memcpy(host_fp_scratch, fp_regs, own);
	memset((char *)host_fp_scratch + own, 0, host_fp_bytes - own);
	/* features UML does not keep (all beyond its buffer) are in their initial state */
	memcpy(&bv, (char *)host_fp_scratch + UML_XSTATE_BV_OFFSET, sizeof(bv));
	bv &= (1ULL << 10) - 1;	/* up to XFEATURE_PKRU (9), the last UML's 2696 bytes hold */
	memcpy((char *)host_fp_scratch + UML_XSTATE_BV_OFFSET, &bv, sizeof(bv));
	*len = host_fp_bytes;
	return host_fp_scratch;
}}
"""

OLD_SET = """	if (have_xstate_support) {
		iov.iov_base = fp_regs;
		iov.iov_len = FP_SIZE * sizeof(unsigned long);
		if (ptrace(PTRACE_SETREGSET, pid, NT_X86_XSTATE, &iov) < 0)"""
NEW_SET = """	if (have_xstate_support) {
		iov.iov_base = fp_for_host(fp_regs, &iov.iov_len);
		if (ptrace(PTRACE_SETREGSET, pid, NT_X86_XSTATE, &iov) < 0)"""

OLD_INIT = """	iov.iov_base = fp_regs;
	iov.iov_len = FP_SIZE * sizeof(unsigned long);
	if (ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov) == 0)
		have_xstate_support = 1;

	free(fp_regs);"""
NEW_INIT = """	iov.iov_base = fp_regs;
	iov.iov_len = FP_SIZE * sizeof(unsigned long);
	if (ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov) == 0)
		have_xstate_support = 1;

	free(fp_regs);

	/* the host's XSAVE size: what a read into a buffer larger than any fills */
	fp_regs = malloc(65536);
	if (fp_regs == NULL)
		return;
	iov.iov_base = fp_regs;
	iov.iov_len = 65536;
	if (have_xstate_support && ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov) == 0)
		host_fp_bytes = iov.iov_len;
	if (host_fp_bytes <= FP_SIZE * sizeof(unsigned long)) {
		host_fp_bytes = 0;
		free(fp_regs);
		return;
	}
	host_fp_scratch = fp_regs;"""

OLD_INCLUDE = "#include <stdlib.h>\n"
NEW_INCLUDE = "#include <stdlib.h>\n#include <string.h>\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: uml_host_xstate.py LINUX_TREE")
    path = os.path.join(sys.argv[1], "arch", "x86", "um", "os-Linux", "registers.c")
    try:
        text = open(path).read()
    except OSError as e:
        sys.exit(
            f"uml_host_xstate: cannot read {path}: {e.strerror} "
            "(pass the top directory of a Linux source tree)"
        )
    if MARK in text:
        return
    decl = OLD_DECL
    if OLD_DECL not in text and text.count(OLD_DECL_510) == 1:
        # Linux 5.10 (kernel-5.10 of kernel/Makefile): the same code, the flag not static
        decl = OLD_DECL_510
    for old in (decl, OLD_SET, OLD_INIT, OLD_INCLUDE):
        if text.count(old) != 1:
            sys.exit(
                f"uml_host_xstate: {path} differs from Linux 6.12's (no single "
                f"{old.strip().splitlines()[0]!r}); adapt this script to this Linux version"
            )
    text = text.replace(OLD_INCLUDE, NEW_INCLUDE, 1)
    text = text.replace(decl, NEW_DECL.replace(OLD_DECL, decl, 1), 1)
    text = text.replace(OLD_SET, NEW_SET, 1)
    text = text.replace(OLD_INIT, NEW_INIT, 1)
    with open(path, "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
