"""Policy files from strangers.

A ``.npz`` policy is read without unpickling, and a corrupt, oversized or inconsistent
one is refused at load with a ``PolicyFileError`` that names the file; errors found
later (a game the policy cannot play) name the file too. Every bad file here is built
from the shipped 2-player policy with one thing wrong.
"""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
from helpers import POLICY_FILE, ROOT

import mamma_mia_agents.bots.ppo_policy as ppo
from mamma_mia_agents.bots.ppo_agent import SHIPPED, PPOAgent
from mamma_mia_agents.bots.ppo_policy import NumpyPolicy, PolicyFileError
from mamma_mia_env import Config, Engine


def _shipped() -> tuple[dict[str, np.ndarray], dict]:
    with np.load(POLICY_FILE[2], allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("meta")))
    return arrays, meta


def _write(path: Path, arrays: dict, meta: dict | str | np.ndarray | None) -> Path:
    out = dict(arrays)
    if meta is not None:
        out["meta"] = (
            meta
            if isinstance(meta, np.ndarray)
            else np.array(meta if isinstance(meta, str) else json.dumps(meta))
        )
    np.savez(path, **out)
    return path


def _refused(path: Path, *fragments: str) -> str:
    with pytest.raises(PolicyFileError) as info:
        PPOAgent(path)
    msg = str(info.value)
    assert repr(str(path)) in msg, msg  # the file is named
    for fragment in fragments:
        assert fragment in msg, msg
    return msg


RECALL_FILES = [
    "experiments/results/cleanrl_ppo/cleanrl_ppo_2p_vs_search_1.npz",
    "experiments/results/cleanrl_ppo/cleanrl_ppo_2p_vs_search_2.npz",
    "experiments/results/expert_iteration/expert_iteration_2p_vs_search.npz",
    "experiments/results/expert_iteration/expert_iteration_2p_vs_search_2.npz",
    "experiments/results/champion_prior/2p.npz",
    "experiments/results/champion_prior/4p.npz",
]


@pytest.mark.parametrize("name", RECALL_FILES)
def test_a_network_of_the_retired_recall_layout_is_refused_with_what_to_do(name: str) -> None:
    """The committed networks that read the retired ``recall`` layout are refused on load
    in one line naming the file, the layout and what to do."""
    msg = _refused(ROOT / name, "retired 'recall' observation layout", "train it again with "
                   "the 'fixed' layout")  # fmt: skip
    assert "\n" not in msg


def test_a_file_without_an_observation_mode_meant_recall_and_is_refused(tmp_path) -> None:
    arrays, meta = _shipped()
    del meta["observation_mode"]
    _refused(_write(tmp_path / "old.npz", arrays, meta), "retired 'recall' observation layout")


def test_the_shipped_policies_load_and_round_trip(tmp_path) -> None:
    for n, path in {**POLICY_FILE, 5: SHIPPED}.items():
        pol = NumpyPolicy.load(path)
        pol.save(tmp_path / f"p{n}.npz")
        again = NumpyPolicy.load(tmp_path / f"p{n}.npz")
        assert again.meta == pol.meta and len(again.layers) == len(pol.layers) == 2
        for (w, b), (w2, b2) in zip(pol.layers, again.layers, strict=True):
            assert np.array_equal(w, w2) and np.array_equal(b, b2)


# -- not a policy file at all -----------------------------------------------------------------
def test_missing_directory_and_garbage_files(tmp_path) -> None:
    _refused(tmp_path / "nope.npz", "cannot read it")
    (tmp_path / "dir.npz").mkdir()
    _refused(tmp_path / "dir.npz", "not a regular file")
    (tmp_path / "junk.npz").write_bytes(b"\x00junk" * 100)
    _refused(tmp_path / "junk.npz", "not a readable .npz")
    good = _write(tmp_path / "good.npz", *_shipped())
    (tmp_path / "cut.npz").write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    _refused(tmp_path / "cut.npz", "not a readable .npz")
    with pytest.raises(TypeError, match="PPOAgent path must be"):
        PPOAgent(42)


def test_a_flipped_byte_is_caught_by_the_zip_checksum(tmp_path) -> None:
    good = _write(tmp_path / "good.npz", *_shipped())
    raw = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as zf:
        info = zf.getinfo("w0.npy")
    raw[info.header_offset + 30 + len("w0.npy") + 500] ^= 0xFF  # inside the stored data
    (tmp_path / "flipped.npz").write_bytes(bytes(raw))
    _refused(tmp_path / "flipped.npz")


