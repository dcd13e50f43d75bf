"""Fuzz: policy files and the tournament command line.

Every case runs in the crash-catching worker of ``fuzz_harness`` (docs/TESTING.md).
Policy files start as a shipped policy and get changed arrays (shape, dtype, values,
pickled objects), changed metadata or changed bytes; the loader must refuse them naming
the file, or accept them and then play only legal actions, and never unpickle. The CLI
gets flag lists drawn from its grammar with any values; it must exit 0, 1 or 2 without
a traceback, name a flag or an agent when it refuses, and write nothing outside
``--out``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from typing import Any

import numpy as np
from fuzz_harness import attempt, fuzz_settings, refusal_failures, run_case
from helpers import POLICY_FILE
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_states import ANY, INTS

# -- policy files ---------------------------------------------------------------------------------
KEYS = ["scale", "w0", "b0", "w1", "b1", "w_out", "b_out", "meta", "w2", "extra"]
ARRAY_EDITS = st.one_of(
    st.builds(lambda k: {"op": "drop", "key": k}, st.sampled_from(KEYS)),
    st.builds(
        lambda k, how: {"op": "reshape", "key": k, "how": how},
        st.sampled_from(KEYS),
        st.sampled_from(["T", "rows-1", "cols-1", "newaxis", "ravel", "empty", "scalar"]),
    ),
    st.builds(
        lambda k, d: {"op": "dtype", "key": k, "dtype": d},
        st.sampled_from(KEYS),
        st.sampled_from(
            ["float64", "float16", "int32", "bool", "complex64", "<U2", "object", "V4", "uint8"]
        ),  # fmt: skip
    ),
    st.builds(
        lambda k, v, f: {"op": "element", "key": k, "value": v, "frac": f},
        st.sampled_from(KEYS),
        st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -1.0, 1e39, 1e-45, 3.0]),
        st.floats(0, 1),
    ),
    st.builds(lambda k, v: {"op": "replace", "key": k, "value": v}, st.sampled_from(KEYS), ANY),
    st.builds(lambda k: {"op": "evil", "key": k}, st.sampled_from(KEYS)),
)
META_EDITS = st.one_of(
    st.builds(
        lambda k, v: {"op": "meta", "key": k, "value": v},
        st.sampled_from(
            [
                "format",
                "activation",
                "num_players",
                "observation_mode",
                "double_ingredients",
                "canonical",
                "obs_sections",
                "other",
            ]
        ),  # fmt: skip
        st.one_of(ANY, st.sampled_from([2, 3, 4, 5, "tanh", "relu", "top_card", True, False])),
    ),
    st.builds(
        lambda k: {"op": "meta_drop", "key": k},
        st.sampled_from(["format", "num_players", "activation", "obs_sections"]),
    ),  # fmt: skip
    st.builds(lambda t: {"op": "meta_text", "text": t}, st.text(max_size=20)),
)
BYTE_EDITS = st.one_of(
    st.builds(
        lambda f, x: {"op": "flip", "frac": f, "xor": x}, st.floats(0, 1), st.integers(1, 255)
    ),
    st.builds(lambda f: {"op": "truncate", "frac": f}, st.floats(0, 1)),
    st.builds(lambda b: {"op": "append", "bytes": b}, st.binary(max_size=40)),
)


class _Evil:
    """A pickle that, if ever loaded, leaves a file behind."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _apply_array_edit(arrays: dict[str, Any], meta: dict[str, Any], e: dict, marker: str) -> None:
    op, key = e["op"], e.get("key")
    if op == "drop":
        arrays.pop(key, None)
        return
    if op == "evil":
        arrays[key] = np.array([_Evil(marker)], dtype=object)
        return
    a = arrays.get(key, np.ones((3, 2), np.float32))
    if op == "reshape" and a.ndim == 0:
        a = a.reshape(1)
    elif op == "reshape":
        how = e["how"]
        if how == "T":
            a = a.T
        elif how == "rows-1":
            a = a[:-1]
        elif how == "cols-1" and a.ndim >= 2:
            a = a[:, :-1]
        elif how == "newaxis":
            a = a[None]
        elif how == "ravel":
            a = a.ravel()
        elif how == "empty":
            a = a[:0]
        elif how == "scalar":
            a = np.asarray(a.ravel()[:1].reshape(()) if a.size else 0)
    elif op == "dtype":
        with contextlib.suppress(TypeError, ValueError):
            a = a.astype(e["dtype"]) if e["dtype"] != "V4" else np.zeros(a.shape, "V4")
    elif op == "element" and a.size and a.dtype.kind == "f":
        a = a.copy()
        a.flat[int(e["frac"] * (a.size - 1))] = e["value"]
    elif op == "replace":
        try:
            a = np.asarray(e["value"])
        except (ValueError, TypeError):
            a = np.array([repr(e["value"])])
    elif op == "meta":
        meta[key] = e["value"]
        return
    elif op == "meta_drop":
        meta.pop(key, None)
        return
    arrays[key] = a


