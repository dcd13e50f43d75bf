"""Plumbing under every layer; imports nothing else of the project.

``arguments`` (checks of the plain arguments the public entry points take), ``files``
(every file written or read), ``jit_cache`` (the compiled kernels' source-keyed cache),
``threads`` (OpenMP's waiting policy), ``provenance`` (what made a result file) and
``seeding`` (the generators handed to agents). How a command ends on Ctrl-C or SIGTERM is
the top-level module ``mamma_mia_interrupts`` (standard library only, so a command loads
it before this package).
"""
