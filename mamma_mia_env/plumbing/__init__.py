"""Plumbing under every layer: argument checks, the compiled-kernel cache, OpenMP waits,
result provenance and the shims of moved modules. Imports nothing else of the project."""
