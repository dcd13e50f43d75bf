"""What the experiment scripts share, by job (each module's doc says more): ``output``
and ``provenance`` (where results and plots go, what made them), ``arguments`` (flags
checked as the CLI's are), ``speed`` (the benchmark harness) and ``decision_time``, ``training``,
``imitation``, ``evaluation`` and ``policy_export`` (training runs, their warm start,
evaluations and policy files), ``search_labels`` and ``distill`` (expert iteration),
``opponents`` (training opponents as import paths).

Scripts import from the modules; no script imports another.
"""
