"""Build step of the msfc wheel: ship the definitions the package shares with C as package data.

MSFC's parameters have one definition, kernel/include/uapi/linux/pkt_sched_msfc.h, which
msfc.model.params reads; the trace format's header keys have one, tools/lib/msfc-trace-keys.def,
which msfc.model.traceformat reads. A wheel installed outside the checkout cannot reach those
paths, so the wheel carries them in msfc/data/, copied here at build time (the repository keeps no
second copy). An editable install reads the checkout's files instead. Everything else about the
package is in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: checkout path -> what the wheel needs it for
SHARED = {
    Path("kernel", "include", "uapi", "linux", "pkt_sched_msfc.h"): "MSFC's UAPI header",
    Path("tools", "lib", "msfc-trace-keys.def"): "the trace format's header keys",
}


class BuildPyWithShared(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for path, what in SHARED.items():
            source = Path(__file__).resolve().parent / path
            if not source.is_file():
                raise SystemExit(f"setup.py: {source} is missing; the wheel ships {what}")
            target = Path(self.build_lib, "msfc", "data", path.name)
            self.mkpath(str(target.parent))
            self.copy_file(str(source), str(target))


setup(cmdclass={"build_py": BuildPyWithShared})
