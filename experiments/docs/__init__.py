"""The docs' result blocks, rendered from the committed results.

``generate`` is ``python -m experiments docs``: it fills every
``<!-- results:NAME -->`` block of README.md and docs/ from experiments/results/.
The blocks by subject: ``bots`` (bot speed, search strength, the champion's tuning,
strength and speed), ``ladder`` (scorecards and ratings), ``layout`` (the ``fixed``
observation's bytes and speed), ``training`` (the training runs and the shipped
policies); ``markdown`` builds their tables.
"""