class _Evil:
    marker: str = ""

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_loading_never_unpickles(tmp_path) -> None:
    marker = tmp_path / "pwned"
    evil = _Evil()
    evil.marker = str(marker)
    arrays, meta = _shipped()
    arrays["b0"] = np.array([evil], dtype=object)  # np.savez pickles object arrays
    path = _write(tmp_path / "evil.npz", arrays, meta)
    assert b"pwned" in zipfile.ZipFile(path).read("b0.npy")  # the pickle is in the file
    _refused(path, "array 'b0' is corrupt", "not a plain number")
    assert not marker.exists()
    # a meta smuggled in as a pickle is refused the same way
    arrays, meta = _shipped()
    path = _write(tmp_path / "evil_meta.npz", arrays, np.array([evil], dtype=object))
    _refused(path, "array 'meta' is corrupt")
    assert not marker.exists()
    assert pickle.dumps(evil)  # the payload itself is real


# -- oversized -----------------------------------------------------------------------------
def test_oversized_files_are_refused(tmp_path, monkeypatch) -> None:
    path = _write(tmp_path / "big.npz", *_shipped())
    monkeypatch.setattr(ppo, "MAX_POLICY_BYTES", 1000)
    _refused(path, "more than the 1,000 a policy may have")
    monkeypatch.setattr(ppo, "MAX_POLICY_BYTES", 64 * 2**20)
    monkeypatch.setattr(ppo, "MAX_ARRAY_BYTES", 100_000)
    _refused(path, "bytes unpacked, more than 100,000")


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path) -> None:
    arrays, meta = _shipped()
    path = _write(tmp_path / "bomb.npz", arrays, meta)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("pad.npy", b"\x00" * (300 * 2**20))  # 300 MB of zeros, ~300 KB packed
    assert path.stat().st_size < 2 * 2**20
    _refused(path, "bytes unpacked, more than")


def test_a_header_that_promises_more_than_the_data_holds(tmp_path) -> None:
    arrays, meta = _shipped()
    path = _write(tmp_path / "liar.npz", arrays, meta)
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f4", "fortran_order": False, "shape": (10**9, 10**9)}
    )
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("w7.npy", buf.getvalue() + b"\x00" * 16)
    _refused(path, "array 'w7' is corrupt", "header says")


def test_too_many_members_or_strange_members(tmp_path) -> None:
    arrays, meta = _shipped()
    path = _write(tmp_path / "odd.npz", arrays, meta)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("readme.txt", b"hello")
    _refused(path, "unexpected member 'readme.txt'")
    many = dict(arrays)
    for i in range(2, 40):
        many[f"w{i}"] = np.zeros((1, 1), np.float32)
        many[f"b{i}"] = np.zeros(1, np.float32)
    _refused(_write(tmp_path / "many.npz", many, meta), "members, too many")


# -- inconsistent ------------------------------------------------------------------------------
def _variant(tmp_path: Path, name: str, change) -> Path:
    arrays, meta = _shipped()
    change(arrays, meta)
    return _write(tmp_path / f"{name}.npz", arrays, meta)


def _float_sizes(meta: dict) -> list:
    """The layout's sections with each size written as a float (16.0): equal in Python,
    yet not the layout's integer sizes."""
    return [[name, float(size)] for name, size in meta["obs_sections"]]


