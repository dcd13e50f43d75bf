"""docs/PERFORMANCE.md's tables of the ``fixed`` observation layout against ``recall``
(the record ``layout_speed/layout_speed.json``: one interleaved run of the
layout_speed script, last in commit c7deff1)."""

from __future__ import annotations

from experiments.docs.markdown import result, row, table


def _q(spread: dict) -> str:
    lo, hi = spread["quartiles"]
    return f"{spread['median']:.2f} ({lo:.2f}-{hi:.2f})"


def _range(values: list[float], fmt: str = "{:.2f}") -> str:
    lo, hi = min(values), max(values)
    return (
        fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"
    )


def _summary(rows: list[dict]) -> str:
    """The figures the goals name, as ranges over the rows."""
    vec = [r for r in rows if r["env"] == "vector"]
    learner = [r["fixed_over_recall"]["median"] for r in rows if r["env"] == "learner"]

    def bound(layout: str) -> str:
        values = [100 * r[layout]["fraction_of_write_bound"]["median"] for r in vec]
        return _range(values, "{:.1f}") + "%"

    return (
        "Fixed / recall over the rows: bytes per observation "
        f"{_range([r['obs_bytes_fixed_over_recall'] for r in rows])}, per step "
        f"{_range([r['step_bytes_fixed_over_recall'] for r in rows])}; steps/s of the vector env "
        f"{_range([r['fixed_over_recall']['median'] for r in vec])}"
        + (f", of the learner env {_range(learner)}" if learner else "")
        + f". The vector env runs at {bound('fixed')} of the write bound with `fixed` "
        f"({bound('recall')} with `recall`)."
    )


def layout_speed() -> str:
    """Bytes per observation and step, steps/s as fixed / recall, and the vector env's
    fraction of the write bound, from the record ``layout_speed/layout_speed.json``."""
    doc = result("layout_speed/layout_speed.json")
    rows, sizes, speeds = doc["rows"], [], []
    for n in sorted({r["players"] for r in rows}):
        r = next(r for r in rows if r["players"] == n)
        rc, fx = r["recall"], r["fixed"]
        sizes.append(row(
            n, f"{rc['obs_bytes']:,} B ({rc['obs_dtype']})",
            f"{fx['obs_bytes']:,} B ({fx['obs_dtype']})", f"{r['obs_bytes_fixed_over_recall']:.2f}",
            f"{rc['step_bytes']:,} B", f"{fx['step_bytes']:,} B",
            f"{r['step_bytes_fixed_over_recall']:.2f}",
        ))  # fmt: skip
    names = {"vector": "`MammaMiaVectorEnv`", "learner": "`MammaMiaLearnerVectorEnv`"}
    for r in rows:
        rc, fx = r["recall"], r["fixed"]
        bound = fraction = ""
        if "write_bound_turns_per_s" in rc:  # the vector env's
            bound = f"{rc['write_bound_turns_per_s']:,} / {fx['write_bound_turns_per_s']:,}"
            fraction = (
                f"{100 * rc['fraction_of_write_bound']['median']:.1f}% / "
                f"{100 * fx['fraction_of_write_bound']['median']:.1f}%"
            )
        speeds.append(row(
            names[r["env"]], r["players"], f"{r['batch']:,}", f"{rc['turns_per_s']:,}",
            f"{fx['turns_per_s']:,}", _q(r["fixed_over_recall"]), bound, fraction,
        ))  # fmt: skip
    s, cores = doc["settings"], doc["provenance"]["machine"]["cores"]
    before, after = s["load_average_before_after"]
    return (
        table(
            "| players | observation, recall | observation, fixed | fixed / recall "
            "| step (obs + mask), recall | step, fixed | fixed / recall |",
            "rrrrrrr",
            sizes,
        )
        + "\n"
        + table(
            "| env | players | B | recall, steps/s | fixed, steps/s | fixed / recall (quartiles) "
            "| write bound, recall / fixed | of the write bound, recall / fixed |",
            "lrrrrrrr",
            speeds,
        )
        + f"\n{_summary(rows)}\n\n"
        f"One interleaved run: {s['rounds']} rounds of {s['seconds_per_slice']:g} s slices "
        "per layout (medians; the ratios are medians of per-round ratios, quartiles in "
        f"brackets); load average {before} before the run and {after} at its end, on "
        f"{cores} cores shared with other work.\n"
    )
