"""The command line: ``python -m experiments reproduce [--quick|--full] [--check] ...``
(the flags are described in :mod:`experiments.reproduce` and by ``--help``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from experiments.reproduce.comparison import TIMING_TOLERANCE, result_files
from experiments.reproduce.entries import QUICK_RESULTS, RESULTS, ROOT, Experiment
from experiments.reproduce.records import RECORDS
from experiments.reproduce.registry import EXPERIMENTS
from experiments.reproduce.runner import Outcome, check, run_all
from mamma_mia_env.plumbing.arguments import ArgumentParser

#: the first paragraph of the package's documentation, the ``--help`` description
DESCRIPTION = (
    "Regenerate every published result with one command, and check it against the committed one."
)


def print_list(mode: str) -> None:
    """``--list``: every file of ``mode`` under the command that makes it, and the records."""
    where = "experiments/results/quick/" if mode == "quick" else "experiments/results/"
    print(f"--{mode}: every file in {where}, by the command that makes it")
    print("(reproduce runs the same command with --out runs/reproduce/<mode>/<folder>/):\n")
    files = result_files(mode)
    for e in EXPERIMENTS:
        cmd = e.command(mode)
        if cmd is None:
            continue
        tag = (
            "  [--train]" if e.train else f"  [needs {', '.join(e.requires)}]" if e.requires else ""
        )
        print(f"{e.name}{tag}: python {' '.join(cmd)}")
        for f, (name, kind, _) in files.items():
            if name == e.name:
                print(f"    {f:42s} {kind}")
    if mode == "full":
        print("\nNot re-run by --check:")
        for rec in RECORDS:
            print(f"{rec.name}: {rec.reason}")
            for f, c in rec.commands.items():
                print(f"    {f:42s} {c}")
    skipped = [e.name for e in EXPERIMENTS if e.args(mode) is None]
    if skipped:
        print(f"\nNot run in --{mode}: {', '.join(skipped)}")


def parse_args(argv: list[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    ap = ArgumentParser(prog="python -m experiments reproduce", description=DESCRIPTION)
    m = ap.add_mutually_exclusive_group()
    for mode, text in (
        ("quick", "small versions of every experiment (minutes)"),
        ("full", "the published results"),
    ):
        m.add_argument(f"--{mode}", action="store_const", dest="mode", const=mode, help=text)
    for flag, text in (
        ("--train", "also the training runs: PPO (hours) and the champion's tuning (--full)"),
        ("--check", "compare with the committed results; exit 1 on a mismatch"),
        ("--export", "write into experiments/results/ (quick: results/quick/)"),
    ):
        ap.add_argument(flag, action="store_true", help=text)
    ap.add_argument("--only", help="comma-separated experiment names (see --list)")
    ap.add_argument("--list", action="store_true", help="list the experiments and exit")
    ap.add_argument("--out", type=Path, help="run directory (default runs/reproduce/<mode>)")
    ap.add_argument(
        "--no-timing-check",
        action="store_true",
        help="with --check, compare deterministic files only",
    )
    from experiments.common.arguments import checked  # every flag checked

    return ap, checked(ap).parse_args(argv)


def choose(ap: argparse.ArgumentParser, args: argparse.Namespace, mode: str) -> list[Experiment]:
    """The experiments to run: those of ``mode``, ``--only`` (checked), training runs
    only with ``--train`` or when named by ``--only`` in full mode."""
    if args.export and args.out:
        ap.error("--export and --out are exclusive")
    names = {e.name for e in EXPERIMENTS}
    only = None
    if args.only:
        only = [x.strip() for x in args.only.split(",") if x.strip()]
        bad = [x for x in only if x not in names]
        if bad:
            ap.error(
                f"--only: unknown experiment(s) {', '.join(bad)}; known: {', '.join(sorted(names))}"
            )
    if args.train and mode != "full":
        ap.error("--train needs --full")
    return [
        e
        for e in EXPERIMENTS
        if e.args(mode) is not None
        and (only is None or e.name in only)
        and (not e.train or args.train or (only is not None and e.name in only and mode == "full"))
    ]


def main(argv: list[str] | None = None) -> int:
    ap, args = parse_args(argv)
    mode = args.mode or "quick"
    if args.list:
        print_list(mode)
        return 0
    chosen = choose(ap, args, mode)
    ref_dir = QUICK_RESULTS if mode == "quick" else RESULTS
    out = ref_dir if args.export else args.out or ROOT / "runs" / "reproduce" / mode
    outcomes, loads = run_all(chosen, mode, out, args.export)
    if args.check:
        check(outcomes, mode, out, ref_dir, timing=not args.no_timing_check)
    return report(outcomes, args, mode, out, loads)


def report(
    outcomes: list[Outcome], args: argparse.Namespace, mode: str, out: Path, loads: list[float]
) -> int:
    """Print the table of outcomes and the differences; the exit code (1: a failure or
    a difference)."""
    print()
    print(f"{'experiment':20s} {'wall s':>8s}  {'result':8s} files (in {out})")
    for o in outcomes:
        status = "FAILED" if o.returncode else "skipped" if o.skipped else "differs"
        if not (o.returncode or o.skipped or o.problems):
            status = "matches" if args.check else "ok"
        where = o.exp.name if o.exp.train else o.exp.folder  # the folder in the run directory
        files = f"({o.skipped})" if o.skipped else f"{where}/: " + ", ".join(o.files)
        print(f"{o.exp.name:20s} {o.seconds:8.1f}  {status:8s} {files}")
    bad = [p for o in outcomes for p in (f"{o.exp.name}: {x}" for x in o.problems)]
    print(f"total {sum(o.seconds for o in outcomes):.1f} s")
    if bad:
        print("\nDifferences / failures:")
        print("\n".join("  " + b for b in bad))
        busy = max(loads)
        if any("ratio" in b for b in bad) and busy > (os.cpu_count() or 1):
            print(
                f"  (the load average reached {busy:.1f} on {os.cpu_count()} cores during "
                "the run: other work slows parallel kernels more than serial ones, so timing "
                "ratios of a busy machine are not comparable; re-check when it is quiet, or "
                "--no-timing-check)"
            )
        return 1
    if args.check:
        note = "deterministic files match exactly"
        if mode == "full" and not args.no_timing_check:
            note += f"; timing ratios within x/÷{TIMING_TOLERANCE}"
        skipped = [f"{o.exp.name} ({o.skipped})" for o in outcomes if o.skipped]
        if skipped:
            note += "; skipped, not checked: " + ", ".join(skipped)
        print(note)
    return 0
