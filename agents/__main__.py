"""``python -m mamma_mia_agents``: the ``mamma-mia`` command, run by the interpreter.

The folder ``agents/`` is the package ``mamma_mia_agents`` through setuptools'
``package-dir`` (an editable install, ``pip install -e .``, maps it for a checkout). Run
as ``python -m agents`` from a checkout, the folder would load a second time under
another name (two copies of every class), so that is refused with the right command.
"""

import sys

if __package__ != "mamma_mia_agents":
    sys.exit(f"run `python -m mamma_mia_agents`, not `python -m {__package__}`")

from mamma_mia_agents.cli.commands import main  # noqa: E402 (after the check above)

sys.exit(main())
