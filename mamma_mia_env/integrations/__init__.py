"""Adapters to RL libraries, one module each (docs/INTEGRATIONS.md). Each imports its
library when it is imported itself; the core package never imports this subpackage, so
the libraries stay optional (the extras of pyproject.toml).
"""
