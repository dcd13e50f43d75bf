"""``python -m mamma_mia_agents.cli``: the ``mamma-mia`` command."""

import sys

from mamma_mia_agents.cli.commands import main

sys.exit(main())
