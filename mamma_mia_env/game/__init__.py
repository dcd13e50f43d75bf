"""The rules core: cards, configuration, state, rules, observation, engine and game records.

Only numpy and numba: no gymnasium, PettingZoo, PIL or optional library is imported here,
so the rules can be read (and compiled) on their own. The env shells are in ``envs``.
"""
