"""Training opponents that are not bundled names, as committed import paths.

A preset's opponent must be re-creatable from the repository alone (the reproduction
registry re-runs the command), so a bot with other settings than its bundled default is
a marked factory here, named for what it is, and a preset names it by its import path
(``experiments.common.opponents:search_4x3``): ``load_agent`` calls a function only
when it carries the ``agent_factory`` mark.
"""

from __future__ import annotations

from mamma_mia_agents.bots.loading import agent_factory
from mamma_mia_agents.bots.search import SearchAgent

__all__ = ["search_4x3"]


@agent_factory
def search_4x3() -> SearchAgent:
    """The search bot at an eighth of its budget: 4 sampled worlds for each of the
    builder's 3 best moves (the bundled ``search`` rolls out 16 worlds for 6 moves).
    Training against it makes several times the env steps a second that training
    against ``search`` does, and it is weaker, so a network can learn to beat it first
    (docs/TRAINING.md, the vs-search presets)."""
    return SearchAgent(worlds=4, candidates=3)
