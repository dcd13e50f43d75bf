"""The bots choose the same actions on every x86-64 CPU.

numpy and OpenBLAS pick vectorised routines by the CPU's SIMD level, and their last bits
differ between CPUs: numpy's AVX-512 float32 power differs from its baseline one on about a
fifth of fractional arguments, which turned `forgetful`'s near-ties and changed committed
results on a CPU without AVX-512. The bots' one power is now the correctly rounded float32
value (checked here against a 40-digit computation), and the trained policies decide
near-ties in float64. CI also re-makes the quick results with numpy held to its baseline
dispatch, numba compiling for a generic CPU and OpenBLAS on its generic kernels, and
compares them with the committed ones (`.ci/run`).
"""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
import pytest

from mamma_mia_agents import load_agent
from mamma_mia_agents.bots.ppo_agent import SHIPPED
from mamma_mia_agents.bots.ppo_policy import NEAR_TIE, NumpyPolicy
from mamma_mia_agents.bots.roster import HEURISTICS
from mamma_mia_agents.compiled.decisions import hope
from mamma_mia_env.envs.vector import MammaMiaVectorEnv

GAPS = np.arange(0, 8 * 64 + 1, dtype=np.float32) / np.float32(64)  # 0 to 8 by 1/64


def _correctly_rounded(base: np.float32, gap: np.float32) -> np.float32:
    """``base ** gap`` rounded to the nearest float32, from a 40-digit value."""
    with localcontext() as ctx:
        ctx.prec = 40
        exact = (Decimal(float(gap)) * Decimal(float(base)).ln()).exp()
        near = np.float32(float(exact))
        options = [near, np.nextafter(near, np.float32(0)), np.nextafter(near, np.float32(2))]
        return min(options, key=lambda f: abs(Decimal(float(f)) - exact))


def test_the_bots_power_is_the_correctly_rounded_float32() -> None:
    gambles = {load_agent(name).params.gamble for name in HEURISTICS} - {0.0}
    assert gambles, "no bundled bot gambles: the test would check nothing"
    for gamble in gambles:
        base = np.float32(gamble)
        want = np.array([_correctly_rounded(base, g) for g in GAPS], np.float32)
        kernel = np.array([hope(gamble, g) for g in GAPS], np.float32)
        assert np.array_equal(kernel.view(np.uint32), want.view(np.uint32)), gamble


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_policy_decides_near_ties_in_float64(players: int) -> None:
    """The shipped network's choice is the float64 argmax at every position (the float32
    argmax where the lead is at least NEAR_TIE), and some positions did take the float64
    path, at every player count."""
    pol = NumpyPolicy.load(SHIPPED).for_count(players)
    venv = MammaMiaVectorEnv(256, num_players=players, observation_mode=pol.observation_mode)
    obs, info = venv.reset(seed=5)
    rng = np.random.default_rng(5)
    near = positions = 0
    for _ in range(40):
        masks, seats = info["action_mask"], info["seat"]
        cobs = pol.canon.obs(obs, seats)
        legal = pol.canon.masks(masks, seats) != 0
        exact = np.where(legal, pol.logits64(cobs), -np.inf)
        assert np.array_equal(pol.best_actions(cobs, legal), exact.argmax(axis=1))
        top2 = np.sort(np.where(legal, pol.logits(cobs), -np.inf), axis=1)[:, -2:]
        near += int((top2[:, 1] - top2[:, 0] < NEAR_TIE).sum())
        positions += len(obs)
        obs, _, _, _, info = venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
    assert positions == 40 * 256 and near > 0
