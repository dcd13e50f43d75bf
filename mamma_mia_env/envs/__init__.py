"""The env shells over the rules core: which module holds what is in
docs/ARCHITECTURE.md, "mamma_mia_env/envs/"."""
