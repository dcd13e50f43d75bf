"""What the training scripts share: thread setup, the library scripts' flags, the files
a library training run writes (train_rllib.py, train_tianshou.py), the progress panels
(theirs and cleanrl_ppo.py's learning curve), and for cleanrl_ppo.py its arguments
dataclass as flags and its learning curve over wall time.

The flags and files are the same for every library so that their runs compare:
``--players``, ``--reward-mode``, ``--seed``, ``--threads``, ``--name``, ``--out``;
``progress.csv`` (one row per iteration), ``summary.json`` and ``progress.png``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.output import RUNS, save_figure, subplots, write_csv
from mamma_mia_agents.cli.options import stem
from mamma_mia_env.plumbing.arguments import ArgumentParser
from mamma_mia_env.plumbing.files import write_file
from mamma_mia_env.plumbing.provenance import provenance

__all__ = ["add_dataclass_args", "add_training_args", "check_training_args", "plot_panels"]
__all__ += ["fit_epochs", "plot_wall_curve", "set_threads", "write_training_run"]


def set_threads(n: int) -> None:
    """Use ``n`` threads in torch and in numba's parallel kernels: the env and the
    network share the cores, and more threads than cores oversubscribe them."""
    import numba
    import torch

    torch.set_num_threads(n)
    numba.set_num_threads(n)


def add_training_args(parser: argparse.ArgumentParser, library: str, threads_help: str) -> None:
    """The flags every library training script has: ``--players``, ``--reward-mode``,
    ``--seed``, ``--threads``, ``--name`` and ``--out`` (default ``runs/<library>``)."""
    parser.add_argument("--players", type=int, default=2, help="2-5 (default 2)")
    parser.add_argument("--reward-mode", default="delivered_win_loss", help="Config.reward_mode")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help=threads_help)
    parser.add_argument(
        "--name",
        type=stem,
        default=None,
        help="file stem: NAME.json, NAME.csv, NAME.png (default summary.json, progress.csv, "
        "progress.png)",
    )
    parser.add_argument("--out", type=Path, default=RUNS / library)


def check_training_args(
    parser: argparse.ArgumentParser, args: argparse.Namespace, positive: tuple[str, ...]
) -> None:
    """Refuse, by its flag, a count below 1 (``positive``, ``threads`` included) and a
    player count outside 2-5."""
    for name in (*positive, "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if not 2 <= args.players <= 5:
        parser.error("--players must be 2-5")


def write_training_run(
    args: argparse.Namespace,
    rows: list[dict[str, Any]],
    summary: dict[str, Any],
    panels: tuple[tuple[str, str], ...],
    title: str,
    wall: float,
) -> dict[str, Any]:
    """Write a training run's ``progress.csv`` (``rows``, one per iteration),
    ``summary.json`` (``summary`` with the settings, the env steps, the overall rate and
    the provenance) and ``progress.png`` (a panel per ``(row key, title)``), named by
    ``--name`` if given; returns the summary."""
    write_csv(args.out / f"{args.name or 'progress'}.csv", rows, "progress table")
    total = rows[-1]["env_steps"]
    summary = {
        **summary,
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "env_steps": total,
        "wall_s": round(wall, 2),
        "env_steps_per_s_overall": round(total / wall, 1),
        "provenance": provenance(seeds=args.seed, wall_time=wall),
    }
    text = json.dumps(summary, indent=1) + "\n"
    write_file(args.out / f"{args.name or 'summary'}.json", text, "summary")
    path = args.out / f"{args.name or 'progress'}.png"
    plot_panels(rows, "iteration", panels, title, path, xlabel="iteration")
    return summary


def fit_epochs(
    params: Iterable[Any],
    n: int,
    fit: dict[str, Any],
    rng: np.random.Generator,
    loss_of: Callable[[np.ndarray], tuple[Any, tuple[float, ...]]],
    desc: str,
    clip: float | None = None,
    progress: bool = True,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """A supervised fit of a network (the imitation warm start, expert iteration's fit):
    ``n`` rows less a held-out share ``fit["holdout"]`` in ``fit["epochs"]`` epochs of
    shuffled minibatches of ``fit["batch_size"]`` (every order drawn from ``rng``), by
    Adam over ``params`` at ``fit["learning_rate"]`` decaying linearly to 0.
    ``loss_of(rows)``: a minibatch's loss and figures; ``clip``: the gradients' norm at
    most that. After each epoch, yields the held-out rows and the sums over the epoch's
    minibatches of each figure, then of 1 (the minibatches)."""
    import torch
    from tqdm.auto import tqdm

    params = list(params)
    idx = rng.permutation(n)
    n_hold = max(1, int(n * fit["holdout"]))
    hold, train = idx[:n_hold], idx[n_hold:]
    opt = torch.optim.Adam(params, lr=fit["learning_rate"])
    epochs, bs = int(fit["epochs"]), int(fit["batch_size"])
    steps = epochs * ((len(train) + bs - 1) // bs)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1.0 - i / max(1, steps))
    with tqdm(total=steps, desc=desc, unit="batch", disable=not progress) as bar:
        for _ in range(epochs):
            perm = rng.permutation(train)
            sums: Any = 0.0  # then an array: one sum per figure, then the minibatches
            for lo in range(0, len(perm), bs):
                loss, figures = loss_of(perm[lo : lo + bs])
                opt.zero_grad()
                loss.backward()
                if clip is not None:
                    torch.nn.utils.clip_grad_norm_(params, clip)
                opt.step()
                sched.step()
                sums = sums + np.array([*figures, 1.0])
                bar.update(1)
            yield hold, sums


# -- a dataclass of arguments as flags (cleanrl_ppo.py, CleanRL's tyro style) -------------
def add_dataclass_args(
    parser: argparse.ArgumentParser, cls: type, skip: frozenset[str] | set[str] = frozenset()
) -> None:
    """Every field of the dataclass ``cls`` (but ``skip``) as ``--field-name``, typed by
    its annotation (``bool``: true/false; ``int | None``/``float | None``: also
    ``none``), its default the field's."""
    import dataclasses

    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(flag, type=_bool, default=f.default, metavar="BOOL")
        elif f.type in ("int | None", "float | None"):
            kind = int if f.type.startswith("int") else float
            parser.add_argument(flag, type=_optional(kind, flag), default=f.default)
        else:
            plain = {"int": int, "float": float, "str": str}[str(f.type)]
            parser.add_argument(flag, type=plain, default=f.default)


def dataclass_parser(
    description: str,
    cls: type,
    presets: dict[str, dict[str, Any]],
    argv: list[str] | None,
    export_help: str,
    skip: frozenset[str] | set[str] = frozenset(),
) -> argparse.ArgumentParser:
    """A script's parser: every field of ``cls`` (:func:`add_dataclass_args`), ``--preset``
    of ``presets`` (the preset named in ``argv`` becomes the defaults, so the flags given
    with it win) and the exclusive ``--out DIR`` / ``--export``."""
    parser = ArgumentParser(description=description)
    add_dataclass_args(parser, cls, skip=skip)
    parser.add_argument("--preset", choices=sorted(presets), default=None,
                        help="named settings (the flags given with it win)")  # fmt: skip
    preset = ArgumentParser(add_help=False)
    preset.add_argument("--preset", choices=sorted(presets), default=None)
    chosen = preset.parse_known_args(argv)[0].preset
    if chosen is not None:
        parser.set_defaults(**presets[chosen])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--out", type=Path, default=None, help="run directory (default runs/<name>)")
    group.add_argument("--export", action="store_true", help=export_help)
    return parser


def _bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes"):
        return True
    if text.lower() in ("0", "false", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got {text!r}")


def _optional(kind: type, flag: str) -> Any:
    """An argparse type: ``none``, or an int or finite float of at least 0, checked as
    ``experiments.common.arguments`` checks every experiment flag."""
    from mamma_mia_env.plumbing.arguments import int_flag, real_flag

    inner = int_flag(flag, 0) if kind is int else real_flag(flag, 0.0)

    def parse(text: str) -> Any:
        return None if text.lower() == "none" else inner(text)

    return parse


def plot_panels(
    rows: list[dict[str, Any]],
    x: str,
    panels: tuple[tuple[str, str], ...],
    title: str,
    path: Path,
    xlabel: str = "env steps",
) -> None:
    """One panel per ``(row key, y label)`` against the row key ``x`` (a value of None:
    a gap), under ``title``: a training run's progress."""
    steps = [r[x] for r in rows]
    fig, ax = subplots(1, len(panels), figsize=(5 * len(panels), 3.6))
    for a, (key, label) in zip(ax, panels, strict=True):
        a.plot(steps, [float("nan") if r[key] is None else r[key] for r in rows], marker=".")
        a.set_xlabel(xlabel)
        a.set_ylabel(label)
    fig.suptitle(title)
    save_figure(fig, path)


def plot_wall_curve(
    rows: list[dict[str, Any]],
    curve: list[dict[str, Any]],
    opponents: tuple[str, str],
    spans: tuple[float, float],
    title: str,
    path: Path,
) -> None:
    """Two panels: the win rate over wall minutes (the curve's evaluations against the
    evaluations' opponent with their 95% intervals, the share of training games won
    against the training opponents, ``opponents`` = (evaluations', training's), and the
    ``spans`` = (warm start seconds, wall budget minutes), if any), and the same over env
    steps, one series per player count (``curve`` entries carry ``num_players``); the
    dotted line, for one count, is the ten-minute preset's target against ``builder``
    (60%) when that is the evaluations' opponent, else chance."""
    import numpy as np

    from experiments.common.output import short_name

    (rival, opponent), (bc_seconds, budget) = opponents, spans
    counts = sorted({c["num_players"] for c in curve})
    fig, (left, right) = subplots(1, 2, figsize=(11, 3.8))
    for ax, key, scale, label in ((left, "wall_seconds", 60.0, "wall time (minutes)"),
                                  (right, "global_step", 1.0, "env steps")):  # fmt: skip
        for n in counts:
            points = [c for c in curve if c["num_players"] == n]
            x = np.array([c[key] for c in points]) / scale
            y = np.array([c["win_rate"] for c in points])
            err = [y - [c["win_rate_low"] for c in points],
                   [c["win_rate_high"] for c in points] - y]  # fmt: skip
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3,
                        label=f"evaluation vs {short_name(rival)}, {n}p (argmax)")  # fmt: skip
        ax.plot([r[key] / scale for r in rows], [r["win"] for r in rows], alpha=0.5,
                label=f"training games vs {short_name(opponent)} (sampled)")  # fmt: skip
        if len(counts) == 1:
            line = 0.6 if rival == "builder" else 1.0 / counts[0]
            ax.axhline(line, color="k", linestyle=":", linewidth=1)
        ax.set_xlabel(label)
        ax.set_ylabel("win rate")
    if bc_seconds > 0:
        left.axvspan(0, bc_seconds / 60.0, color="grey", alpha=0.2, label="imitation warm start")
    if budget > 0:
        left.axvline(budget, color="r", linestyle="--", linewidth=1, label="wall budget")
    left.legend(fontsize=8)
    fig.suptitle(title)
    save_figure(fig, path)
