"""What the experiment scripts share, by job.

* :mod:`~experiments.common.output`: where results go (``runs/``, ``--out``,
  ``--export``) and how they are written (JSON with provenance, CSV);
* :mod:`~experiments.common.provenance`: what made a result (the package's record,
  plus numba threads, the git revision string, the bots' source hashes);
* :mod:`~experiments.common.samplers`: the timing harness of the speed scripts;
* :mod:`~experiments.common.speed`: the heuristic bots' tournament speed
  (``benchmark.speed``, ``evaluate.leaderboard``);
* :mod:`~experiments.common.training`: threads, the library training scripts' flags
  and files, cleanrl_ppo.py's flags and curves (its algorithm is in that one file);
* :mod:`~experiments.common.imitation`, :mod:`~experiments.common.evaluation`: the
  imitation warm start, duplicate-deal evaluations and the training runs' curve and
  final seeds;
* :mod:`~experiments.common.policy_export`: a trained network as the numpy policy file,
  and a policy file as the starting actor of a fine-tuning run;
* :mod:`~experiments.common.search_labels`, :mod:`~experiments.common.distill`: expert
  iteration's data (positions labelled by the search bot) and its fit;
* :mod:`~experiments.common.opponents`: training opponents as committed import paths;
  :mod:`~experiments.common.arguments`: the scripts' flags, checked as the CLI's are;
  :mod:`~experiments.common.decision_time`: a bot's time per decision.

Scripts import from the modules; no script imports another script.
"""
