"""The generators handed to agents: reproducible from the user's seed, yet no route
back to it.

Every entry point that gives an agent a ``numpy.random.Generator`` builds it with
``agent_rng``, whose seed sequence holds a BLAKE2b digest of the seed material, never
the material itself: nothing an agent can read of its generator runs back to the game
seed. The same material gives the same generator. What this cannot stop is guessing a
seed such as ``0``; seeds drawn from the operating system (every entry point's default)
cannot be guessed (SECURITY.md, "Agents and seeds").
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["agent_rng", "agent_seed"]

_PERSON = b"mamma-mia-agent"  # domain separation: these digests are for agents only


def agent_seed(*material: int | str | bytes) -> int:
    """A 256-bit integer from a one-way digest of ``material`` (ints, strings, bytes),
    each item prefixed with its kind and length, so ``(1, 23)`` and ``(12, 3)`` differ."""
    h = hashlib.blake2b(digest_size=32, person=_PERSON)
    for item in material:
        if isinstance(item, bytes):
            kind, raw = b"b", item
        elif isinstance(item, str):
            kind, raw = b"s", item.encode("utf-8")
        elif isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
            kind, raw = b"i", str(int(item)).encode("ascii")
        else:
            raise TypeError(f"seed material must be ints, strings or bytes, got {item!r}")
        h.update(kind + len(raw).to_bytes(8, "little") + raw)
    return int.from_bytes(h.digest(), "little")


def agent_rng(*material: int | str | bytes) -> np.random.Generator:
    """A fresh generator for agents from a one-way digest of ``material``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(agent_seed(*material))))
