"""Moved to mamma_mia_env.plumbing.arguments (kept for one release)."""

from mamma_mia_env.plumbing.moved import alias

alias(__name__, "mamma_mia_env.plumbing.arguments")
