#!/usr/bin/env python3
"""The BPF qdisc in Debian 13's 7.3.4 kernel under qemu: boot with guest.sh, check /out.

Checks: bad parameters refused with the UAPI header's messages, the program loads and
registers msfc_bpf, tc adds it as root qdisc, ping passes, a second instance is refused,
three saturating TCP uploads of CS1, BE and AF41 (classes 0, 1, 2) share the shaped link
as their class quanta 1:2:4 within TOLERANCE, the loader's stats count every class, and the
kernel logs no warning.  Before those, the boot path of the package (--deb): its files
unpacked in the guest apply saved configurations in /etc/msfc through the ifupdown hook and
msfc-apply (load from a .bpf file, again without change, a changed file, a bad file, a second
interface, the module's .tc file).  With --replay-module the same boot then replays the
cross-check traces (bpf/replay.py, bpf/replay.sh), with --fuzz-ops N it runs N operations of
the fuzz step (bpf/fuzz.py, bpf/fuzz.sh); their checks are added.  Writes OUT/result.json and
OUT/boot.log; exit 1 on a failed check.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import fuzz
import replay
from msfc.linux import qemu

TOLERANCE = 0.15
SHARES = (1, 2, 4)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", type=Path, required=True)
    ap.add_argument("--initrd", type=Path, required=True)
    ap.add_argument("--loader", type=Path, required=True)
    ap.add_argument("--job", type=Path, required=True)
    ap.add_argument("--net", type=Path, required=True)
    ap.add_argument(
        "--deb", type=Path, required=True, help="the msfc-bpf package (make -C bpf deb)"
    )
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--rate-kbit", type=int, default=4000)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--accel", default="tcg", help="tcg (default), kvm or auto")
    ap.add_argument(
        "--fuzz-ops", type=int, default=0, help="then this many fuzz operations (bpf/fuzz.py)"
    )
    ap.add_argument("--fuzz-seed", type=int, default=1)
    ap.add_argument(
        "--replay-module",
        type=Path,
        help="msfc_bpf_replay.ko: then replay the traces (bpf/replay.py) in the same boot",
    )
    a = ap.parse_args()
    env = f"export RATE={a.rate_kbit}\nexport DURATION={a.duration}\n"
    run = env + a.job.read_text()
    ops = fuzz.operations(a.fuzz_seed, a.fuzz_ops) if a.fuzz_ops else []
    if a.replay_module:  # after the checks of the job, in the same boot
        run += "\n# the cross-check traces: bpf/replay.sh\n( . /job/replay.sh )\n"
    if ops:
        run += "\n# the fuzz step: bpf/fuzz.sh\n. /job/fuzz.sh\nfuzz_bpf\n"
    job = {
        "job/run.sh": run.encode(),
        "job/net.sh": a.net.read_bytes(),
        "job/msfc-bpf": a.loader.read_bytes(),
        # the package's files as dpkg would unpack them
        "job/root.tar": subprocess.run(
            ["dpkg-deb", "--fsys-tarfile", str(a.deb)], check=True, capture_output=True
        ).stdout,
        **(replay.job_files(a.replay_module) if a.replay_module else {}),
        **(fuzz.job_files(ops) if ops else {}),
    }
    shutil.rmtree(a.out / "files", ignore_errors=True)
    a.out.mkdir(parents=True, exist_ok=True)
    res = qemu.boot(
        a.kernel,
        a.initrd,
        job,
        accel=a.accel,
        timeout=900,
        failure_log=a.out / "boot.log",
    )
    (a.out / "boot.log").write_text(res.full_log())
    for name, data in res.files.items():
        p = a.out / "files" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)

    checks: list[tuple[str, bool, str]] = []

    def rc(step: str) -> int:
        t = res.text(f"{step}.rc").strip()
        return int(t) if t else -1

    def check(name: str, ok: bool, detail: str = "") -> None:
        checks.append((name, bool(ok), detail))

    def qdiscs(step: str) -> list[dict]:
        try:
            return json.loads(res.text(f"{step}.out") or "[]")
        except json.JSONDecodeError:
            return []

    def kinds(step: str) -> list[str]:
        return [q.get("kind", "") for q in qdiscs(step)]

    def stats_of(step: str) -> dict:
        try:
            return json.loads(res.text(f"{step}.out") or "{}")
        except json.JSONDecodeError:
            return {}

    def said(step: str) -> str:
        return (res.text(f"{step}.out") + res.text(f"{step}.err")).strip()

    # the package's boot path
    first = stats_of("boot_bpf_stats")
    again = stats_of("boot_bpf_stats_again")
    out = res.text("boot_bpf.out")
    check(
        "boot: the ifupdown hook loads msfc_bpf from /etc/msfc/bpf0.bpf (the package's files)",
        rc("boot_bpf") == 0
        and "registered qdisc msfc_bpf: prios 3" in out
        and "bandwidth 10000000bit" in out
        and kinds("boot_bpf_show") == ["msfc_bpf"],
        said("boot_bpf"),
    )
    check("boot: msfc-apply mounted bpffs", bool(res.text("boot_bpffs.txt").strip()))
    check(
        "boot: packets pass the qdisc applied at boot",
        first.get("prios") == 3 and first.get("qdisc", {}).get("enqueued", 0) > 0,
        res.text("boot_bpf_stats.out").strip() + res.text("boot_bpf_stats.err").strip(),
    )
    handle = [q.get("handle") for q in qdiscs("boot_bpf_show")]
    check(
        "boot: applied again (hook, unit) leaves the qdisc and its registration alone",
        rc("boot_bpf_again") == 0
        and "already" in res.text("boot_bpf_again.out")
        and rc("boot_bpf_unit") == 0
        and "already" in res.text("boot_bpf_unit.out")
        and [q.get("handle") for q in qdiscs("boot_bpf_show_again")] == handle
        and again.get("qdisc", {}).get("enqueued", 0)
        >= first.get("qdisc", {}).get("enqueued", 1)
        > 0,
        said("boot_bpf_again") + "\n" + said("boot_bpf_unit") + f"\nhandles {handle}",
    )
    check(
        "boot: a changed file registers msfc_bpf again with its parameters",
        rc("boot_bpf_changed") == 0
        and "registered qdisc msfc_bpf: prios 4" in res.text("boot_bpf_changed.out")
        and stats_of("boot_bpf_changed_stats").get("prios") == 4,
        said("boot_bpf_changed"),
    )
    check(
        "boot: a bad file is refused with the loader's message and changes nothing",
        rc("boot_bpf_bad") == 1
        and 'prios must be 1 .. 16, got "17"' in res.text("boot_bpf_bad.err")
        and "bpf0 is unchanged" in res.text("boot_bpf_bad.err")
        and kinds("boot_bpf_bad_show") == ["msfc_bpf"]
        and stats_of("boot_bpf_bad_stats").get("prios") == 4,
        said("boot_bpf_bad"),
    )
    check(
        "boot: a second interface is refused (one instance)",
        rc("boot_bpf_second") == 2
        and "msfc_bpf is already the qdisc of bpf0" in res.text("boot_bpf_second.err")
        and "msfc_bpf" not in kinds("boot_bpf_second_show"),
        said("boot_bpf_second"),
    )
    check(
        "boot: the module path's .tc file applied twice (htb and msfc)",
        rc("boot_tc") == 0
        and rc("boot_tc_again") == 0
        and sorted(kinds("boot_tc_show")) == ["htb", "msfc"],
        said("boot_tc") + said("boot_tc_again") + str(kinds("boot_tc_show")),
    )
    check(
        "boot: a .tc file tc refuses halfway leaves no half tree",
        rc("boot_tc_bad") == 1
        and "tc refused it" in res.text("boot_tc_bad.err")
        and "htb" not in kinds("boot_tc_bad_show"),
        said("boot_tc_bad") + str(kinds("boot_tc_bad_show")),
    )
    check(
        "boot: .tc and .bpf for one interface refused",
        rc("boot_both") == 2 and "both" in res.text("boot_both.err"),
        said("boot_both"),
    )

    refusals = {
        "bad_prios": "prios must be 1 .. 16",
        "bad_ratio": "ratio must be 1/65536 .. 16",
        "bad_target": "target must be at least 2 us and below interval",
        "bad_quanta": "quantum * ratio^(prios-1) exceeds 2^40 bytes",
        "bad_time": 'target must be 2 us .. 2000 s, got "5": not a time with a unit',
        "bad_isolate": 'isolate must be flow, src, dst or both, got "host"',
        "bad_auto": 'auto must be off, unmarked or all, got "some"',
        "bad_ecn": "ecn is not implemented by the BPF qdisc",
        "bad_quanta_count": "quanta must have one entry per class",
        "bad_dscp_map": "dscp map entries must be classes 0 .. 15",
    }
    for step, msg in refusals.items():
        err = res.text(f"{step}.err")
        check(f"{step} refused", rc(step) != 0 and msg in err, err.strip())
    check(
        "add before load refused", rc("not_loaded_add") != 0, res.text("not_loaded_add.err").strip()
    )
    check("load", rc("load") == 0, (res.text("load.out") + res.text("load.err")).strip())
    check(
        "second load refused",
        rc("load_again") != 0 and "already loaded" in res.text("load_again.err"),
        res.text("load_again.err").strip(),
    )
    check("tc qdisc add root msfc_bpf", rc("add") == 0, res.text("add.err").strip())
    try:
        kinds = [q.get("kind") for q in json.loads(res.text("show_add.out") or "[]")]
    except json.JSONDecodeError:
        kinds = []
    check("tc shows msfc_bpf", "msfc_bpf" in kinds, str(kinds))
    check("second instance refused", rc("add_second") != 0, res.text("add_second.err").strip())
    check(
        "ping through msfc_bpf",
        rc("ping") == 0,
        res.text("ping.out").strip().splitlines()[-1:]
        and res.text("ping.out").strip().splitlines()[-1],
    )

    measured = {}
    labels = {
        "class": "defaults",
        "modes": "diffserv3 (overload class, weights exact, boost across), order priority",
        "quanta": "boost on, quanta 1514,3028,6056, overhead 18 mpu 64 ptm ingress",
    }
    for run, label in labels.items():
        goodput = []
        for i in range(3):
            try:
                j = json.loads(res.text(f"iperf_{run}{i}.json") or "{}")
                goodput.append(j["end"]["sum_received"]["bits_per_second"])
            except (KeyError, json.JSONDecodeError):
                goodput.append(0.0)
        total = sum(goodput)
        shares = [g / total if total else 0.0 for g in goodput]
        expect = [s / sum(SHARES) for s in SHARES]
        errors = [abs(s / e - 1) for s, e in zip(shares, expect, strict=True)]
        check(
            f"class shares 1:2:4 within {TOLERANCE:.0%} ({label})",
            total > 0 and max(errors) <= TOLERANCE,
            "goodput kbit/s "
            + ", ".join(f"{g / 1e3:.0f}" for g in goodput)
            + "; shares "
            + ", ".join(f"{s:.3f}" for s in shares)
            + " (expected "
            + ", ".join(f"{e:.3f}" for e in expect)
            + ")",
        )
        measured[run] = {"goodput_bps": goodput, "shares": shares, "expected": expect}
    inv = []
    for i in range(2):
        try:
            j = json.loads(res.text(f"iperf_inv{i}.json") or "{}")
            inv.append(j["end"]["sum_received"]["bits_per_second"])
        except (KeyError, json.JSONDecodeError):
            inv.append(0.0)
    inv_total = sum(inv)
    inv_shares = [g / inv_total if inv_total else 0.0 for g in inv]
    inv_expect = [757 / (757 + 6056), 6056 / (757 + 6056)]
    check(
        f"inversion prevent: shares 1:8 within {TOLERANCE:.0%}",
        inv_total > 0
        and max(abs(s / e - 1) for s, e in zip(inv_shares, inv_expect, strict=True)) <= TOLERANCE,
        "goodput kbit/s "
        + ", ".join(f"{g / 1e3:.0f}" for g in inv)
        + "; shares "
        + ", ".join(f"{s:.3f}" for s in inv_shares)
        + " (expected "
        + ", ".join(f"{e:.3f}" for e in inv_expect)
        + "; 0.333, 0.667 without inversion prevent)",
    )
    measured["inversion"] = {"goodput_bps": inv, "shares": inv_shares, "expected": inv_expect}
    # the isolate test's last run: a second one is made when the first saw fewer than five
    # flow queues for its five flows (bpf/guest.sh, iso_run)
    iso_runs = [n for n in (0, 1) if res.text(f"iso_flows{n}.txt").strip()]
    iso_run = iso_runs[-1] if iso_runs else 0
    iso_queues = [int(res.text(f"iso_flows{n}.txt").strip()) for n in iso_runs]
    # the runs whose files the checks below read: the first at least, when none wrote its count
    iso_checked = iso_runs or [0]
    iso = []
    for i in range(2):
        try:
            j = json.loads(res.text(f"iperf_iso{iso_run}{i}.json") or "{}")
            iso.append(j["end"]["sum_received"]["bits_per_second"])
        except (KeyError, json.JSONDecodeError):
            iso.append(0.0)
    iso_total = sum(iso)
    iso_shares = [g / iso_total if iso_total else 0.0 for g in iso]
    check(
        f"isolate src: two hosts (4 flows, 1 flow) share 1:1 within {TOLERANCE:.0%}",
        iso_total > 0
        and bool(iso_queues)
        and iso_queues[-1] >= 5
        and max(abs(x / 0.5 - 1) for x in iso_shares) <= TOLERANCE,
        "goodput kbit/s "
        + ", ".join(f"{g / 1e3:.0f}" for g in iso)
        + "; shares "
        + ", ".join(f"{x:.3f}" for x in iso_shares)
        + " (expected 0.500, 0.500; 0.800, 0.200 per flow); most active flow queues seen "
        + " then ".join(str(q) for q in iso_queues)
        + " (5 wanted; a run with fewer, two flows in one queue, is made again once)",
    )
    measured["isolate"] = {
        "goodput_bps": iso,
        "shares": iso_shares,
        "expected": [0.5, 0.5],
        "active_flow_queues": iso_queues,
    }
    try:
        au = json.loads(res.text("stats_auto_j.out") or "{}")
    except json.JSONDecodeError:
        au = {}
    aq = au.get("qdisc", {})
    acl = au.get("classes", [])
    check(
        "auto unmarked: the ping climbs to class 2, the bulk flow sinks to class 0",
        len(acl) == 3
        and acl[2].get("enqueued", 0) > 0
        and acl[0].get("enqueued", 0) > 0
        and aq.get("auto_promotions", 0) > 0
        and aq.get("auto_demotions", 0) > 0,
        res.text("stats_auto.out").strip(),
    )
    # LE and NQB: the lane gets what class 1 leaves, the NQB stream is never moved
    try:
        le = json.loads(res.text("stats_le_j.out") or "{}")
    except json.JSONDecodeError:
        le = {}
    lane, lcl, lq = le.get("lane", {}), le.get("classes", []), le.get("qdisc", {})
    try:
        nqb_lost = json.loads(res.text("iperf_le2.json") or "{}")["end"]["sum"]["lost_packets"]
    except (KeyError, json.JSONDecodeError):
        nqb_lost = -1
    be_bytes = lcl[1].get("dequeued_bytes", 0) if len(lcl) == 3 else 0
    check(
        "LE and NQB: the lane takes less than 10 % of what class 1 sends; the NQB stream "
        "loses nothing and is never moved by queue protection",
        lane.get("enqueued", 0) > 0
        and be_bytes > 0
        and lane.get("dequeued_bytes", 0) < be_bytes / 10
        and nqb_lost == 0
        and lq.get("nqb_demotions", -1) == 0,
        res.text("stats_le.out").strip() + f"; NQB stream lost {nqb_lost}",
    )
    measured["le_nqb"] = {
        "lane_dequeued_bytes": lane.get("dequeued_bytes", 0),
        "class1_dequeued_bytes": be_bytes,
        "nqb_lost_packets": nqb_lost,
        "nqb_demotions": lq.get("nqb_demotions", -1),
    }
    for run in ("modes", "quanta", "inv", *(f"iso{n}" for n in iso_checked), "auto", "le"):
        steps = [f"{x}_{run}" for x in ("load", "add", "del", "unload")]
        check(
            f"{run} run: load, add, del, unload",
            all(rc(x) == 0 for x in steps),
            "".join(res.text(f"{x}.err") for x in steps),
        )
    try:
        st = json.loads(res.text("stats_j.out"))
    except json.JSONDecodeError:
        st = {}
    classes = st.get("classes", [])
    deq = [c.get("dequeued_bytes", 0) for c in classes]
    check(
        "stats count classes 0, 1, 2",
        len(classes) == 3 and all(c.get("enqueued", 0) > 0 for c in classes),
        res.text("stats.out").strip(),
    )
    check("tc qdisc del", rc("del") == 0, res.text("del.err").strip())
    check("unload", rc("unload") == 0, res.text("unload.err").strip())
    check("kind gone after unload", rc("add_unloaded") != 0, res.text("add_unloaded.err").strip())
    try:
        small = json.loads(res.text("stats_small_j.out"))
    except json.JSONDecodeError:
        small = {}
    qd = small.get("qdisc", {})
    check(
        "overload drops under a UDP flood (limit 100)",
        rc("load_small") == 0
        and rc("add_small") == 0
        and qd.get("overload_drops", 0) > 0
        and qd.get("overload_events", 0) > 0
        and rc("del_small") == 0
        and rc("unload_small") == 0,
        res.text("stats_small.out").strip()
        + res.text("load_small.err")
        + res.text("add_small.err"),
    )
    # every packet is accounted for: enqueued = dequeued + dropped + still queued
    for name, snap in (
        ("defaults", st),
        ("modes", json.loads(res.text("stats_modes_j.out") or "{}")),
        ("quanta", json.loads(res.text("stats_quanta_j.out") or "{}")),
        ("inversion", json.loads(res.text("stats_inv_j.out") or "{}")),
        *(
            (f"isolate {n}", json.loads(res.text(f"stats_iso{n}_j.out") or "{}"))
            for n in iso_checked
        ),
        ("auto", au),
        ("le", le),
        ("overload", small),
    ):
        q = snap.get("qdisc", {})
        lhs = q.get("enqueued", -1)
        rhs = (
            q.get("dequeued", 0)
            + q.get("codel_drops", 0)
            + q.get("overload_drops", 0)
            + q.get("qlen", 0)
        )
        check(
            f"packet accounting ({name})",
            lhs == rhs and lhs > 0,
            f"enqueued {lhs} = dequeued {q.get('dequeued')} + codel {q.get('codel_drops')} + overload {q.get('overload_drops')} + queued {q.get('qlen')}",
        )
    dmesg = res.text("dmesg.txt")
    bad = [x for x in dmesg.splitlines() if "WARNING" in x or "BUG" in x or "Oops" in x]
    check("no kernel warning", not bad, "\n".join(bad[:5]))
    replay_summary = {}
    if a.replay_module:
        replay_checks, replay_summary = replay.check(res)
        for name, ok, detail in replay_checks:
            check(name, ok, detail)
    fuzz_counts = {}
    if ops:
        fuzz_checks, fuzz_counts = fuzz.check(
            ops, fuzz.parse_results(res.text("fuzz.txt")), res.text("fuzz_dmesg.txt")
        )
        for name, ok, detail in fuzz_checks:
            check(name, ok, detail)

    result = {
        "kernel": a.kernel.name,
        "accel": res.accel,
        "wall_seconds": round(res.wall_seconds, 1),
        "rate_kbit": a.rate_kbit,
        "duration_s": a.duration,
        "shares": measured,
        "dequeued_bytes": deq,
        "stats": st,
        "stats_overload": small,
        "stats_modes": json.loads(res.text("stats_modes_j.out") or "{}"),
        "stats_quanta": json.loads(res.text("stats_quanta_j.out") or "{}"),
        "load_output": {r: res.text(f"load_{r}.out") for r in ("modes", "quanta")}
        | {"class": res.text("load.out")},
        "replay": replay_summary,
        "fuzz": {"seed": a.fuzz_seed, "seconds": res.text("fuzz_seconds.txt").strip()}
        | fuzz_counts,
        "checks": [{"name": n, "ok": ok, "detail": d} for n, ok, d in checks],
    }
    (a.out / "result.json").write_text(json.dumps(result, indent=1) + "\n")
    failed = 0
    for n, ok, d in checks:
        print(
            f"{'ok  ' if ok else 'FAIL'} {n}"
            + (
                f": {d}"
                if d and (not ok or "share" in n or "accounting" in n or "auto" in n)
                else ""
            )
        )
        failed += not ok
    if ops:
        print(
            f"bpf fuzz: seed {a.fuzz_seed}, {fuzz_counts.get('run', 0)} of {len(ops)} operations in "
            f"{res.text('fuzz_seconds.txt').strip() or '?'} s: "
            + ", ".join(
                f"{k} {v}" for k, v in fuzz_counts.items() if k not in ("operations", "run")
            )
        )
    print(
        f"bpf vmtest: {len(checks) - failed}/{len(checks)} checks passed ({res.accel}, {res.wall_seconds:.0f} s)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
