"""Build step of the msfc wheel: ship the qdisc's UAPI header as package data.

MSFC's parameters have one definition, kernel/include/uapi/linux/pkt_sched_msfc.h, which
msfc.model.params reads. A wheel installed outside the checkout cannot reach that path, so the wheel
carries the header as msfc/data/pkt_sched_msfc.h, copied here from kernel/include at build time
(the repository keeps no second copy). An editable install reads the checkout's header instead.
Everything else about the package is in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HEADER = Path("kernel", "include", "uapi", "linux", "pkt_sched_msfc.h")


class BuildPyWithHeader(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        source = Path(__file__).resolve().parent / HEADER
        if not source.is_file():
            raise SystemExit(f"setup.py: {source} is missing; the wheel ships MSFC's UAPI header")
        target = Path(self.build_lib, "msfc", "data", HEADER.name)
        self.mkpath(str(target.parent))
        self.copy_file(str(source), str(target))


setup(cmdclass={"build_py": BuildPyWithHeader})
