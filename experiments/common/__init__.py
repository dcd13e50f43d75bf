"""What the experiment scripts share, by job.

* :mod:`~experiments.common.output`: where results go (``runs/``, ``--out``,
  ``--export``) and how they are written (JSON with provenance, CSV);
* :mod:`~experiments.common.provenance`: what made a result (the package's record,
  plus numba threads, the git revision string, the bots' source hashes);
* :mod:`~experiments.common.samplers`: the timing harness of the speed scripts;
* :mod:`~experiments.common.speed`: the heuristic bots' tournament speed (speed.py,
  leaderboard.py);
* :mod:`~experiments.common.training`: threads, the library training scripts' flags
  and files, cleanrl_ppo.py's flags and curve; :mod:`~experiments.common.ppo_steps`:
  the steps of a CleanRL PPO iteration;
* :mod:`~experiments.common.config`, :mod:`~experiments.common.imitation`,
  :mod:`~experiments.common.evaluation`, :mod:`~experiments.common.sb3_ppo`,
  :mod:`~experiments.common.ppo_outputs`: the MaskablePPO run's plumbing (config files,
  the imitation warm start, duplicate-deal evaluations, SB3 callbacks and plots, what a
  run keeps).

Scripts import from here or from the modules; no script imports another script. The
names below are the ones ``experiments/common/`` had, and stay importable from here.
"""

from __future__ import annotations

from experiments.common.output import (
    RESULTS,
    ROOT,
    RUNS,
    add_output_args,
    file_stem,
    output_dir,
    write_csv,
    write_json,
)
from experiments.common.provenance import (
    bot_sources,
    git_revision,
    provenance,
    provenance_with_threads,
    write_sidecar,
)
from experiments.common.training import (
    add_training_args,
    check_training_args,
    set_threads,
    write_training_run,
)

__all__ = ["RESULTS", "ROOT", "RUNS", "add_output_args", "add_training_args", "bot_sources"]
__all__ += ["check_training_args", "file_stem", "git_revision", "output_dir", "provenance"]
__all__ += ["provenance_with_threads", "set_threads", "write_csv", "write_json"]
__all__ += ["write_sidecar", "write_training_run"]