def run_policy_file(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_agents.bots.ppo_agent import PPOAgent
    from mamma_mia_env import Config, Engine

    with np.load(POLICY_FILE[p["players"]], allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("meta")))
    with tempfile.TemporaryDirectory() as tmp:
        marker = os.path.join(tmp, "UNPICKLED")
        meta_text = None
        for e in p["edits"]:
            if e["op"] == "meta_text":
                meta_text = e["text"]
            elif e["op"] in ("meta", "meta_drop"):
                e = {**e}
                _apply_array_edit(arrays, meta, e, marker)
            else:
                _apply_array_edit(arrays, meta, e, marker)
        out = dict(arrays)
        if "meta" not in out:
            out["meta"] = np.array(meta_text if meta_text is not None else json.dumps(meta))
        path = os.path.join(tmp, "fuzzed_policy.npz")
        try:
            np.savez(path, **out)
        except (ValueError, TypeError):
            return [], "unwritable"
        with open(path, "rb") as fh:
            raw = bytearray(fh.read())
        for e in p["bytes"]:
            if e["op"] == "flip" and raw:
                raw[int(e["frac"] * (len(raw) - 1))] ^= e["xor"]
            elif e["op"] == "truncate":
                raw = raw[: int(e["frac"] * len(raw))]
            elif e["op"] == "append":
                raw += e["bytes"]
        with open(path, "wb") as fh:
            fh.write(bytes(raw))
        ok, res = attempt(lambda: PPOAgent(path))
        fails = ["a pickle in the file was loaded"] if os.path.exists(marker) else []
        if not ok:
            return fails + refusal_failures(res, ["fuzzed_policy.npz"]), "refused"
        agent = res
        pol = next(iter(agent._policies.values()))
        cfg = Config(
            num_players=pol.num_players,
            observation_mode=pol.observation_mode,
            double_ingredients=pol.config.double_ingredients,
        )
        eng = Engine(cfg)
        state = eng.reset(seeds=list(range(6)))
        masks = eng.legal_masks(state)
        try:
            acts = agent.act_batch(
                eng.observe(state), masks, np.random.default_rng(0), state.data["seat"]
            )
        except Exception as exc:
            return fails + [f"accepted, then act_batch raised {type(exc).__name__}: {exc}"], "ok"
        acts = np.asarray(acts)
        if acts.shape != (6,) or acts.dtype.kind not in "iu" or not masks[np.arange(6), acts].all():
            fails.append(f"accepted, then played {acts!r}: not 6 legal actions")
        return fails, "accepted"


# -- the command line ---------------------------------------------------------------------------
TEXT = st.one_of(INTS.map(str), st.text(max_size=8), st.sampled_from(["", "-1", "1e3", "0x10",
                 " 3", "3.0", "nan", "99999999999999999999"]))  # fmt: skip
AGENT_LISTS = st.one_of(
    st.lists(st.sampled_from(["random", "counter", "builder", "hoarder", "forgetful"]),
             min_size=1, max_size=4).map(",".join),  # fmt: skip
    st.lists(st.sampled_from(["random", "counter", "builder", "hoarder", "forgetful", "ppo"]),
             min_size=1, max_size=4).map(",".join),  # fmt: skip
    st.sampled_from(["", ",", "random,", "nosuch", "os:system", "agents:Agent", "json:loads",
                     "mamma_mia_agents.tournament.matches:AgentError", "random," * 30 + "random",
                     ":", "a:b:c"]),
    st.text(max_size=12),
)  # fmt: skip


VALID = {
    "--agents": st.lists(
        st.sampled_from(["random", "counter", "builder", "hoarder", "forgetful"]),
        min_size=1,
        max_size=4,
    ).map(",".join),
    "--players": st.sampled_from(["2", "3", "4", "5"]),
    "--games": st.integers(1, 12).map(str),
    "--seed": st.integers(0, 2**32 - 1).map(str),
    "--workers": st.just("1"),
    "--seating": st.sampled_from(["rotate", "permute"]),
    "--batch-size": st.integers(1, 8).map(str),
    "--out": st.sampled_from(["out", "out/a/b", "."]),
    "--name": st.sampled_from(["t", "run_1", "tournament"]),
    "--max-turns": st.integers(1, 60).map(str),
}
ODD = {
    "--agents": AGENT_LISTS,
    "--workers": st.sampled_from(["0", "-2", "x", "100000"]),
    "--out": st.sampled_from(["blocker/sub", "blocker", "", "out/../x"]),
    "--name": st.one_of(
        st.sampled_from(["../up", "/abs", "a/b", "..", ".", "x" * 150]), st.text(max_size=10)
    ),
}
FLAG_VALUES = {k: st.one_of(v, ODD.get(k, TEXT)) for k, v in VALID.items()}
SWITCHES = ["--no-plot", "--json", "--mamma-mia-in-deal", "--pass-may-play-order",
            "--strict-minimale", "--double-ingredients", "--random-start-player",
            "--auto-reveal", "--no-idle-cycle-guard", "--bogus", "-h"]  # fmt: skip