@pytest.mark.parametrize(
    ("name", "change", "fragment"),
    [
        ("w1_rows", lambda a, m: a.update(w1=a["w1"][:100]), "layer 1: w1 (100, 256)"),
        ("b0_len", lambda a, m: a.update(b0=a["b0"][:10]), "layer 0"),
        ("w0_3d", lambda a, m: a.update(w0=a["w0"][None]), "layer 0"),
        ("w_out_actions", lambda a, m: a.update(w_out=a["w_out"][:, :-1]), "the game's 655"),
        ("b_out_len", lambda a, m: a.update(b_out=a["b_out"][:3]), "b_out (3,)"),
        ("scale_len", lambda a, m: a.update(scale=a["scale"][:5]), "scale has shape (5,)"),
        ("scale_zero", lambda a, m: a["scale"].__setitem__(0, 0.0), "scale must be positive"),
        ("scale_neg", lambda a, m: a["scale"].__setitem__(3, -1.0), "scale must be positive"),
        ("nan", lambda a, m: a["w1"].__setitem__((3, 4), np.nan), "'w1' holds NaN"),
        ("inf", lambda a, m: a["b_out"].__setitem__(0, np.inf), "'b_out' holds NaN or inf"),
        ("f64_over", lambda a, m: a.update(b0=a["b0"].astype(np.float64) * 1e300), "'b0' holds"),
        ("int_w", lambda a, m: a.update(w0=a["w0"].astype(np.int32)), "'w0' has dtype int32"),
        ("complex", lambda a, m: a.update(b1=a["b1"].astype(np.complex64)), "'b1' has dtype"),
        ("strings", lambda a, m: a.update(b1=np.array(["x"] * 256)), "'b1' has dtype <U1"),
        ("bools", lambda a, m: a.update(b1=np.ones(256, bool)), "'b1' has dtype bool"),
        (
            "structured",
            lambda a, m: a.update(b1=np.zeros(256, dtype=[("x", "f4")])),
            "not a plain number",
        ),
        ("no_scale", lambda a, m: a.pop("scale"), "missing arrays ['scale']"),
        ("no_w_out", lambda a, m: a.pop("w_out"), "missing arrays ['w_out']"),
        ("no_b1", lambda a, m: a.pop("b1"), "without gaps"),
        ("gap", lambda a, m: a.update(w2=a.pop("w1"), b2=a.pop("b1")), "without gaps"),
        ("extra", lambda a, m: a.update(extra=np.zeros(3, np.float32)), "unknown arrays"),
        ("no_layers_bad_out", lambda a, m: [a.pop(k) for k in ("w0", "b0", "w1", "b1")], "map 462"),
        ("format", lambda m_a, m: m.update(format="other/1"), "not a mamma-mia-policy/1"),
        ("activation", lambda a, m: m.update(activation="sigmoid"), "activation must be one"),
        ("players_str", lambda a, m: m.update(num_players="2"), "num_players must be an int"),
        ("players_bool", lambda a, m: m.update(num_players=True), "num_players must be an int"),
        ("players_7", lambda a, m: m.update(num_players=7), "num_players must be an int 2-5"),
        ("seats_12", lambda a, m: m.update(obs_sections=[["hand", 10]]), "section ['hand', 10]"),
        ("mode", lambda a, m: m.update(observation_mode="all"), "observation_mode must be one"),
        ("doubles", lambda a, m: m.update(double_ingredients="no"), "double_ingredients must be"),
        ("canonical", lambda a, m: m.update(canonical=1), "canonical must be true (a network"),
        ("raw_views", lambda a, m: m.update(canonical=False), "raw seat views is not played"),
        ("sections", lambda a, m: m.update(obs_sections=[["hand"]]), "section ['hand']"),
        ("sections_none", lambda a, m: m.update(obs_sections=[]), "section 'nothing'"),
        ("sections_null", lambda a, m: m.update(obs_sections=None), "section None"),
        ("sections_str", lambda a, m: m.update(obs_sections="hand"), "section 'hand'"),
        ("sections_long", lambda a, m: m["obs_sections"].append(["new", 3]), "['new', 3] where"),
        ("sections_float", lambda a, m: m.update(obs_sections=_float_sizes(m)), ".0] where"),
    ],
)
def test_inconsistent_files_are_refused_naming_the_file(tmp_path, name, change, fragment) -> None:
    _refused(_variant(tmp_path, name, change), fragment)


@pytest.mark.parametrize(
    ("meta", "fragment"),
    [
        ("{not json", "meta is not valid JSON"),
        ("[1, 2]", "meta must be a JSON object"),
        ("[" * 20_000 + "]" * 20_000, "meta is JSON nested too deeply"),
        ("[" * 60_000 + "]" * 60_000, "meta is 120,000 characters, more than 100,000"),
        (np.float32(3.0), "meta must be one JSON string"),
        (np.array(["{}", "{}"]), "meta must be one JSON string"),
    ],
)
def test_bad_metadata_is_refused(tmp_path, meta, fragment) -> None:
    arrays, _ = _shipped()
    meta = np.asarray(meta)
    _refused(_write(tmp_path / "meta.npz", arrays, meta), fragment)


def test_missing_metadata_is_refused(tmp_path) -> None:
    arrays, _ = _shipped()
    _refused(_write(tmp_path / "nometa.npz", arrays, None), "missing array 'meta'")


