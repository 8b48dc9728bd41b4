"""The KUnit replay's trace vectors (python -m msfc.model.kunit), which
kernel/scripts/prepare_tree.py writes into the Linux tree as net/sched/sch_msfc_vectors.h."""

from __future__ import annotations

import os
import re

from msfc.model import kunit, vectors


def names(header: str) -> list[str]:
    """The trace names of the msfc_vectors table, in order."""
    table = header[header.index("static const struct msfc_vector msfc_vectors[]") :]
    return re.findall(r'^\t\{ "([^"]+)",', table, re.M)


def test_committed_traces_then_the_generated_set():
    vdir = vectors.default_dir()
    committed = sorted(f[:-6] for f in os.listdir(vdir) if f.endswith(".trace"))
    header = kunit.vectors_header(3, vdir)
    assert names(header) == committed + [name for name, _ in vectors.generated_traces(3)]
    assert header.startswith("/* SPDX-License-Identifier: GPL-2.0-only */\n")
    # each trace's operations and expected decisions, referred to by the table
    for i in range(len(committed) + 3):
        assert f"msfc_vec_ops_{i}[] = {{" in header and f"msfc_vec_exp_{i}[] = {{" in header


def test_out_is_written_only_when_it_changes(tmp_path, capsys):
    out = tmp_path / "sch_msfc_vectors.h"
    assert kunit.main(["--generated", "0", "--out", str(out)]) == 0
    text = out.read_text()
    os.utime(out, (1, 1))
    assert kunit.main(["--generated", "0", "--out", str(out)]) == 0
    assert out.stat().st_mtime == 1  # unchanged: not rewritten, the kernel is not rebuilt
    assert kunit.main(["--generated", "0"]) == 0
    assert capsys.readouterr().out == text


def test_missing_trace_directory(tmp_path, capsys):
    assert kunit.main(["--dir", str(tmp_path / "nowhere")]) == 2
    assert "no trace directory" in capsys.readouterr().err
