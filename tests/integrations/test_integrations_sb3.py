"""docs/INTEGRATIONS.md's stable-baselines3 block, run as written but for a shorter
``total_timesteps``: MaskablePPO learns on the SB3 VecEnv and predicts legal actions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

DOC = Path(__file__).resolve().parents[2] / "docs" / "INTEGRATIONS.md"
DOCUMENTED = "model.learn(total_timesteps=200_000)"


def _snippet() -> str:
    """The first python block of the doc's stable-baselines3 section."""
    section = DOC.read_text().split("\n## stable-baselines3\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("\n```", 1)[0]


def test_the_documented_training_runs_and_predicts_legal_actions() -> None:
    code = _snippet()
    assert DOCUMENTED in code
    ns: dict = {}
    # one rollout of 64 games x 64 steps and its update, not the documented 200,000 steps
    exec(
        compile(code.replace(DOCUMENTED, "model.learn(total_timesteps=4096)"), str(DOC), "exec"), ns
    )  # noqa: S102
    model, venv = ns["model"], ns["venv"]
    assert model.num_timesteps >= 4096
    masks = venv.action_masks()
    assert masks[np.arange(len(masks)), ns["actions"]].all()
