"""MammaMiaVectorEnv as a gymnasium VectorEnv: spaces, seeding, options, autoreset
modes, the info convention, and gymnasium's vector wrappers on top of it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers import vector as vw
from helpers import random_legal

from mamma_mia_env import IllegalActionError
from mamma_mia_env.envs.vector import MammaMiaVectorEnv
from mamma_mia_env.plumbing.arguments import ArgumentTypeError


def _check_info_convention(info: dict, b: int) -> None:
    """gymnasium's vector infos: every key ``k`` has a bool ``_k`` of shape (B,); nested
    dicts follow the same rule."""
    for key, value in info.items():
        if key.startswith("_"):
            assert key[1:] in info, key
            assert value.dtype == np.bool_ and value.shape == (b,), key
            continue
        assert f"_{key}" in info, key
        if isinstance(value, dict):
            _check_info_convention(value, b)
        else:
            assert len(value) == b, key


def test_is_a_gymnasium_vector_env_with_batched_spaces() -> None:
    venv = MammaMiaVectorEnv(6, num_players=3)
    assert isinstance(venv, VectorEnv)
    assert venv.num_envs == 6
    assert venv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert type(venv).metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    n = venv.engine.n_actions
    assert venv.single_action_space == gym.spaces.Discrete(n)
    assert venv.action_space == gym.spaces.MultiDiscrete([n] * 6)
    assert venv.single_observation_space.shape == (venv.engine.obs_dim,)
    assert venv.observation_space.shape == (6, venv.engine.obs_dim)
    obs, info = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    _check_info_convention(info, 6)
    rng = np.random.default_rng(0)
    for _ in range(300):
        acts = random_legal(info["action_mask"], rng)
        assert venv.action_space.contains(acts)
        obs, rew, term, trunc, info = venv.step(acts)
        assert venv.observation_space.contains(obs)
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_ and term.shape == (6,)
        _check_info_convention(info, 6)
    venv.close()
    assert venv.closed


def test_reset_seed_int_list_and_options() -> None:
    a = MammaMiaVectorEnv(4, num_players=2)
    b = MammaMiaVectorEnv(4, num_players=2)
    obs_a, _ = a.reset(seed=10)
    obs_b, _ = b.reset(seed=[10, 11, 12, 13])
    assert np.array_equal(obs_a, obs_b) and a.game_seeds().tolist() == [10, 11, 12, 13]
    b.reset(seed=np.array([7, 3, 99, 2**64 - 1], dtype=np.uint64), options={})
    assert b.game_seeds().tolist() == [7, 3, 99, 2**64 - 1]
    before = b.state.data.copy()
    with pytest.raises(ValueError, match="one seed per game"):
        b.reset(seed=[1, 2, 3])
    with pytest.raises(ArgumentTypeError):
        b.reset(seed=1.5)
    with pytest.raises(ArgumentTypeError):
        b.reset(seed="12")
    with pytest.raises(
        ValueError, match=r"unknown reset options \['mask'\]; known: \['reset_mask'\]"
    ):
        b.reset(seed=1, options={"mask": np.ones(4, bool)})
    with pytest.raises(ArgumentTypeError, match="options"):
        b.reset(seed=1, options=[1])  # type: ignore[arg-type]
    assert b.state.data.tobytes() == before.tobytes()  # a refused reset changes nothing


def test_list_seeds_continue_per_slot() -> None:
    """Slot i plays seeds[i], seeds[i] + B, seeds[i] + 2B, ..."""
    venv = MammaMiaVectorEnv(3, num_players=2)
    seeds = [50, 7, 1000]
    _obs, info = venv.reset(seed=seeds)
    rng = np.random.default_rng(1)
    played = [[s] for s in seeds]
    while min(len(p) for p in played) < 3:
        _obs, _r, term, trunc, info = venv.step(random_legal(info["action_mask"], rng))
        for i in np.flatnonzero(term | trunc):
            played[i].append(int(venv.game_seeds()[i]))
    for i, p in enumerate(played):
        assert p[:3] == [seeds[i] + k * 3 for k in range(3)]


def test_next_step_mechanics() -> None:
    """The ending step returns the last observation and no move; the next one deals the
    next game (reward 0, not done), ignoring the action given for it."""
    venv = MammaMiaVectorEnv(8, num_players=3, autoreset_mode=AutoresetMode.NEXT_STEP)
    assert venv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert MammaMiaVectorEnv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    _obs, info = venv.reset(seed=5)
    rng = np.random.default_rng(0)
    pending = np.zeros(8, bool)
    finished = 0
    for _ in range(400):
        acts = random_legal(info["action_mask"] | pending[:, None], rng)
        acts[pending] = 10**6  # ignored: the game is dealt again instead
        _obs, rew, term, trunc, info = venv.step(acts)
        assert not (term[pending] | trunc[pending]).any()
        assert (rew[pending] == 0).all()
        assert (venv.state.data["turns"][pending] == 0).all()
        assert "final_obs" not in info and "final_info" not in info
        done = term | trunc
        assert (info["action_mask"][done] == 0).all()  # a finished game has no move
        if done.any():
            assert info["_final_delivered"].tolist() == done.tolist()
        finished += int(done.sum())
        pending = done
    assert finished >= 8


def test_next_step_and_same_step_agree_game_by_game() -> None:
    """Drive both modes with one policy (a function of the observation), compare what
    each game slot sees: the same observations, rewards and endings."""
    policy_rng_seed = 3

    def run(mode):
        venv = MammaMiaVectorEnv(4, num_players=2, autoreset_mode=mode)
        obs, info = venv.reset(seed=21)
        per_slot: list[list[tuple]] = [[] for _ in range(4)]
        pending = np.zeros(4, bool)
        steps = 0
        while min(sum(1 for e in s if e[0] == "end") for s in per_slot) < 3:
            mask = info["action_mask"]
            acts = np.zeros(4, dtype=np.int64)
            for i in range(4):
                if pending[i]:
                    acts[i] = 0
                    continue
                legal = np.flatnonzero(mask[i])
                h = int(obs[i].sum() * 7 + steps * 0) + policy_rng_seed
                acts[i] = legal[h % len(legal)]
            obs, rew, term, trunc, info = venv.step(acts)
            steps += 1
            for i in range(4):
                if pending[i]:
                    per_slot[i].append(("new", obs[i].tobytes()))
                    continue
                done = bool(term[i] or trunc[i])
                if done:
                    last = obs[i] if mode == AutoresetMode.NEXT_STEP else info["final_obs"][i]
                    per_slot[i].append(("end", rew[i].tobytes(), last.tobytes(), bool(term[i])))
                    per_slot[i].append(("delivered", tuple(info["final_delivered"][i].tolist())))
                    if mode == AutoresetMode.SAME_STEP:
                        per_slot[i].append(("new", obs[i].tobytes()))
                else:
                    per_slot[i].append(("step", rew[i].tobytes(), obs[i].tobytes()))
            pending = (term | trunc) if mode == AutoresetMode.NEXT_STEP else np.zeros(4, bool)
        return [[e for e in s] for s in per_slot]

    same = run(AutoresetMode.SAME_STEP)
    nxt = run(AutoresetMode.NEXT_STEP)
    for i in range(4):
        k = min(len(same[i]), len(nxt[i]))
        assert k > 50
        assert same[i][:k] == nxt[i][:k], f"slot {i}"


def test_next_step_checks_the_live_games_only() -> None:
    venv = MammaMiaVectorEnv(5, num_players=2, autoreset_mode="NextStep")
    _obs, info = venv.reset(seed=0)
    acts = random_legal(info["action_mask"], np.random.default_rng(0))
    acts[2] = 10**6
    with pytest.raises(IllegalActionError, match="game 2"):
        venv.step(acts)
    with pytest.raises(ValueError, match="autoreset_mode must be .*got 'sometimes'"):
        MammaMiaVectorEnv(2, autoreset_mode="sometimes")


def test_disabled_autoreset_waits_for_the_reset_mask() -> None:
    """DISABLED: a finished game keeps its last observation and an all-zero mask; the
    next step is refused (naming the games, nothing changed) until
    ``reset(options={"reset_mask": ...})`` deals them, from the slot's next seed, as an
    autoreset would (slot i plays seed + i, seed + i + B, ...)."""
    b = 6
    venv = MammaMiaVectorEnv(b, num_players=2, autoreset_mode="Disabled")
    assert venv.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    obs, info = venv.reset(seed=40)
    rng = np.random.default_rng(2)
    played = [[40 + i] for i in range(b)]
    finished = 0
    while finished < 2 * b:
        obs, rew, term, trunc, info = venv.step(random_legal(info["action_mask"], rng))
        done = term | trunc
        if not done.any():
            continue
        finished += int(done.sum())
        assert (info["action_mask"][done] == 0).all()
        assert info["_final_delivered"].tolist() == done.tolist()
        assert "final_obs" not in info
        last = obs.copy()
        before = venv.state.data.copy()
        with pytest.raises(
            RuntimeError, match=r"^games .* are over and autoreset_mode is DISABLED"
        ):
            venv.step(random_legal(info["action_mask"] | done[:, None], rng))
        assert venv.state.data.tobytes() == before.tobytes()
        obs, info = venv.reset(options={"reset_mask": done})
        assert np.array_equal(obs[~done], last[~done])  # the other games untouched
        assert (info["action_mask"][done].sum(1) > 0).all()
        assert (venv.state.data["turns"][done] == 0).all()
        for i in np.flatnonzero(done):
            played[i].append(int(venv.game_seeds()[i]))
        _check_info_convention(info, b)
    for i, seeds in enumerate(played):
        assert seeds == [40 + i + k * b for k in range(len(seeds))]


def test_reset_mask_with_a_seed_and_in_every_mode() -> None:
    """``reset(seed, options={"reset_mask": m})`` deals the selected slots from their
    entries of that seed's full reset and restarts those slots' seed sequences; any
    autoreset mode takes it (SAME_STEP: the running game is abandoned)."""
    for mode in ("SameStep", "NextStep", "Disabled"):
        venv = MammaMiaVectorEnv(4, num_players=3, autoreset_mode=mode)
        _obs, info = venv.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(5):
            _obs, _r, _t, _tr, info = venv.step(random_legal(info["action_mask"], rng))
        mask = np.array([False, True, False, True])
        kept = venv.state.data[~mask].copy()
        obs, info = venv.reset(seed=500, options={"reset_mask": mask})
        assert venv.game_seeds().tolist() == [0, 501, 2, 503]
        assert venv.state.data[~mask].tobytes() == kept.tobytes()
        fresh = MammaMiaVectorEnv(4, num_players=3)
        fresh_obs, fresh_info = fresh.reset(seed=500)
        assert np.array_equal(obs[mask], fresh_obs[mask])
        assert np.array_equal(info["action_mask"][mask], fresh_info["action_mask"][mask])
        assert info["seat"][mask].tolist() == fresh_info["seat"][mask].tolist()
        # the slot's sequence restarted: its next game is 501 + 4
        venv.reset(options={"reset_mask": np.array([False, True, False, False])})
        assert venv.game_seeds().tolist() == [0, 505, 2, 503]


@pytest.mark.parametrize(
    ("mask", "error", "what"),
    [
        ([True, False, True], ArgumentTypeError, r"reset_mask'\] must be a numpy array, got list"),
        (np.ones(2, bool), ValueError, r"must have shape \(3,\), got \(2,\)"),
        (np.ones(3, np.int8), ArgumentTypeError, r"must have dtype bool, got int8"),
        (np.zeros(3, bool), ValueError, r"must select at least one game"),
    ],
)
def test_reset_mask_is_checked(mask, error, what) -> None:
    venv = MammaMiaVectorEnv(3, num_players=2, autoreset_mode="Disabled")
    with pytest.raises(RuntimeError, match="call reset\\(\\) without a reset_mask first"):
        venv.reset(options={"reset_mask": np.ones(3, bool)})
    _obs, info = venv.reset(seed=9)
    before = venv.state.data.copy()
    with pytest.raises(error, match=what):
        venv.reset(options={"reset_mask": mask})
    with pytest.raises(ValueError, match="one seed per game"):
        venv.reset(seed=[1, 2], options={"reset_mask": np.ones(3, bool)})
    assert venv.state.data.tobytes() == before.tobytes()


def test_same_step_final_info() -> None:
    venv = MammaMiaVectorEnv(16, num_players=2)
    _obs, info = venv.reset(seed=3)
    rng = np.random.default_rng(3)
    seen = 0
    while seen < 16:
        _obs, _r, term, trunc, info = venv.step(random_legal(info["action_mask"], rng))
        done = term | trunc
        if done.any():
            assert info["_final_obs"].tolist() == done.tolist()
            assert info["_final_info"].tolist() == done.tolist()
            fi = info["final_info"]
            assert np.array_equal(fi["final_delivered"], info["final_delivered"])
            assert fi["_final_delivered"].tolist() == done.tolist()
            assert venv.single_observation_space.contains(info["final_obs"][done][0])
            seen += int(done.sum())
        else:
            assert "final_obs" not in info and "final_info" not in info


def test_copy_true_returns_fresh_data() -> None:
    """gymnasium's check_returned_data_not_reused, for the vector env."""
    venv = MammaMiaVectorEnv(4, num_players=2)
    obs1, info1 = venv.reset(seed=0)
    obs2, r2, t2, tr2, info2 = venv.step(
        random_legal(info1["action_mask"], np.random.default_rng(0))
    )
    obs3, r3, t3, tr3, info3 = venv.step(
        random_legal(info2["action_mask"], np.random.default_rng(1))
    )
    assert obs2 is not obs3 and r2 is not r3 and t2 is not t3 and tr2 is not tr3
    assert info2["action_mask"] is not info3["action_mask"]
    assert not np.shares_memory(obs2, obs3) and not np.shares_memory(obs1, obs2)


