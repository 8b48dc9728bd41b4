#!/usr/bin/env python3
"""Seeded fuzzing of the BPF qdisc msfc_bpf in the qemu VM (docs/kernel.md, "BPF qdisc").

The BPF qdisc takes its configuration from the loader (msfc-bpf load WORDS), not from netlink,
so this is its counterpart of kernel/test/fuzz_netlink.py: random sequences of loads with
valid and invalid parameters (the ranges and messages of pkt_sched_msfc.h), unloads and
reloads, counter reads, and tc qdisc add / replace / del of msfc_bpf (and of fq_codel and
pfifo in its place) at the roots of the router's two veths, under the four queues of an mq
root and under an htb class, while UDP traffic of four DSCPs runs through them (bpf/fuzz.sh
in the guest).  The same seed gives the same operations.

Checked: no kernel report (kernel/scripts/splats.py: WARNING, BUG, oops, lockdep, RCU
stall ...); every load the loader must refuse is refused with the words that name the
problem (the parameter and its range, or the rule broken), and a refused load registers
nothing; a valid load is accepted unless the kind is loaded already (then refused with
"already loaded"); unload, stats and tc's add / replace / del give what a model of the
kind's registration, the one instance per loaded program, and the qdiscs on each slot says;
every refusal has a message; traffic crossed msfc_bpf; at the end, with every qdisc deleted
and the kind unloaded, msfc_bpf cannot be added.

    make -C bpf test        a short run in the boot of the VM test (vmtest.py --fuzz-ops)
    make -C bpf fuzz        a longer run on its own (FUZZ_OPS=, FUZZ_SEED=)
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parent
HEADER = TOP / "kernel" / "include" / "uapi" / "linux" / "pkt_sched_msfc.h"
SLOTS = ("srv_r", "cli_r", "mq0:1", "mq0:2", "mq0:3", "mq0:4")  # root or under mq: allowed
KIND = "msfc_bpf"
DEFAULT_QUANTUM = 1514  # the loader's quantum: an Ethernet MTU frame


def header(path: Path = HEADER) -> dict[str, int | str]:
    """The #defines of pkt_sched_msfc.h that are a number or string literals."""
    text = path.read_text().replace("\\\n", " ")
    out: dict[str, int | str] = {}
    for m in re.finditer(r"^#define\s+(TC_MSFC_\w+)\s+(.+?)\s*$", text, re.MULTILINE):
        v = m.group(2).strip()
        if re.fullmatch(r"-?\d+", v):
            out[m.group(1)] = int(v)
        elif v.startswith('"'):
            out[m.group(1)] = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', v))
    return out


H = header()

#: the loader's numeric parameters: name -> unit (its parse of the value)
OPTS = {
    "prios": "count",
    "flows": "count",
    "quantum": "bytes",
    "ratio": "ratio",
    "target": "time",
    "interval": "time",
    "limit": "count",
    "memory_limit": "bytes",
    "drop_batch": "count",
}
MODES = {
    "overload": ("flow", "class"),
    "weights": ("rounded", "exact"),
    "boost": ("off", "on", "across"),
    "order": ("round", "priority"),
    "inversion": ("allow", "prevent"),
    "isolate": ("flow", "src", "dst", "both"),
    "auto": ("off", "unmarked", "all"),
}
SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30}
RATE_UNITS = {"bit": 1 / 8, "kbit": 1e3 / 8, "mbit": 1e6 / 8, "gbit": 1e9 / 8, "tbit": 1e12 / 8}


def lo_hi(name: str) -> tuple[int, int]:
    up = name.upper()
    return int(H[f"TC_MSFC_{up}_MIN"]), int(H[f"TC_MSFC_{up}_MAX"])


def must_be(name: str) -> str:
    """The start of the loader's message for a bad value of a numeric parameter."""
    return f"{name} must be {H[f'TC_MSFC_{name.upper()}_RANGE']}"


# --- the loader's derivations (msfc-bpf.c: class_quanta, link_len, the scaled target) -----


