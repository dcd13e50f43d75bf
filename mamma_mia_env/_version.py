"""The package version, read by setuptools (pyproject's dynamic version) and at run time."""

__version__ = "0.1.0"