def test_reset_seed_determinism() -> None:
    """gymnasium's check_reset_seed_determinism, for the vector env."""
    venv = MammaMiaVectorEnv(4, num_players=4)
    obs1, info1 = venv.reset(seed=123)
    venv.step(random_legal(info1["action_mask"], np.random.default_rng(0)))
    obs2, info2 = venv.reset(seed=123)
    assert np.array_equal(obs1, obs2) and np.array_equal(info1["action_mask"], info2["action_mask"])
    obs3, _ = venv.reset(seed=124)
    assert not np.array_equal(obs1, obs3)
    obs4, _ = venv.reset()  # fresh entropy
    assert venv.observation_space.contains(obs4)


def test_record_episode_statistics_per_seat() -> None:
    """RecordEpisodeStatistics needs (B,) rewards: seat 0's through TransformReward."""
    base = MammaMiaVectorEnv(8, num_players=2, reward_mode="delivered_win_loss")
    env = vw.RecordEpisodeStatistics(vw.TransformReward(base, lambda r: r[:, 0]))
    _obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    ret = np.zeros(8)
    length = np.zeros(8, dtype=int)
    episodes = 0
    while episodes < 20:
        _obs, rew, term, trunc, info = env.step(random_legal(info["action_mask"], rng))
        ret += rew
        length += 1
        done = term | trunc
        if done.any():
            assert info["_episode"].tolist() == done.tolist()
            assert np.allclose(info["episode"]["r"][done], ret[done])
            assert (info["episode"]["l"][done] == length[done]).all()
            ret[done] = 0
            length[done] = 0
            episodes += int(done.sum())
    assert env.episode_count == episodes and len(env.return_queue) == episodes