def class_quanta(prios: int, quantum: int, ratio: int, exact: bool) -> str | None:
    """None, or the message of the rule the derived class quanta break."""
    shift = 16 if exact else 0
    qp = quantum << shift
    out = [qp]
    for _ in range(1, prios):
        qp = (((qp * ratio) >> 15) + 1) >> 1
        if not exact and qp < 1:
            qp = 1
        if qp > (1 << int(H["TC_MSFC_CLASS_QUANTUM_MAX_LOG2"])) << shift:
            return str(H["TC_MSFC_CLASS_QUANTUM_MSG"])
        out.append(qp)
    if not exact:
        return None
    if any(q == 0 for q in out):
        return str(H["TC_MSFC_EXACT_WEIGHTS_MSG"])
    inv = sum((1 << 32) // q for q in out)
    return str(H["TC_MSFC_EXACT_WEIGHTS_MSG"]) if inv > (1 << 32) // 200 else None


def link_len(length: int, netoff: int, c: dict) -> int:
    raw = c.get("raw", int(H["TC_MSFC_RAW_DEFAULT"]))
    v = length if raw else length - min(netoff, length) + c.get("overhead", 0)
    v = max(v, c.get("mpu", 0), 0)
    if c.get("framing") == "atm":
        return (v + 47) // 48 * 53
    if c.get("framing") == "ptm":
        return v + (v + 63) // 64
    return v


def cross_rules(c: dict) -> str | None:
    """None, or the message of the first rule between parameters that the configuration c
    (parsed values: us, bytes, 16.16 ratio) breaks, in the loader's order."""
    prios = c.get("prios", int(H["TC_MSFC_PRIOS_DEFAULT"]))
    if c.get("quanta") and len(c["quanta"]) != prios:
        return str(H["TC_MSFC_QUANTA_COUNT_MSG"])
    target = c.get("target", int(H["TC_MSFC_TARGET_DEFAULT"]))
    interval = c.get("interval", int(H["TC_MSFC_INTERVAL_DEFAULT"]))
    if c.get("bandwidth") and "target" not in c:
        ns_per_byte = (10**9 << 32) // c["bandwidth"]
        ns = (ns_per_byte * link_len(DEFAULT_QUANTUM, 14, c)) >> 32
        us = ns * int(H["TC_MSFC_SCALED_TARGET_MTUS"]) // 10000
        us = min(max(us, int(H["TC_MSFC_TARGET_DEFAULT"])), int(H["TC_MSFC_TARGET_MAX"]) // 2)
        target = us
        if "interval" not in c:
            interval = max(us + int(H["TC_MSFC_SCALED_INTERVAL_EXTRA"]), interval)
    t, i = (target * 1000) >> 10, (interval * 1000) >> 10
    if not t or t >= i:
        return str(H["TC_MSFC_TARGET_INTERVAL_MSG"])
    if c.get("quanta"):
        return None
    return class_quanta(
        prios,
        c.get("quantum", DEFAULT_QUANTUM),
        c.get("ratio", int(H["TC_MSFC_RATIO_DEFAULT"])),
        c.get("weights") == "exact",
    )


# --- generation ---------------------------------------------------------------------------


@dataclass
class Op:
    verb: str
    args: list[str] = field(default_factory=list)
    refuse: str | None = None  # load: the words the loader's refusal must hold
    prios: int = 0  # load: the classes of the configuration

    def line(self, n: int) -> str:
        return " ".join([str(n), self.verb, *self.args])


def _valid(rng: random.Random) -> tuple[list[list[str]], dict]:
    """Groups of words (a parameter and its value, or one word) of a load with values valid
    one by one, and what they set (us, bytes, 16.16 ratio)."""
    if rng.random() < 0.1:  # a preset, as tc expands it
        name = rng.choice(("diffserv3", "diffserv4"))
        groups, c = [[name]], {"weights": "exact"}
        if name == "diffserv4":
            c |= {"prios": 4, "quanta": [95, 1514, 757, 378]}
        if rng.random() < 0.5:
            groups.append(["bandwidth", "20mbit"])
            c["bandwidth"] = 20 * 10**6 // 8
        return groups, c
    prios = rng.choice((1, 2, 3, 3, 4, 8, 16))
    groups: list[list[str]] = [["prios", str(prios)]]
    c: dict = {"prios": prios}
    names = ["flows", "quantum", "ratio", "target", "limit", "memory_limit", "drop_batch"]
    names += ["quanta", "dscp_map", "bandwidth", "overhead", "mpu", "framing", *MODES]
    for p in rng.sample(names, rng.randint(0, 7)):
        if p == "flows":  # prios x flows records: the largest only with few classes
            g = [p, str(rng.choice((1, 2, 64, 1024, 4096) + ((65536,) if prios <= 4 else ())))]
        elif p == "quantum":
            v, u = rng.choice(((1, ""), (64, "b"), (300, ""), (1514, ""), (9, "k"), (1, "mb")))
            g, c[p] = [p, f"{v}{u}"], v * SIZE_UNITS[u]
        elif p == "ratio":
            r = rng.choice(("1", "1.5", "2", "3", "16", "0.5", "0.0000153"))
            g, c[p] = [p, r], math.floor(float(r) * 65536 + 0.5)
        elif p == "target":
            us = rng.choice((2, 500, 5000, 20000))
            g, c[p] = [p, f"{us}us" if us < 1000 else f"{us // 1000}ms"], us
            if rng.random() < 0.5:
                iv = rng.choice((us + 1000, 100000, 2000000000))
                c["interval"] = iv
                g += ["interval", f"{iv // 1000}ms" if iv % 1000 == 0 else f"{iv}us"]
        elif p == "limit":
            g = [p, str(rng.choice((1, 100, 10240, 4294967295)))]
        elif p == "memory_limit":
            g = [p, rng.choice(("1", "65536", "32mb", "2g"))]
        elif p == "drop_batch":
            g = [p, str(rng.choice((1, 64, 65536)))]
        elif p == "quanta":
            c[p] = [rng.choice((1, 95, 1514, 3028, 1048576)) for _ in range(prios)]
            g = [p, ",".join(map(str, c[p]))]
        elif p == "dscp_map":
            # map entries: classes, NQB classes (k+nqb) and the least-effort lane (le)
            g = [
                p,
                rng.choice(
                    (
                        "wifi",
                        "diffserv4,ef:2",
                        "46:15",
                        "cs1:0,af41:3",
                        "le:0",
                        "le:le,nqb:1+nqb",
                        "diffserv4,le:le",
                        "le:0,nqb:5",
                        "ef:15+nqb,cs1:LE,0:le",
                        "NQB:2+NQB,af41:le",
                    )
                ),
            ]
        elif p == "bandwidth":
            v, u = rng.choice(((1, "mbit"), (4, "mbit"), (100, "mbit"), (8, "bit"), (1, "tbit")))
            g, c[p] = [p, f"{v}{u}"], math.floor(v * RATE_UNITS[u])
        elif p in ("overhead", "mpu"):
            v = rng.choice((-64, 0, 18, 256) if p == "overhead" else (0, 64, 256))
            g, c[p] = [p, str(v)], v
        elif p == "framing":
            f = rng.choice(("noatm", "atm", "ptm", "raw", "ingress", "egress"))
            g = [f]
            if f in ("atm", "ptm"):
                c["framing"] = f
            elif f == "raw":
                c["raw"] = 1
        else:
            g = [p, rng.choice(MODES[p])]
            c[p] = g[1]
        groups.append(g)
    rng.shuffle(groups)
    # the loader: raw unless given overhead (then raw only when "raw" is given too)
    if "raw" not in c:
        c["raw"] = 0 if "overhead" in c else int(H["TC_MSFC_RAW_DEFAULT"])
    return groups, c


#: rules between parameters broken, each value valid on its own: (words, what they set);
#: cross_rules() gives the message
CROSS = (
    (["target", "100ms", "interval", "100ms"], {"target": 100000, "interval": 100000}),
    (["target", "50ms", "interval", "20ms"], {"target": 50000, "interval": 20000}),
    (
        ["prios", "16", "ratio", "16", "quantum", "1048576"],
        {"prios": 16, "ratio": 16 << 16, "quantum": 1 << 20},
    ),
    (
        ["prios", "16", "ratio", "0.5", "quantum", "1", "weights", "exact"],
        {"prios": 16, "ratio": 1 << 15, "quantum": 1, "weights": "exact"},
    ),
    (["prios", "4", "quanta", "95,1514,757"], {"prios": 4, "quanta": [95, 1514, 757]}),
)


def _fault(rng: random.Random) -> tuple[list[str], str]:
    """Words with a value the loader must refuse as it parses, and the words its refusal
    must hold."""
    kind = rng.choice(("range", "range", "syntax", "mode", "other"))
    if kind == "range":
        name = rng.choice(list(OPTS))
        lo, hi = lo_hi(name)
        unit = OPTS[name]
        if unit == "time":
            v = rng.choice(("1us", f"{hi // 1000 + 1}ms"))
        elif unit == "ratio":
            v = rng.choice(("0", "16.0001", "-1"))
        elif name == "quantum":
            v = rng.choice(("0", str(hi + 1), "2mb"))
        elif unit == "bytes":
            v = rng.choice(("0", str(hi + 1), "5g"))
        else:
            v = rng.choice((str(lo - 1), str(hi + 1)))
        return [name, v], must_be(name)
    if kind == "syntax":
        name, v = rng.choice(
            (("prios", "3x"), ("target", "5"), ("quantum", "12q"), ("flows", "-4"), ("ratio", "x"))
        )
        return [name, v], must_be(name)
    if kind == "mode":
        name = rng.choice(list(MODES))
        return [name, rng.choice(("some", "ON", "1"))], f"{name} must be"
    return rng.choice(
        (
            (["ecn"], "ecn is not implemented by the BPF qdisc"),
            (["colour", "blue"], 'what is "colour"?'),
            (["quanta", "1514,,3"], "quanta must be byte counts"),
            (["quanta", "0,5"], str(H["TC_MSFC_QUANTA_RANGE_MSG"])),
            (["dscp_map", "ef:16"], str(H["TC_MSFC_DSCP_MAP_MSG"])),
            (["dscp_map", "nqb:16+nqb"], str(H["TC_MSFC_DSCP_MAP_MSG"])),
            (["dscp_map", "le:lane"], str(H["TC_MSFC_DSCP_MAP_MSG"])),
            (["dscp_map", "nqb:1+nq"], str(H["TC_MSFC_DSCP_MAP_MSG"])),
            (["dscp_map", "nqb:+nqb"], str(H["TC_MSFC_DSCP_MAP_MSG"])),
            (["dscp_map", "le:128"], str(H["TC_MSFC_DSCP_MAP_MSG"])),
            (["dscp_map", "nomap"], 'dscp_map "nomap" is neither a map name'),
            (["dscp_map", "64:1"], '"64" is not a DSCP'),
            (["dscp_map", "wifi,ef"], 'dscp_map entry "ef" is not DSCP:CLASS'),
            (["bandwidth", "fast"], "bandwidth must be"),
            (["bandwidth", "2tbit"], "bandwidth must be"),
            (["bandwidth", "7bit"], "bandwidth must be"),
            (["overhead", rng.choice(("-65", "257", "x"))], "overhead must be"),
            (["mpu", rng.choice(("257", "-1"))], "mpu must be"),
        )
    )


# --- checking -----------------------------------------------------------------------------


@dataclass
class Result:
    rc: int
    pinned: bool
    out: str
    err: str


def parse_results(text: str) -> dict[str, Result]:
    """fuzz.txt: "@@ N RC PINNED" records, each followed by its "O " and "E " lines."""
    res: dict[str, Result] = {}
    key = None
    for line in text.splitlines():
        if line.startswith("@@ "):
            _, key, rc, pinned = line.split()
            res[key] = Result(int(rc), pinned == "1", "", "")
        elif key and line.startswith("O "):
            res[key].out += line[2:] + "\n"
        elif key and line.startswith("E "):
            res[key].err += line[2:] + "\n"
    return res


class Model:
    """The kind's registration, the programs loaded, and what each slot holds.

    Every load that succeeds is a new program (a generation) with its own maps: it allows
    one instance at a time (EBUSY for a second), and an instance keeps working after its
    program is unloaded (the kind is then unregistered: a new load may register it again
    beside the old instance).  tc looks the kind up to create a qdisc, not to change one (a
    replace of msfc_bpf by msfc_bpf passes with no options, loaded or not); a slot's default
    qdisc (handle 0) counts as none."""

    def __init__(self) -> None:
        self.gen = 0  # the loaded program's generation; 0: none loaded
        self.next_gen = 1
        self.prios = 0
        self.slot: dict[str, tuple[str, int] | None] = dict.fromkeys(SLOTS)  # None: default

    def owned(self, gen: int) -> bool:
        return any(v == (KIND, gen) for v in self.slot.values())

    def expect(self, op: Op) -> tuple[bool | None, str]:
        """Whether op must succeed (None: either), and the words a refusal must hold."""
        if op.verb == "load":
            if op.refuse is not None:
                return False, op.refuse
            return (False, "already loaded") if self.gen else (True, "")
        if op.verb in ("unload", "stats"):
            return (True, "") if self.gen else (False, "not loaded")
        if op.verb == "sleep":
            return True, ""
        if op.verb == "del":
            return self.slot[op.args[0]] is not None, ""
        slot, kind = op.args
        if slot == "htb":
            return False, "root or mq" if self.gen else ""
        cur = self.slot[slot]
        if cur is not None and cur[0] == kind:  # add: exclusive; replace: a change, no options
            return op.verb == "replace", ""
        if kind == KIND and not self.gen:  # a new qdisc: tc looks the kind up
            return False, "unknown"
        if kind == KIND and self.owned(self.gen):
            return False, "busy"
        if cur is not None and op.verb == "add":
            return None, ""  # another kind there: tc refuses at a root, grafts under mq
        return True, ""

    def apply(self, op: Op, ok: bool) -> None:
        if not ok or op.verb in ("stats", "sleep"):
            return
        if op.verb == "load":
            self.gen, self.next_gen, self.prios = self.next_gen, self.next_gen + 1, op.prios
        elif op.verb == "unload":
            self.gen = 0
        elif op.verb == "del":
            self.slot[op.args[0]] = None
        elif op.args[0] != "htb":
            slot, kind = op.args
            cur = self.slot[slot]
            if cur is None or cur[0] != kind:
                self.slot[slot] = (kind, self.gen if kind == KIND else 0)


def operations(seed: int, n: int) -> list[Op]:
    """The seed's n operations (the same seed gives the same operations).  The generator
    follows the model with the outcomes it predicts, so that loads, instances, counter
    reads with traffic and unloads beside live instances all come often."""
    rng = random.Random(seed)
    m = Model()
    ops: list[Op] = []
    for _ in range(n):
        inst = any(v is not None and v[0] == KIND for v in m.slot.values())
        mine = bool(m.gen) and m.owned(m.gen)
        r = rng.random()
        p_load = 0.08 if m.gen else 0.35
        p_add = 0.0 if not m.gen or mine else 0.35
        if r < p_load:
            u = rng.random()
            if u < 0.08:  # a rule between parameters broken, each value valid
                words, c = rng.choice(CROSS)
                refuse = cross_rules(c)
            else:
                groups, c = _valid(rng)
                refuse = cross_rules(c)
                if u < 0.4:  # one value the parse refuses, among valid ones
                    bad, refuse = _fault(rng)
                    groups.insert(rng.randint(0, len(groups)), bad)
                words = [w for g in groups for w in g]
            op = Op("load", list(words), refuse, c.get("prios", 3))
        elif r < p_load + p_add:
            op = Op(rng.choice(("add", "replace")), [rng.choice(SLOTS), KIND])
        else:
            r = rng.random()
            if r < 0.12:
                op = Op("unload")
            elif r < 0.32 if inst else r < 0.17:
                op = Op("stats")
            elif r < 0.42 if inst else r < 0.2:
                op = Op("sleep", [str(rng.choice((50, 200, 500)))])
            elif r < 0.46:
                op = Op("add", ["htb", KIND])
            else:
                slot = rng.choice(SLOTS)
                verb = rng.choice(("add", "replace", "replace", "del", "del"))
                kind = KIND if rng.random() < 0.5 else rng.choice(("fq_codel", "pfifo"))
                op = Op(verb, [slot] if verb == "del" else [slot, kind])
        ok, _ = m.expect(op)
        m.apply(op, ok if ok is not None else True)
        ops.append(op)
    return ops


def check(ops: list[Op], results: dict[str, Result], dmesg: str) -> tuple[list, dict]:
    """[(name, ok, detail)] and counts of the fuzz run."""
    sys.path.insert(0, str(TOP / "kernel"))
    from scripts import splats  # noqa: PLC0415

    m = Model()
    bad: list[str] = []
    n = {
        "operations": len(ops),
        "run": 0,
        "loads_accepted": 0,
        "loads_refused_already_loaded": 0,
        "loads_invalid_refused": 0,
        "unloads": 0,
        "unloads_beside_instance": 0,
        "loads_beside_old_instance": 0,
        "instances_added": 0,
        "second_instance_refused": 0,
        "unregistered_refused": 0,
        "htb_refused": 0,
        "dels": 0,
        "stats_with_traffic": 0,
    }
    for i, op in enumerate(ops):
        r = results.get(str(i))
        if r is None:
            bad.append(f"#{i}: no result (the guest stopped before it)")
            break
        n["run"] += 1
        ok = r.rc == 0
        want, words = m.expect(op)
        why = ""
        if not ok and not r.err.strip():
            why = "refused without a message"
        elif want is not None and ok != want:
            why = "must succeed" if want else "must be refused"
        elif not ok and want is False and words.lower() not in r.err.lower():
            why = f"the refusal must say {words!r}"
        elif ok and op.verb == "stats":
            try:
                st = json.loads(r.out)
            except json.JSONDecodeError:
                st = {}
            if st.get("prios") != m.prios or len(st.get("classes", [])) != m.prios:
                why = f"stats -j must give the {m.prios} classes loaded"
            elif st["qdisc"].get("enqueued", 0) > 0:
                n["stats_with_traffic"] += 1
        inst = any(v is not None and v[0] == KIND for v in m.slot.values())
        if ok and op.verb == "load":
            n["loads_accepted"] += 1
            n["loads_beside_old_instance"] += inst
        elif not ok and op.verb == "load":
            n["loads_invalid_refused"] += op.refuse is not None
            n["loads_refused_already_loaded"] += op.refuse is None
        elif ok and op.verb == "unload":
            n["unloads"] += 1
            n["unloads_beside_instance"] += inst
        elif op.verb in ("add", "replace") and op.args[1] == KIND:
            if op.args[0] == "htb":
                n["htb_refused"] += not ok
            elif ok and (m.slot[op.args[0]] or ("", 0))[0] != KIND:
                n["instances_added"] += 1
            n["second_instance_refused"] += not ok and words == "busy"
            n["unregistered_refused"] += not ok and words == "unknown"
        elif ok and op.verb == "del":
            n["dels"] += 1
        m.apply(op, ok)
        if not why and r.pinned != bool(m.gen):
            why = (
                f"the kind is {'' if r.pinned else 'not '}pinned after it, the model says otherwise"
            )
            m.gen = m.gen if r.pinned else 0
        if why:
            bad.append(
                f"#{i} {op.verb} {' '.join(op.args)}: {why} (rc {r.rc}: {r.err.strip()[:200]})"
            )

    checks: list[tuple[str, bool, str]] = []
    checks.append(
        (
            "fuzz: every operation as the model says",
            not bad and n["run"] == len(ops),
            "\n".join(bad[:8]) + (f"\n... {len(bad)} in all" if len(bad) > 8 else ""),
        )
    )
    final_add = results.get("final_add")
    checks.append(
        (
            "fuzz: everything deleted and unloaded, msfc_bpf cannot be added",
            final_add is not None
            and final_add.rc != 0
            and KIND not in results.get("final_show", Result(1, False, KIND, "")).out,
            (final_add.err.strip() if final_add else "no final records")
            + " | "
            + (results["final_show"].out.strip() if "final_show" in results else ""),
        )
    )
    reports = splats.find(dmesg.splitlines())
    where = []
    for _, line_no, line in reports[:3]:
        ops_before = [x for x in dmesg.splitlines()[:line_no] if "msfc-fuzz: op" in x]
        where.append(
            f"{line} (after {ops_before[-1].split('msfc-fuzz: ')[-1] if ops_before else 'no operation'})"
        )
    checks.append(("fuzz: no kernel report", bool(dmesg) and not reports, "\n".join(where)))
    # a run long enough must have reached the states it exists for
    if len(ops) >= 100:
        need = (
            "loads_accepted",
            "loads_invalid_refused",
            "loads_refused_already_loaded",
            "instances_added",
            "second_instance_refused",
            "unregistered_refused",
            "htb_refused",
            "stats_with_traffic",
            "unloads_beside_instance",
            "loads_beside_old_instance",
        )
        missing = [k for k in need if not n[k]]
        checks.append(
            ("fuzz: reached every state it exists for", not missing, "never: " + ", ".join(missing))
        )
    return checks, n


def job_files(ops: list[Op]) -> dict[str, bytes]:
    return {
        "job/fuzz.sh": (HERE / "fuzz.sh").read_bytes(),
        "job/fuzz_ops.txt": "".join(op.line(i) + "\n" for i, op in enumerate(ops)).encode(),
    }


def main() -> int:
    from msfc.linux import qemu  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", type=Path, required=True)
    ap.add_argument("--initrd", type=Path, required=True)
    ap.add_argument("--loader", type=Path, required=True)
    ap.add_argument("--net", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--accel", default="tcg", help="tcg (default), kvm or auto")
    ap.add_argument("--print-ops", action="store_true", help="print the operations, no boot")
    a = ap.parse_args()
    ops = operations(a.seed, a.ops)
    if a.print_ops:
        print("".join(op.line(i) + "\n" for i, op in enumerate(ops)), end="")
        return 0
    job = {
        "job/run.sh": b". /job/net.sh\n. /job/fuzz.sh\nfuzz_bpf\n",
        "job/net.sh": a.net.read_bytes(),
        "job/msfc-bpf": a.loader.read_bytes(),
        **job_files(ops),
    }
    a.out.mkdir(parents=True, exist_ok=True)
    res = qemu.boot(
        a.kernel,
        a.initrd,
        job,
        accel=a.accel,
        timeout=600 + 2 * a.ops,
        failure_log=a.out / "boot.log",
    )
    (a.out / "boot.log").write_text(res.full_log())
    for name in ("fuzz.txt", "fuzz_dmesg.txt", "fuzz_ops.txt"):
        if name in res.files:
            (a.out / name).write_bytes(res.files[name])
    checks, counts = check(ops, parse_results(res.text("fuzz.txt")), res.text("fuzz_dmesg.txt"))
    summary = {
        "seed": a.seed,
        "ops": a.ops,
        "accel": res.accel,
        "wall_seconds": round(res.wall_seconds, 1),
        "fuzz_seconds": res.text("fuzz_seconds.txt").strip(),
        "counts": counts,
        "checks": [{"name": c, "ok": ok, "detail": d} for c, ok, d in checks],
    }
    (a.out / "result.json").write_text(json.dumps(summary, indent=1) + "\n")
    failed = 0
    for name, ok, detail in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
        failed += not ok
    print(
        f"bpf fuzz: seed {a.seed}, {counts['run']} of {a.ops} operations, "
        + ", ".join(f"{k} {v}" for k, v in counts.items() if k not in ("operations", "run"))
        + f"; {len(checks) - failed}/{len(checks)} checks passed ({res.accel}, "
        f"{res.wall_seconds:.0f} s, fuzz {summary['fuzz_seconds']} s)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
