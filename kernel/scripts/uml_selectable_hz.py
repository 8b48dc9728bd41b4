#!/usr/bin/env python3
"""Make HZ of User-Mode Linux a configurable option (idempotent).

arch/um/Kconfig defines `config HZ` without a prompt (fixed 100), so a config fragment cannot
choose another tick rate.  This adds a prompt (range 100..10000, default still 100), so a
build directory configured with CONFIG_HZ=1000 gets a 1000 Hz tick while every other build
keeps 100 Hz.  Used by the shaping benchmark (docs/kernel.md, "Shaping accuracy").

Usage: uml_selectable_hz.py LINUX_TREE
"""

import os
import sys

OLD = "config HZ\n\tint\n\tdefault 100\n"
NEW = (
    'config HZ\n\tint "Timer frequency (HZ) of the UML kernel"\n\trange 100 10000\n\tdefault 100\n'
)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: uml_selectable_hz.py LINUX_TREE")
    path = os.path.join(sys.argv[1], "arch", "um", "Kconfig")
    try:
        text = open(path).read()
    except OSError as e:
        sys.exit(
            f"uml_selectable_hz: cannot read {path}: {e.strerror} "
            "(pass the top directory of a Linux source tree)"
        )
    if NEW in text:
        return
    if OLD not in text:
        sys.exit(
            f"uml_selectable_hz: {path} has no plain `config HZ` block with default 100; "
            "this Linux version is not supported, adapt OLD in this script"
        )
    with open(path, "w") as fh:
        fh.write(text.replace(OLD, NEW, 1))


if __name__ == "__main__":
    main()
