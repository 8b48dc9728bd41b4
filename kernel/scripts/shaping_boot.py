#!/usr/bin/env python3
"""Boot the User-Mode Linux test kernel once and run shaping experiments (test/shaping.py).

    shaping_boot.py --linux build/uml/linux --hz 100 --highres off --spec SPEC.json --out RESULT.json

--highres on|off   high-resolution timers (off: boot parameter `highres=off`; hrtimers then
                   expire on the periodic tick, `nohz=off` as well)
--time-travel      inf-cpu (default: guest CPU time is free, only timers move the clock, so the
                   result does not depend on the host's load), basic, or off (real time)
--hz N             the tick rate the kernel was built with (recorded; checked against
                   /proc/net/psched when high-resolution timers are off)

The result JSON is test/shaping.py's, plus "boot": how the kernel was started.  Exit status 0
iff the guest ran every experiment; otherwise the error and the log's tail are printed.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.dirname(HERE)


def boot(linux, hz, highres, time_travel, spec, out, log=None, timeout=1800, mem="512M"):
    """Run the experiments of `spec` (dict) in one boot; returns the result dict."""
    if not os.access(linux, os.X_OK):
        raise SystemExit(
            f"shaping_boot: no UML kernel at {linux}: build it first "
            f"(make -C kernel kernel, or kernel-hz1000 for HZ=1000)"
        )
    if highres not in ("on", "off"):
        raise SystemExit(f"shaping_boot: --highres must be on or off, not {highres!r}")
    if time_travel not in ("inf-cpu", "basic", "off"):
        raise SystemExit(
            f"shaping_boot: --time-travel must be inf-cpu, basic or off, not {time_travel!r}"
        )
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    spec = dict(spec, expect_highres=(highres == "on"), hz=hz)
    fd, spec_path = tempfile.mkstemp(
        prefix="shaping-spec-", suffix=".json", dir=os.path.dirname(out)
    )
    with os.fdopen(fd, "w") as fh:
        json.dump(spec, fh)
    if not log:
        log = (out[:-5] if out.endswith(".json") else out) + ".log"
    log = os.path.abspath(log)
    args = [
        os.path.abspath(linux),
        f"mem={mem}",
        "rootfstype=hostfs",
        "rootflags=/",
        "rw",
        "con=null",
        "con0=fd:0,fd:1",
        "kunit.enable=0",
        f"MSFC_KDIR={KDIR}",
        f"MSFC_SPEC={spec_path}",
        f"MSFC_RESULT={out}",
        f"init={KDIR}/test/shaping_init.sh",
    ]
    if highres == "off":
        args += ["highres=off", "nohz=off"]
    if time_travel == "inf-cpu":
        args.append("time-travel=inf-cpu")
    elif time_travel == "basic":
        args.append("time-travel")
    if os.path.exists(out):
        os.unlink(out)
    t0 = time.time()
    try:
        with open(log, "w") as lf:
            subprocess.run(
                args,
                stdin=subprocess.DEVNULL,
                stdout=lf,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                cwd=os.path.dirname(out),
            )
    except subprocess.TimeoutExpired:
        pass
    finally:
        os.unlink(spec_path)
    wall = time.time() - t0
    try:
        res = json.load(open(out))
    except (OSError, ValueError) as err:
        tail = open(log, errors="replace").read()[-3000:]
        raise SystemExit(
            f"shaping_boot: the guest wrote no result ({wall:.0f} s, timeout "
            f"{timeout} s); log {log}, its end:\n{tail}"
        ) from err
    res["boot"] = {
        "hz": hz,
        "highres": highres,
        "time_travel": time_travel,
        "wall_s": round(wall, 1),
        "linux": os.path.abspath(linux),
    }
    with open(out, "w") as fh:
        json.dump(res, fh)
    if not res.get("ok"):
        raise SystemExit(f"shaping_boot: the guest failed: {res.get('error')} (log {log})")
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--linux", required=True)
    ap.add_argument("--hz", type=int, required=True)
    ap.add_argument("--highres", default="on")
    ap.add_argument("--time-travel", default="inf-cpu")
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--log")
    ap.add_argument("--timeout", type=int, default=1800)
    a = ap.parse_args()
    try:
        spec = json.load(open(a.spec))
    except (OSError, ValueError) as e:
        sys.exit(f"shaping_boot: cannot read the spec {a.spec}: {e}")
    res = boot(a.linux, a.hz, a.highres, a.time_travel, spec, a.out, a.log, a.timeout)
    print(f"shaping_boot: {a.out} ({res['boot']['wall_s']} s)")


if __name__ == "__main__":
    main()
