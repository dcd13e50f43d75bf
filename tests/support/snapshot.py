"""The engine's state in the oracle's snapshot format (tests/support/oracle.py, snapshot())."""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.record import PHASE_NAMES, REVEAL


def engine_snapshot(data: np.ndarray, game: int, n: int) -> dict:
    r = data[game]
    phase = PHASE_NAMES[int(r["phase"])]
    stacks = []
    for s in range(n):
        head, length = int(r["stack_head"][s]), int(r["stack_len"][s])
        stacks.append([int(r["stack"][s][(head + j) % 8]) for j in range(length)])
    oven = []
    for i in range(int(r["oven_len"])):
        who, what = int(r["oven_who"][i]), int(r["oven_what"][i])
        if what < 5:
            oven.append([who, "ing", what, int(r["oven_s"][i]), int(r["oven_d"][i])])
        else:
            oven.append([who, "order", what - 5])
    return {
        "round": int(r["round"]),
        "phase": phase,
        "seat": -1 if phase == "over" else int(r["seat"]),
        "hands": [[int(x) for x in r["hand"][s]] for s in range(n)],
        "orders_in_hand": [[int(t) for t in np.flatnonzero(r["orders_hand"][s])] for s in range(n)],
        "stacks": stacks,
        "delivered": [[int(t) for t in np.flatnonzero(r["delivered"][s])] for s in range(n)],
        "supply": [int(c) for c in r["supply"][int(r["supply_pos"]) : int(r["supply_len"])]],
        "piles": [int(x) for x in r["piles"]],
        "used": [int(x) for x in r["used"]],
        "oven": oven,
        "reveal_pos": int(r["reveal_pos"]) if r["phase"] == REVEAL else -1,
        "mm_holder": int(r["mm_holder"]),
        "turns": int(r["turns"]),
        "idle": int(r["idle"]),
    }