def test_normalize_observation_needs_next_step_and_works_there() -> None:
    with pytest.raises(ValueError, match="NEXT_STEP"):
        vw.NormalizeObservation(MammaMiaVectorEnv(4, num_players=2))
    env = vw.NormalizeObservation(
        MammaMiaVectorEnv(64, num_players=3, autoreset_mode=AutoresetMode.NEXT_STEP)
    )
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    pending = np.zeros(64, bool)
    for _ in range(200):
        acts = random_legal(info["action_mask"] | pending[:, None], rng)
        obs, _r, term, trunc, info = env.step(acts)
        pending = term | trunc
        assert obs.dtype == np.float32 and np.isfinite(obs).all()
        assert env.observation_space.contains(obs)
    # after 200 batches of 64, the running statistics normalise the next batch
    varying = env.obs_rms.var > 1e-3
    assert abs(float(obs[:, varying].mean())) < 0.5
    assert 0.3 < float(obs[:, varying].std()) < 3.0


def test_other_vector_wrappers() -> None:
    """DictInfoToList (the list-of-dicts infos), TransformObservation, ClipReward,
    RecordEpisodeStatistics on the NEXT_STEP mode."""
    base = MammaMiaVectorEnv(4, num_players=2, autoreset_mode="NextStep")
    env = vw.RecordEpisodeStatistics(
        vw.ClipReward(
            vw.TransformReward(
                vw.TransformObservation(base, lambda o: o / 255.0),
                lambda r: r[:, 1],
            ),
            -0.5,
            0.5,
        )
    )
    listed = vw.DictInfoToList(env)
    obs, infos = listed.reset(seed=1)
    assert isinstance(infos, list) and len(infos) == 4 and "action_mask" in infos[0]
    assert obs.max() <= 1.0
    rng = np.random.default_rng(1)
    pending = np.zeros(4, bool)
    ended = 0
    while ended < 6:
        masks = np.stack([i["action_mask"] for i in infos])
        acts = random_legal(masks | pending[:, None], rng)
        obs, rew, term, trunc, infos = listed.step(acts)
        assert (np.abs(rew) <= 0.5).all()
        pending = term | trunc
        for i in np.flatnonzero(pending):
            assert "episode" in infos[i] and "final_delivered" in infos[i]
        ended += int(pending.sum())
