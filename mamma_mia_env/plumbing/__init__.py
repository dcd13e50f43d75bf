"""Plumbing under every layer; imports nothing else of the project.

``arguments`` (the public entry points' plain arguments), ``files`` (every file written
or read), ``jit_cache`` (the kernels' source-keyed cache), ``threads`` (OpenMP's waiting
policy), ``provenance`` (what made a result file), ``seeding`` (agents' generators).
Ctrl-C and SIGTERM are ``mamma_mia_interrupts`` (standard library only: loaded first).
"""