# -- errors after loading name the file ----------------------------------------------------------
def test_later_mismatches_name_the_file(tmp_path) -> None:
    path = _write(tmp_path / "mine.npz", *_shipped())
    agent = PPOAgent(path)
    with pytest.raises(ValueError, match=r"mine\.npz' plays 2 players, not 3"):
        agent.check_config(Config(num_players=3))
    with pytest.raises(ValueError, match=r"mine\.npz' was trained without double"):
        agent.check_config(Config(num_players=2, double_ingredients=True))
    eng = Engine(Config(num_players=2, observation_mode="top_card"))
    state = eng.reset(seeds=[1])
    with pytest.raises(ValueError, match=r"mine\.npz' reads 'fixed' observations, got 'top_card'"):
        agent.act_batch(eng.observe(state), eng.legal_masks(state), np.random.default_rng(0), [0])


def test_a_refused_file_plays_nothing_and_a_good_one_plays_legally(tmp_path) -> None:
    agent = PPOAgent(_write(tmp_path / "ok.npz", *_shipped()))
    eng = Engine(Config(num_players=2))
    state = eng.reset(seeds=list(range(8)))
    masks = eng.legal_masks(state)
    acts = agent.act_batch(eng.observe(state), masks, np.random.default_rng(0), state.data["seat"])
    assert masks[np.arange(8), acts].all()


def test_a_policy_reads_its_whole_layout_in_order(tmp_path) -> None:
    """A network reads its layout's sections as the observation holds them: one listing
    them in another order (trained on an observation since changed) is refused naming
    the first section out of place; one listing none reads the whole layout."""
    from mamma_mia_env.game.observe import observation_layout

    arrays, meta = _shipped()
    layout = [list(x) for x in observation_layout(meta["observation_mode"])]
    meta["obs_sections"] = layout[::-1]
    _refused(_write(tmp_path / "reordered.npz", arrays, meta), f"section {layout[-1]!r} where")
    del meta["obs_sections"]
    unlisted = NumpyPolicy.load(_write(tmp_path / "unlisted.npz", arrays, meta))
    x = np.random.default_rng(0).random((3, sum(size for _, size in layout)), dtype=np.float32)
    assert np.array_equal(unlisted.logits(x), NumpyPolicy(*_shipped()).logits(x))


# -- one network for several player counts --------------------------------------------------------
def _fixed_policy(counts: list[int] | int, mode: str = "fixed") -> tuple[dict, dict]:
    """A small random network over the ``mode`` layout (one size for every count)."""
    eng = Engine(Config(num_players=2, observation_mode=mode))
    rng = np.random.default_rng(5)
    arrays = {
        "scale": np.ones(eng.obs_dim, np.float32),
        "w0": rng.normal(size=(eng.obs_dim, 16)).astype(np.float32),
        "b0": np.zeros(16, np.float32),
        "w_out": rng.normal(size=(16, eng.n_actions)).astype(np.float32),
        "b_out": np.zeros(eng.n_actions, np.float32),
    }
    meta = {"format": ppo.FORMAT, "activation": "tanh", "num_players": counts,
            "observation_mode": mode}  # fmt: skip
    return arrays, meta


@pytest.mark.parametrize("mode", ["fixed", "top_card"])
def test_a_policy_plays_every_count_it_lists(tmp_path, mode: str) -> None:
    agent = PPOAgent(_write(tmp_path / "all.npz", *_fixed_policy([2, 3, 4, 5], mode)))
    for n in (2, 3, 4, 5):
        eng = Engine(Config(num_players=n, observation_mode=mode))
        agent.check_config(eng.config)
        state = eng.reset(seeds=list(range(6)))
        for _ in range(40):  # past the first turns: every seat acts, in its own frame
            masks = eng.legal_masks(state)
            seats = state.data["seat"]
            acts = agent.act_batch(eng.observe(state), masks, np.random.default_rng(0), seats)
            assert masks[np.arange(6), acts].all()
            eng.step(state, acts)
    three = PPOAgent(_write(tmp_path / "three.npz", *_fixed_policy([3])))
    with pytest.raises(ValueError, match=r"three\.npz' plays 3 players, not 4"):
        three.check_config(Config(num_players=4, observation_mode="fixed"))


@pytest.mark.parametrize(
    ("counts", "mode", "fragment"),
    [
        ([3, 2], "fixed", "each count once, in order"),
        ([2, 2], "fixed", "each count once, in order"),
        ([], "fixed", "meta num_players must be an int 2-5"),
        ([2, 6], "fixed", "meta num_players must be an int 2-5"),
        ([2, True], "fixed", "meta num_players must be an int 2-5"),
    ],
)
def test_bad_count_lists_are_refused(tmp_path, counts, mode, fragment) -> None:
    _refused(_write(tmp_path / "counts.npz", *_fixed_policy(counts, mode)), fragment)
