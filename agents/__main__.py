"""``python -m mamma_mia_agents``: the ``mamma-mia`` command line without installing."""

import sys

from mamma_mia_agents.cli.commands import main

if __name__ == "__main__":
    sys.exit(main())
