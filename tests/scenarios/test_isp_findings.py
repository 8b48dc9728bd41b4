"""The thesis's findings on a small, seeded ISP tree (issue: the thesis benchmark).

Runs `scenario-isp-tree --preset=quick --duration=8` (the thesis network and traffic at 1/4
scale, 8 simulated s, RNG run 1) under PfifoFast, CoDel, FqCoDel and Msfc, two at a time, and
checks the orderings the thesis reports (Tables 3.5-3.7), computed with the msfc package's
metric definitions from the raw files. About a minute of wall time on 2 cores.
"""

import os
import subprocess
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
from msfc.analysis import metrics as M

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("MSFC_BUILD_DIR", ROOT / "build"))
PROGRAM = BUILD / "scenario-isp-tree"
SCHEDULERS = ["PfifoFast", "CoDel", "FqCoDel", "Msfc"]
TCP_TYPES = ["SSH", "voip", "game", "TVStream", "http", "download"]


@unittest.skipUnless(PROGRAM.exists(), f"{PROGRAM} not built: run `make build`")
class ThesisFindings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        out = Path(cls.tmp.name)

        def run(s):
            subprocess.run(
                [
                    str(PROGRAM),
                    "--preset=quick",
                    "--duration=8",
                    "--rng-run=1",
                    f"--scheduler={s}",
                    f"--out={out / s}",
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            flows = M.flow_metrics(M.select_flows(pd.read_csv(out / s / "flows.csv"), "down"))
            return s, flows

        with ThreadPoolExecutor(max_workers=2) as pool:
            cls.flows = dict(pool.map(run, SCHEDULERS))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def mean_delay_ms(self, s, t):
        f = self.flows[s][self.flows[s]["type"] == t]
        return f["delay_sum_s"].sum() / f["rx_packets"].sum() * 1000

    def throughput(self, s, t):
        f = self.flows[s]
        return f[f["type"] == t]["throughput_kbps"].mean()

    def torrent_share(self, s):
        f = self.flows[s]
        return f[f["type"] == "torrent"]["throughput_kbps"].sum() / f["throughput_kbps"].sum()

    def test_single_queue_schedulers_delay_tcp_types_more(self):
        for t in TCP_TYPES:
            fair = max(self.mean_delay_ms("FqCoDel", t), self.mean_delay_ms("Msfc", t))
            for s in ("PfifoFast", "CoDel"):
                with self.subTest(type=t, scheduler=s):
                    self.assertGreater(self.mean_delay_ms(s, t), fair)

    def test_torrent_is_held_to_a_small_share_only_by_the_fair_schedulers(self):
        for s in ("FqCoDel", "Msfc"):
            with self.subTest(scheduler=s):
                self.assertLess(self.torrent_share(s), 0.25)
        for s in ("PfifoFast", "CoDel"):
            with self.subTest(scheduler=s):
                self.assertGreater(self.torrent_share(s), 0.45)

    def test_msfc_gives_the_top_class_more_than_fq_codel(self):
        # TVStream is in class 2 (Table 3.3); its rate at this scale is 3 Mbps / 4 = 750 kbps.
        self.assertGreater(
            self.throughput("Msfc", "TVStream"), 1.5 * self.throughput("FqCoDel", "TVStream")
        )
        self.assertGreater(self.throughput("Msfc", "TVStream"), 700)

    def test_interactive_types_fare_alike_under_fq_codel_and_msfc(self):
        for t in ("SSH", "voip", "game"):
            with self.subTest(type=t):
                self.assertAlmostEqual(
                    self.throughput("Msfc", t),
                    self.throughput("FqCoDel", t),
                    delta=0.05 * self.throughput("FqCoDel", t),
                )


if __name__ == "__main__":
    unittest.main()
