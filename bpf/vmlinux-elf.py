#!/usr/bin/env python3
"""The uncompressed vmlinux (an ELF file with the kernel's .BTF section) inside a bzImage.

bpftool reads BTF from an ELF file or raw BTF, not from a compressed boot image, so the
build of the BPF qdisc takes vmlinux.h from the ELF this writes: the payload is found by
the magic of its compression (zstd, xz, gzip; Debian's 7.x kernels use zstd), unpacked with
the command-line tool and kept when it starts with the ELF magic.

Usage: vmlinux-elf.py VMLINUZ OUT
"""

import subprocess
import sys

MAGICS = (
    (b"\x28\xb5\x2f\xfd", ["zstd", "-dcq"]),
    (b"\xfd7zXZ\x00", ["xz", "-dcq"]),
    (b"\x1f\x8b\x08", ["gzip", "-dcq"]),
)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    image = open(sys.argv[1], "rb").read()
    for magic, cmd in MAGICS:
        at = image.find(magic)
        while at >= 0:
            p = subprocess.run(cmd, input=image[at:], capture_output=True, check=False)
            # a stream followed by other data ends with an error: keep what was unpacked
            if p.stdout[:4] == b"\x7fELF":
                with open(sys.argv[2], "wb") as f:
                    f.write(p.stdout)
                return 0
            at = image.find(magic, at + 1)
    print(f"vmlinux-elf.py: no compressed ELF kernel found in {sys.argv[1]}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
