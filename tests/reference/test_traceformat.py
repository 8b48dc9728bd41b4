"""The trace format's header keys: one table (tools/lib/msfc-trace-keys.def) that the
reference model, the KUnit replay's generator and the ns-3 replayer all read."""

import pytest
from conftest import real_build_dir
from msfc.model import params as P
from msfc.model import reference as ref
from msfc.model import traceformat as tf
from msfc.model.differential import Ns3Replay, ReplayError

BUILD = real_build_dir("msfc-trace-replay")
needs_ns3 = pytest.mark.skipif(BUILD is None, reason="no build/msfc-trace-replay: run `make build`")


def test_the_reference_takes_every_key_with_the_tables_default():
    assert list(ref.DEFAULTS) == list(tf.KEYS)
    q = ref.Msfc()
    assert q.params["flows"] == 1024 and q.params["quanta"] is None
    assert q.params["ce_threshold"] is None and q.params["auto"] == "off"
    with pytest.raises(TypeError, match="unknown parameters colour"):
        ref.Msfc(colour=1)


def test_modes_are_tcs_words_and_netlink_attributes_exist():
    header = P.HEADER.read_text()
    for key in tf.KEYS.values():
        assert key.netlink in header, key
        if key.kind == "MODE":
            assert ref.CHANGE_MODES[key.name] == P.CHOICES[key.name]
            assert key.default == P.CHOICES[key.name][0]  # tc's default too


@pytest.mark.parametrize(
    "line, message",
    [
        ('MSFC_TRACE_KEY(prios, 1, "3", INT, "Prios")', "expected MSFC_TRACE_KEY"),
        ('MSFC_TRACE_KEY(prios, 1, "3", FLOAT, "Prios", TCA_MSFC_PRIOS)', "expected"),
        ("MSFC_TRACE_FORMAT(six)", "expected one line 'MSFC_TRACE_FORMAT"),
    ],
)
def test_a_malformed_table_line_is_an_error(tmp_path, line, message):
    good = tf.DEF.read_text().splitlines()
    bad = tmp_path / "keys.def"
    bad.write_text("\n".join([*good, line]) + "\n")
    with pytest.raises(RuntimeError, match=message) as e:
        tf.read(bad)
    assert f"{bad}:{len(good) + 1}:" in str(e.value)


def late_lines():
    """For every key newer than version 1: a P line and (keys newer than C lines) a C line
    naming it one version too early, with what both readers must say."""
    for key in tf.KEYS.values():
        if key.version == 1:
            continue
        early = key.version - 1
        yield (
            f"P version={early} prios=2 {key.name}={key.default}",
            f"{key.name} needs version={key.version} on the P line",
        )
        if early >= 4:  # C lines exist from version 4
            yield (
                f"P version={early} prios=2\nC {key.name}={key.default}",
                f"{key.name} on a C line needs version={key.version} on the P line",
            )
    yield ("P prios=2 target=5000 isolate=flow", "target isolate need version=3 on the P line")


@pytest.mark.parametrize("trace, message", list(late_lines()))
def test_the_reference_names_keys_too_new_for_the_trace(trace, message):
    with pytest.raises(ref.TraceError) as e:
        ref.replay(trace.splitlines())
    assert str(e.value).endswith(": " + message)


@pytest.fixture(scope="module")
def ns3():
    with Ns3Replay(BUILD / "msfc-trace-replay") as r:
        yield r


@needs_ns3
@pytest.mark.parametrize("trace, message", list(late_lines()))
def test_ns3_names_them_in_the_same_words(ns3, trace, message):
    with pytest.raises(ReplayError) as e:
        ns3.replay(trace)
    assert str(e.value).endswith(": " + message)