@st.composite
def argvs(draw: Any) -> list[str]:
    clean = draw(st.booleans())  # half the runs get only valid values past the parser
    values = VALID if clean else FLAG_VALUES
    argv = [draw(st.sampled_from(["tournament"] * 12 + ["agents", "tourney", ""]))]
    flags = draw(st.lists(st.sampled_from(list(FLAG_VALUES)), max_size=6, unique=True))
    if clean or draw(st.booleans()) or "--agents" in flags:
        flags = ["--agents", *[f for f in flags if f != "--agents"]]
    if clean:
        argv[0] = "tournament"
    for flag in flags:
        value = draw(values[flag])
        if flag == "--workers" and value.strip() not in ("0", "-2", "x", "100000"):
            value = "1"  # a valid count above 1 would spawn processes: slow, tested elsewhere
        if flag == "--games" and value.strip().isdigit() and 12 < int(value) <= 10**6:
            value = "12"  # a valid big count is a long run, not a fuzz case
        argv += [flag, value]
    switches = SWITCHES[:-2] if clean else SWITCHES
    argv += draw(st.lists(st.sampled_from(switches), max_size=2, unique=True))
    if clean and "--no-idle-cycle-guard" in argv and "--max-turns" not in argv:
        argv += ["--max-turns", "40"]
    agents = argv[argv.index("--agents") + 1] if "--agents" in argv else ""
    if len(agents.split(",")) > 6:  # one deal of 31 agents at 4 seats is 125,860 games
        if "--players" not in flags:
            argv += ["--players", "2"]  # a long run, not a hang: keep it to 930 games
        elif argv[argv.index("--players") + 1].strip() in ("3", "4", "5"):
            argv[argv.index("--players") + 1] = "2"
    argv += ["--no-progress"]
    if "--games" not in flags:
        argv += ["--games", "4"]
    if "--workers" not in flags:
        argv += ["--workers", "1"]
    return argv


CLI_ANCHORS = [*FLAG_VALUES, *SWITCHES, "agent", "COMMAND", "argument", "max_turns",
               "idle_cycle_guard", "arguments"]  # fmt: skip


def run_cli(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_agents.cli.commands import main

    argv = p["argv"]
    with tempfile.TemporaryDirectory() as root:
        cwd = os.path.join(root, "cwd")
        os.mkdir(cwd)
        open(os.path.join(cwd, "blocker"), "w").close()
        old = os.getcwd()
        out, err = io.StringIO(), io.StringIO()
        os.chdir(cwd)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(argv)
                except SystemExit as exc:
                    code = exc.code
                except Exception as exc:
                    return [f"main raised {type(exc).__name__}: {exc}"], "error"
        finally:
            os.chdir(old)
        fails = []
        text = err.getvalue()
        if code not in (0, 1, 2):
            fails.append(f"exit code {code!r}")
        if "Traceback" in text:
            fails.append("a traceback on stderr: " + text[-500:])
        if code in (1, 2):
            last = text.strip().split("\n")[-1] if text.strip() else ""  # not at "\r"
            if "error:" not in last or not any(a in last for a in CLI_ANCHORS):
                fails.append(f"exit {code} with a message naming no flag or agent: {last!r}")
        if sorted(os.listdir(root)) != ["cwd"]:
            fails.append(f"wrote beside the working directory: {os.listdir(root)}")
        out_dir = argv[argv.index("--out") + 1] if "--out" in argv else None
        for dirpath, _, files in os.walk(cwd):
            for f in files:
                full = os.path.relpath(os.path.join(dirpath, f), cwd)
                if full == "blocker":
                    continue
                inside = out_dir is not None and os.path.normpath(os.path.dirname(full)) == (
                    os.path.normpath(out_dir)
                )
                if not inside:
                    fails.append(f"wrote {full!r} outside --out {out_dir!r}")
        return fails, {0: "accepted", 1: "failed", 2: "refused"}.get(code, "other")


# -- the tests ---------------------------------------------------------------------------------
@fuzz_settings(ci=80)
@given(
    players=st.sampled_from([2, 4]),
    edits=st.lists(st.one_of(ARRAY_EDITS, META_EDITS), max_size=3),
    bytes_=st.one_of(st.just([]), st.just([]), st.lists(BYTE_EDITS, max_size=2)),
)
def test_fuzz_policy_files(players, edits, bytes_) -> None:
    payload = dict(players=players, edits=edits, bytes=bytes_)
    run_case("PPOAgent(policy file)", "test_fuzz_files:run_policy_file", payload)


@fuzz_settings(ci=40)
@given(argv=argvs())
def test_fuzz_cli_flags(argv) -> None:
    run_case("mamma-mia CLI", "test_fuzz_files:run_cli", {"argv": argv})
