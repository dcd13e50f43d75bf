"""The benchmark harness: what every speed script (``experiments/benchmark/``) shares, so
that a figure from one is measured as a figure from another.

* :func:`random_legal`: the uniform random legal action of every row (numpy; the
  training scripts' env-alone rates draw with it too), and :func:`aec_turns`: PettingZoo's
  standard loop with it;
* :func:`timed_rates`: a step's units per wall and per CPU second;
* :func:`interleaved`: named rows timed in rounds, their order reversed every other
  round, so that a slow patch of a shared machine hits every row alike, none always
  first;
* :func:`ratios`: the per-round ratios of two rows (each from adjacent slices), their
  median and quartiles;
* :func:`benchmark_parser` and :func:`parse`: a script's flags (``--out`` / ``--export``,
  every flag checked, the counts that must be positive named in one message);
* :class:`Run`: the load average before a run, and its record written with the load
  average after, its wall time and provenance;
* :func:`speed_markdown`: the leaderboard page's paragraph for ``speed.json``.

It imports the packages only where a function needs them: the A/B workers
(``ab.py``) import it beside another checkout's ``mamma_mia_env``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

__all__ = ["Run", "aec_turns", "benchmark_parser", "interleaved", "parse", "random_legal", "ratios"]
__all__ += ["speed_markdown", "timed_rates"]
T = TypeVar("T")


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (numpy, no compilation)."""
    return (rng.random(masks.shape) * (masks != 0)).argmax(axis=1)


def aec_turns(env: Any, seed: int = 0) -> Iterator[int]:
    """PettingZoo's standard loop (``agent_iter`` / ``last`` / ``step``) over the AEC
    ``env``, uniformly random legal actions, game after game without end: yields 1 after
    each step (a finished seat's ``None`` step too)."""
    rng = np.random.default_rng(seed)
    for game in itertools.count():
        env.reset(seed=seed + game)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            mask = obs["action_mask"][None]
            env.step(None if terminated or truncated else int(random_legal(mask, rng)[0]))
            yield 1


def timed_rates(step: Callable[[], int], seconds: float) -> tuple[float, float]:
    """The units per wall second and per CPU second of this process (all its threads;
    another process moves it much less than the wall clock) of calling ``step``, which
    returns the units it did, for ``seconds``."""
    units, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        units += step()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return units / wall, units / max(cpu, 1e-9)


def interleaved(rows: Mapping[str, Callable[[], T]], rounds: int, desc: str) -> dict[str, list[T]]:
    """Each row's ``rounds`` samples (a call each), the order reversed every other round."""
    from tqdm import tqdm

    names, samples = list(rows), {name: list[T]() for name in rows}
    for k in tqdm(range(rounds), desc=desc):
        for name in names if k % 2 == 0 else names[::-1]:
            samples[name].append(rows[name]())
    return samples


def ratios(new: Sequence[float], base: Sequence[float]) -> dict[str, Any]:
    """The ratios new / base round by round, their median and three quartiles (of one
    ratio: it, three times)."""
    r = [n / b for n, b in zip(new, base, strict=True)]
    quartiles = statistics.quantiles(r, n=4) if len(r) > 1 else r * 3
    return {"median": statistics.median(r), "quartiles": quartiles, "ratios": r}


def benchmark_parser(doc: str, name: str) -> argparse.ArgumentParser:
    """A speed script's parser: its doc's first paragraph, and ``--out`` / ``--export``
    (default runs/<name>/)."""
    from experiments.common.output import add_output_args
    from mamma_mia_env.plumbing.arguments import ArgumentParser

    parser = ArgumentParser(description=doc.split("\n\n")[0])
    add_output_args(parser, name)
    return parser


def parse(
    parser: argparse.ArgumentParser,
    argv: list[str] | None,
    name: str,
    positive: Sequence[str] = (),
    problems: Callable[[argparse.Namespace], list[str]] = lambda args: [],
) -> tuple[argparse.Namespace, Path]:
    """The flags, every one checked (``checked``), those of ``positive`` (dests) above 0
    and none with ``problems``, all in one message before any work; and the output
    directory, made only then."""
    from experiments.common.arguments import checked
    from experiments.common.output import output_dir

    args = checked(parser).parse_args(argv)
    low = [f"--{k.replace('_', '-')}" for k in positive if getattr(args, k) <= 0]
    found = ([f"{', '.join(low)} must be positive"] if low else []) + problems(args)
    if found:
        parser.error("; ".join(found))
    return args, output_dir(args, name)


class Run:
    """One timed run: its clock and the load average before it, which other work on a
    shared machine moves (``load_before``)."""

    def __init__(self) -> None:
        self.started, self.load_before = time.perf_counter(), list(os.getloadavg())

    def seconds(self) -> float:
        """The wall time since the run started."""
        return time.perf_counter() - self.started

    def write(self, path: Path, doc: dict[str, Any], seeds: object = None) -> None:
        """``doc`` with the load average after, and the provenance (numba's thread count
        included: timings depend on it), into ``path``."""
        from experiments.common.output import write_json
        from experiments.common.provenance import provenance_with_threads

        doc = {**doc, "load_average_after": list(os.getloadavg())}
        write_json(path, doc, provenance_with_threads(seeds=seeds, wall_time=self.seconds()))
        print(f"wrote {path}")


def speed_markdown(record: dict) -> str:
    """The paragraph LEADERBOARD.md shows for a ``speed.json`` record (written by
    ``experiments/benchmark/speed.py``)."""
    return "\n".join(
        [
            "## Speed",
            "",
            f"{record['games']:,} four-player games between {', '.join(record['agents'])}: "
            f"**{record['seconds']:.1f} s** wall-clock ({record['games_per_second']:,.0f} "
            f"games/s, {record['mean_turns']:.0f} turns per game) with {record['workers']} "
            f"worker processes on {record['cores']} cores, load average "
            f"{record['load_average_before']:.2f} before the run. The time covers starting "
            "the processes, every game and the statistics. "
            "Command: `python -m experiments.benchmark.speed --export`.",
            "",
        ]
    )
