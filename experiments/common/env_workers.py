"""Learner-seat games stepped in worker processes, so that the env and the policy run at once.

A training loop that steps its env and then runs its policy keeps one core busy at a
time. ``EnvWorkers`` splits the games into groups, each a ``MammaMiaLearnerVectorEnv``
in its own process; ``step_async(g, actions)`` hands a group its actions and returns
at once, ``step_wait(g)`` collects the group's step. A loop that sends one group's
actions and then computes the next group's keeps the policy's core and the env's busy
together (``experiments/train/cleanrl_ppo.py``, ``--env-workers``). Observations and
masks travel through shared memory; rewards and the finished games' results through
the pipe.

Each group is its own env with its own deal generator (group g is reset with seed
``seed + g``): the same seed gives the same games, bit for bit, whatever the timing.
A worker's failure reaches the caller as ``EnvWorkerError`` with the worker's message.
"""

from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np

__all__ = ["EnvWorkerError", "EnvWorkers", "Step"]


class EnvWorkerError(RuntimeError):
    """A worker process failed; the message is the worker's own."""


@dataclass
class Step:
    """One group's step: the arrays are the group's rows; ``obs`` and ``mask`` are copies
    (the worker's buffers are written again at its next step)."""

    obs: np.ndarray
    mask: np.ndarray
    reward: np.ndarray
    done: np.ndarray
    episode_returns: np.ndarray  # of the games that ended in this step, in row order
    wins: np.ndarray


def _serve(conn: Any, make: Callable[[int], Any], size: int) -> None:
    """A worker: build the group's env, then answer ``reset`` / ``step`` / ``close``."""
    shms: list[SharedMemory] = []
    try:
        from gymnasium.wrappers.vector import RecordEpisodeStatistics

        from experiments.common.training import set_threads

        set_threads(1)  # one core per worker: the other is the policy's
        envs = RecordEpisodeStatistics(make(size))
        obs_dim = envs.single_observation_space.shape[0]
        n_actions = int(envs.single_action_space.n)
        dtype = envs.single_observation_space.dtype
        shapes = {"obs": ((size, obs_dim), dtype), "mask": ((size, n_actions), np.int8),
                  "action": ((size,), np.int64)}  # fmt: skip
        bufs = {}
        for key, (shape, dt) in shapes.items():
            shm = SharedMemory(
                create=True, size=max(int(np.prod(shape)) * np.dtype(dt).itemsize, 1)
            )
            shms.append(shm)
            bufs[key] = np.ndarray(shape, dt, buffer=shm.buf)
        spaces = (envs.single_observation_space, envs.single_action_space)
        names = {key: shm.name for key, shm in zip(shapes, shms, strict=True)}
        conn.send(("ready", (names, shapes, spaces)))
        cpu0 = time.process_time()  # the work's CPU time, setup apart
        while True:
            cmd, arg = conn.recv()
            if cmd == "close":
                conn.send(("closed", time.process_time() - cpu0))
                break
            if cmd == "reset":
                obs, info = envs.reset(seed=arg)
                reply: Any = None
            else:
                obs, reward, term, trunc, info = envs.step(bufs["action"].copy())
                done = term | trunc
                ended = np.flatnonzero(done)
                reply = (reward.copy(), done, info["episode"]["r"][ended].copy(),
                         info["final_info"]["result"]["win"][ended].copy()) if ended.size else (
                         reward.copy(), done, np.zeros(0), np.zeros(0))  # fmt: skip
            bufs["obs"][:] = obs
            bufs["mask"][:] = info["action_mask"]
            conn.send(("ok", reply))
    except Exception:  # the parent raises it with this text
        conn.send(("error", traceback.format_exc()))
    finally:
        for shm in shms:
            shm.close()
            shm.unlink()
        conn.close()


class EnvWorkers:
    """``sizes[g]`` games in worker process g, each group built by ``make(size)`` (a
    picklable callable returning a ``MammaMiaLearnerVectorEnv``)."""

    def __init__(self, make: Callable[[int], Any], sizes: list[int]) -> None:
        ctx = mp.get_context("spawn")  # not fork: torch's and numba's threads are running
        self.sizes = list(sizes)
        self._conns, self._procs, self._shms = [], [], []
        self.worker_cpu_seconds = 0.0  # the workers' CPU time stepping, summed at close
        self._bufs: list[dict[str, np.ndarray]] = []
        try:
            for size in self.sizes:
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(child, make, size), daemon=True)
                proc.start()
                child.close()
                self._conns.append(parent)
                self._procs.append(proc)
            for conn in self._conns:
                names, shapes, spaces = self._answer(conn)
                bufs = {}
                for key, (shape, dt) in shapes.items():
                    shm = SharedMemory(name=names[key])
                    self._shms.append(shm)
                    bufs[key] = np.ndarray(shape, dt, buffer=shm.buf)
                self._bufs.append(bufs)
                self.single_observation_space, self.single_action_space = spaces
        except BaseException:
            self.close()
            raise

    def _answer(self, conn: Any) -> Any:
        try:
            status, payload = conn.recv()
        except EOFError:
            raise EnvWorkerError("an env worker process ended without a word") from None
        if status == "error":
            raise EnvWorkerError(f"an env worker failed:\n{payload}")
        return payload

    def reset(self, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Reset every group (group g with ``seed + g``); each group's observations and masks."""
        for g, conn in enumerate(self._conns):
            conn.send(("reset", seed + g))
        out = []
        for conn, bufs in zip(self._conns, self._bufs, strict=True):
            self._answer(conn)
            out.append((bufs["obs"].copy(), bufs["mask"].copy()))
        return out

    def step_async(self, g: int, actions: np.ndarray) -> None:
        """Start group ``g``'s step with ``actions`` (one per game of the group)."""
        self._bufs[g]["action"][:] = actions
        self._conns[g].send(("step", None))

    def step_wait(self, g: int) -> Step:
        """Group ``g``'s step started by ``step_async``."""
        reward, done, returns, wins = self._answer(self._conns[g])
        bufs = self._bufs[g]
        return Step(bufs["obs"].copy(), bufs["mask"].copy(), reward, done, returns, wins)

    def close(self) -> None:
        for shm in self._shms:
            shm.close()
        self._shms.clear()
        for conn in self._conns:
            try:
                conn.send(("close", None))
                status, payload = conn.recv()
                while status not in ("closed", "error"):  # a step never collected
                    status, payload = conn.recv()
                self.worker_cpu_seconds += payload if status == "closed" else 0.0
            except (BrokenPipeError, EOFError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
        self._conns.clear()
        self._procs.clear()

    def __enter__(self) -> EnvWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
