"""The env shells over the rules core: PettingZoo (``aec``, ``wrappers``), the all-seat
vector env (``vector``), the learner-seat core (``learner``) and its gymnasium fronts
(``gym_env``, ``learner_vector``), and the gymnasium ids (``registration``).
"""
