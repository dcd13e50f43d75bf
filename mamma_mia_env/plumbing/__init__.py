"""Plumbing under every layer; imports nothing else of the project.

``arguments`` (checks of the plain arguments the public entry points take), ``files``
(every file written or read), ``jit_cache`` (the compiled kernels' source-keyed cache),
``threads`` (OpenMP's waiting policy), ``interrupts`` (Ctrl-C and SIGTERM answered with one
line; child processes that end with their parent), ``provenance`` (what made a result
file) and ``seeding`` (the generators handed to agents).
"""
