#!/usr/bin/env python3
"""Add MSFC to a Linux source tree (6.x) in place; idempotent.

- net/sched/sch_msfc.c, sch_msfc_test.c, sch_msfc_bench.c: symlinks to kernel/net/sched/ of
  this repository
- net/sched/Kconfig, net/sched/Makefile: NET_SCH_MSFC (+ KUnit and benchmark probe options),
  sch_msfc.o, sch_msfc_bench.o
- include/uapi/linux/pkt_sched.h: the TCA_MSFC_* block of kernel/include/uapi/linux/pkt_sched_msfc.h
- net/sched/sch_msfc_vectors.h: test/vectors/*.trace + *.expected and the first N traces of the
  generated differential set with the reference's decisions, as C arrays (KUnit replay), written
  by the msfc package's command `python -m msfc.model.kunit` (N: its default unless --generated)

Usage (from kernel/, with the project's Python that has the msfc package, see `make setup`):
    python -m scripts.prepare_tree [--generated N] [--copy] LINUX_TREE
    (--copy: copy instead of symlinks)
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.dirname(HERE)
REPO = os.path.dirname(KDIR)


def write_if_changed(path, text):
    try:
        if open(path).read() == text:
            return
    except OSError:
        pass
    with open(path, "w") as fh:
        fh.write(text)


UAPI_START = "/* MSFC (Multilevel Stochastically Fair CoDel) */\n"
UAPI_LAST = "struct tc_msfc_xstats {"  # the block's last definition


def uapi_block():
    lines = open(os.path.join(KDIR, "include/uapi/linux/pkt_sched_msfc.h")).read().splitlines()
    start = lines.index("#ifndef TCA_MSFC_MAX")
    end = max(i for i, x in enumerate(lines) if x.startswith("#endif"))
    body = "\n".join(lines[start + 1 : end]).strip("\n")
    assert body.rstrip().endswith("};") and UAPI_LAST in body, "pkt_sched_msfc.h: layout changed"
    return UAPI_START + "\n" + body + "\n"


def write_vectors(path, generated):
    """The KUnit replay's trace vectors (sch_msfc_vectors.h) from the package's command
    `python -m msfc.model.kunit`, run with this Python (the project's, which has the msfc
    package); `generated`: traces of the generated differential set, None for its default."""
    argv = [
        sys.executable,
        "-m",
        "msfc.model.kunit",
        "--dir",
        os.path.join(REPO, "test", "vectors"),
    ]
    if generated is not None:
        argv += ["--generated", str(generated)]
    try:
        subprocess.run(argv + ["--out", path], check=True)
    except subprocess.CalledProcessError as e:
        sys.exit(
            f"prepare_tree: {' '.join(argv)} failed (exit {e.returncode}); run prepare_tree with "
            "the project's Python, which has the msfc package (../.venv/bin/python, `make setup`)"
        )


def main():
    args = sys.argv[1:]
    generated = None
    if len(args) >= 2 and args[0] == "--generated":
        try:
            generated = int(args[1])
        except ValueError:
            sys.exit(f"prepare_tree: --generated {args[1]}: give a number of traces")
        args = args[2:]
    copy = len(args) == 2 and args[0] == "--copy"
    if len(args) != 1 and not copy:
        sys.exit(__doc__)
    tree = args[-1]
    sched = os.path.join(tree, "net", "sched")
    if not os.path.isfile(os.path.join(sched, "sch_fq_codel.c")):
        sys.exit(f"prepare_tree: {tree} is not a Linux source tree (no net/sched/sch_fq_codel.c)")
    for f in ("sch_msfc.c", "sch_msfc_test.c", "sch_msfc_bench.c"):
        dst = os.path.join(sched, f)
        src = os.path.join(KDIR, "net", "sched", f)
        if copy:
            write_if_changed(dst, open(src).read())
            continue
        if os.path.islink(dst) and os.readlink(dst) == src:
            continue
        if os.path.lexists(dst):
            os.unlink(dst)
        os.symlink(src, dst)

    kconfig = os.path.join(sched, "Kconfig")
    text = open(kconfig).read()
    anchor = "config NET_SCH_CODEL\n"
    assert anchor in text, "net/sched/Kconfig: no 'config NET_SCH_CODEL' to insert before"
    if "config NET_SCH_MSFC\n" in text:  # an earlier version: replace it
        start = text.index("config NET_SCH_MSFC\n")
        text = text[:start] + text[text.index(anchor, start) :]
    block = open(os.path.join(KDIR, "net/sched/Kconfig.msfc")).read()
    write_if_changed(kconfig, text.replace(anchor, block + anchor, 1))

    mk = os.path.join(sched, "Makefile")
    text = open(mk).read()
    if "sch_msfc.o" not in text:
        anchor = "obj-$(CONFIG_NET_SCH_FQ_CODEL)\t+= sch_fq_codel.o\n"
        assert anchor in text, "net/sched/Makefile: no fq_codel line to insert after"
        text = text.replace(anchor, anchor + "obj-$(CONFIG_NET_SCH_MSFC)\t+= sch_msfc.o\n", 1)
    if "sch_msfc_bench.o" not in text:
        anchor = "obj-$(CONFIG_NET_SCH_MSFC)\t+= sch_msfc.o\n"
        text = text.replace(
            anchor, anchor + "obj-$(CONFIG_NET_SCH_MSFC_BENCH)\t+= sch_msfc_bench.o\n", 1
        )
    write_if_changed(mk, text)

    # the block is replaced when the UAPI header changed (ranges, defaults, messages)
    uapi = os.path.join(tree, "include", "uapi", "linux", "pkt_sched.h")
    text = open(uapi).read()
    start = text.find(UAPI_START)
    if start >= 0:
        end = text.index(UAPI_LAST, start)
        end = text.index("\n};\n", end) + len("\n};\n") + 1  # and the blank line after it
        text = text[:start] + text[end:]
    end = text.rindex("#endif")
    text = text[:end] + uapi_block() + "\n" + text[end:]
    write_if_changed(uapi, text)

    write_vectors(os.path.join(sched, "sch_msfc_vectors.h"), generated)


if __name__ == "__main__":
    main()
