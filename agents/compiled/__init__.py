"""The heuristic bots and the random policy as numba kernels, split by job.

* ``tables``: the plain arrays the kernels read (weights, observation layout)
  and ``KernelBot``, one bot as the compiled game loop plays it;
* ``jit``: compile options, scratch space and constants every kernel shares;
* ``oven`` and ``decisions``: one heuristic decision in one game;
* ``batch``: ``decide``, a bot's decisions over a batch (``HeuristicAgent.decide``);
* ``playout``: ``play_out``, whole games inside one compiled loop (tournaments, search).

Every kernel is compiled through ``mamma_mia_env.plumbing.jit_cache.njit``: one cache
keyed on every source file of both packages, so no kernel runs stale rules (``jit``).
Nothing here imports an agent class: agents hand the kernels plain arrays
(``Agent.kernel_bot``). This ``__init__`` imports nothing: import a name from its module.

The kernels' short argument names, shared by every module of this package:

* ``ob`` / ``obs``: one game's observation / a batch of them (the acting seat's view:
  the envs' uint8, or float32; read as float32 through ``jit.at``); ``mk`` / ``masks``:
  the legal-action mask(s) (int8);
* ``personal`` / ``seats``: the acting seat, which is also its personal ingredient;
* ``lay``: the observation layout (``tables.L_*`` offsets, ``tables.layout_vector``);
* ``play``, ``need``: the engine's play table (n_play, 3) and order-need table
  (5 personal, 5 types, 5 kinds), int64;
* ``prm``: the bot's weights (``tables.I_*``, ``tables.params_vector``);
* ``ws``, ``wd``, ``wi``: scratch (float32, float64, int64; ``jit.workspace``), cut
  into the named parts of ``jit``'s layout table (``jit.part``); ``sbuf``: where
  ``turn_action`` writes every legal action's score (one slot: none wanted);
* ``pv``, ``hv``: value per ingredient face up / in hand (a double counts 2); ``pool``:
  what an order played now will meet; ``rel``: a seat relative to the acting one.
"""
