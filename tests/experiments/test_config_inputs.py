"""A training run's config (``experiments/common/config.py``): file values and ``--set``
values go through the flags' checkers (``plumbing.arguments``, ``plumbing.files``), so
``2.0`` or ``64.5`` for a count is refused, not truncated, ``1e999``/``NaN`` are refused,
and a ``--set`` into a value that is not a section is a message, not a traceback."""

from __future__ import annotations

import json

import pytest

from experiments.train.train_ppo import DEFAULTS, load_config

BAD_SETS = ["seed=2.0", "ppo.n_steps=64.5", "threads=1e999", "bc.enabled=1", "seed.x=1",
            "ppo.net_arch=[256, 2.5]", "env.learner_seat=true", "ppo.gamma=NaN",
            "ppo.gamma=\"0.9\"", "eval.games=-1e3", "name=3", "eval.bots=\"builder\"",
            "ppo.learning_rate=1e999", "name=\udcff", "env.rules=5"]  # fmt: skip


@pytest.mark.parametrize("override", BAD_SETS)
def test_bad_set_values_are_refused_naming_the_key(override):
    key = override.split("=")[0]
    with pytest.raises(SystemExit) as exc:
        load_config(None, [override])
    assert isinstance(exc.value.code, str) and "\n" not in exc.value.code
    assert key.split(".")[0] in exc.value.code or "--set" in exc.value.code, exc.value.code


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [("ppo", "n_steps", 64.5), ("bc", "games", 1e4), ("env", "num_players", True),
     ("eval", "select", 1), ("self_play", "enabled", "yes"), ("ppo", "net_arch", "256")],
)  # fmt: skip
def test_bad_file_values_are_refused_naming_the_key(tmp_path, section, key, value):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({section: {key: value}}))
    with pytest.raises(SystemExit, match=f"{section}.{key}"):
        load_config(str(path))


def test_good_values_load_as_given(tmp_path):
    cfg = load_config(None, ["ppo.learning_rate_end=1e-5", "env.learner_seat=1", "seed=7",
                             "opponents.probs=[0.5, 0.5]", "ppo.gamma=1"])  # fmt: skip
    assert cfg["seed"] == 7 and cfg["ppo"]["learning_rate_end"] == 1e-5
    assert cfg["env"]["learner_seat"] == 1 and cfg["ppo"]["gamma"] == 1
    assert load_config(None)["ppo"] == DEFAULTS["ppo"]
