"""Public modules that moved, old path -> new path (served with a warning for one release).

Remove an entry one release after its move; ``tests`` import every old path here.
"""

MOVED: dict[str, str] = {
    "mamma_mia_env.arguments": "mamma_mia_env.plumbing.arguments",
    "mamma_mia_env.provenance": "mamma_mia_env.plumbing.provenance",
}
