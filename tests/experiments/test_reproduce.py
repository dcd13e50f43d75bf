"""The reproduction: provenance, the comparison, determinism across worker counts, and
that the quick reproduction matches its committed references without touching tracked
files (run in a temporary clone, never in the working tree)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.reproduce import cli, comparison, entries, records, registry
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env.plumbing.provenance import provenance, write_sidecar

ROOT = Path(__file__).resolve().parents[2]


def test_provenance_record(tmp_path):
    rec = provenance(seeds=[1, 2], wall_time=1.23456, command="x y")
    assert rec["seeds"] == [1, 2] and rec["wall_time_s"] == 1.235 and rec["command"] == "x y"
    assert rec["packages"]["numpy"] and rec["packages"]["numba"]
    assert rec["machine"]["cores"] == os.cpu_count() and rec["python"]
    assert rec["git"]["revision"] is None or len(rec["git"]["revision"]) == 40
    assert rec["utc"].endswith("+00:00")
    side = write_sidecar(tmp_path / "a.csv", rec)
    assert json.loads(Path(side).read_text())["provenance"]["seeds"] == [1, 2]


def test_tournament_files_carry_provenance(tmp_path):
    res = run_tournament(["random", "builder"], num_players=2, games=20, seed=3, progress=False)
    res.write(tmp_path, "t", plot=False)
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["provenance"]["seeds"] == 3
    assert (tmp_path / "t.csv.meta.json").exists()


def test_games_do_not_depend_on_the_number_of_workers():
    """The committed leaderboard differed from a re-run because the random agent's
    generators were per batch and the batches depended on the worker count."""
    kw = dict(num_players=2, games=60, seed=0, progress=False, batch_size=20)
    one = run_tournament(["random", "builder"], workers=1, **kw)
    three = run_tournament(["random", "builder"], workers=3, **kw)
    assert (one.turns == three.turns).all()
    assert one.table == three.table


def test_compare_ignores_provenance_and_reports_differences(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"x": 1, "elapsed_seconds": 3, "provenance": {"utc": "1"}}))
    b.write_text(json.dumps({"x": 1, "elapsed_seconds": 4, "provenance": {"utc": "2"}}))
    assert comparison.compare_file(a, b) == []
    b.write_text(json.dumps({"x": 2}))
    assert comparison.compare_file(a, b) == ["a.json: /x: 1 (new) vs 2 (committed)"]
    assert "no committed reference" in comparison.compare_file(a, tmp_path / "c.json")[0]


def test_every_experiment_is_well_formed():
    names = [e.name for e in registry.EXPERIMENTS] + [r.name for r in records.RECORDS]
    assert len(names) == len(set(names))
    import importlib.util

    for e in registry.EXPERIMENTS:
        assert e.script.startswith("-m ") and e.folder, e.name  # a module, a results folder
        spec = importlib.util.find_spec(e.script.split()[1])
        assert spec, e.script
        if spec.submodule_search_locations is not None:  # a package runs its __main__
            assert importlib.util.find_spec(e.script.split()[1] + ".__main__"), e.script
        if e.args("quick") is not None and not e.train:
            for f in e.deterministic("quick"):
                assert (entries.QUICK_RESULTS / e.folder / f).exists(), f"no quick reference {f}"
        if not e.train:
            for f in e.deterministic("full") + e.timing("full"):
                assert (entries.RESULTS / e.folder / f).exists(), f"no committed result {f}"


def _clone(tmp_path: Path) -> Path:
    """The working tree's current files in a fresh git repository (committed, clean)."""
    dst = tmp_path / "repo"
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for f in files:
        src = ROOT / f
        if src.is_file():
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / f)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=dst, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dst, check=True)
    subprocess.run([*git, "commit", "-qm", "snapshot"], cwd=dst, check=True)
    return dst


def test_quick_reproduction_matches_and_leaves_the_tree_clean(tmp_path):
    repo = _clone(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(repo)}
    run = subprocess.run(
        [sys.executable, "-m", "experiments", "reproduce", "--quick", "--check"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "deterministic files match exactly" in run.stdout
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    assert status == "", status


def test_docs_blocks_match_the_result_files():
    from experiments.docs import generate as docs

    for path in docs.DOCS:
        text = path.read_text()
        assert docs.render(text) == text, f"{path}: run `python -m experiments docs`"


def test_a_doc_with_an_unknown_block_or_a_missing_result_is_one_line(tmp_path, monkeypatch, capsys):
    from experiments.docs import generate as docs

    doc = tmp_path / "PAGE.md"
    monkeypatch.setattr(docs, "DOCS", [doc])
    monkeypatch.setattr(docs, "ROOT", tmp_path)
    doc.write_text("<!-- results:no_such_block -->\nold\n<!-- /results -->\n")
    with pytest.raises(SystemExit) as ended:
        docs.main(["--check"])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m experiments docs: error: PAGE.md: unknown results block")
    assert "'no_such_block'" in err and len(err.splitlines()) == 1
    from experiments.docs import markdown

    monkeypatch.setattr(markdown, "RESULTS", tmp_path / "results")  # no result file there
    doc.write_text("<!-- results:leaderboard -->\nold\n<!-- /results -->\n")
    with pytest.raises(SystemExit) as ended:
        docs.main(["--check"])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert "PAGE.md: " in err and "No such file" in err and len(err.splitlines()) == 1


def test_numbers_quoted_in_the_docs_match_the_result_files():
    """Numbers outside the generated blocks, each against its result file."""
    results = ROOT / "experiments" / "results"
    speed = json.loads((results / "leaderboard" / "speed.json").read_text())
    seconds = f"{speed['seconds']:.1f} s"
    load = f"load average {speed['load_average_before']:.2f}"
    for doc in ("docs/AGENTS.md", "docs/PERFORMANCE.md"):
        text = " ".join((ROOT / doc).read_text().split())
        assert seconds in text, f"{doc} should quote {seconds}"
        assert load in text, f"{doc} should quote {load}"
    agents = " ".join((ROOT / "docs" / "AGENTS.md").read_text().split())
    rate = f"({speed['games_per_second']:,.0f} games/s, {speed['mean_turns']:.0f} turns per game)"
    assert rate in agents, f"AGENTS.md should quote {rate}"


def _committed(directory: Path) -> set[str]:
    """The committed result files under ``directory`` as paths in it (the quick
    results' folder is not part of the full ones)."""
    return {
        p.relative_to(directory).as_posix()
        for p in directory.rglob("*")
        if p.is_file() and p.relative_to(directory).parts[0] != "quick"
    }


def test_every_result_file_is_made_by_an_experiment_or_recorded():
    """Each committed result file comes from a listed command (or is a record kept with
    the reason it is not re-run), and each listed file is committed."""
    for mode, where in (("full", entries.RESULTS), ("quick", entries.QUICK_RESULTS)):
        listed = comparison.result_files(mode)
        stray = _committed(where) - set(listed)
        assert not stray, f"{where}: not made by any experiment of reproduce --{mode}: {stray}"
        absent = {
            f
            for f in set(listed) - _committed(where)
            if f.removesuffix(".meta.json") not in entries.PRE_PROVENANCE
        }
        assert not absent, f"{where}: listed by reproduce --{mode} but not committed: {absent}"
    for mode, where in (("full", entries.RESULTS), ("quick", entries.QUICK_RESULTS)):
        folders = {f.split("/")[0] for f in comparison.result_files(mode) if "/" in f}
        assert {p.name for p in where.iterdir() if p.is_dir()} - {"quick"} == folders


def test_list_prints_every_file_with_its_command(capsys):
    assert cli.main(["--list", "--full"]) == 0
    out = capsys.readouterr().out
    for f, (_, _kind, cmd) in comparison.result_files("full").items():
        assert f in out, f
        assert cmd in out, cmd
    for rec in records.RECORDS:
        assert rec.reason in out


def test_search_strength_files_hold_what_the_command_says():
    """The committed search-strength files were made by the registered command (a file
    cut short by hand, or made with other arguments, is not a reproducible result)."""
    for name in ("search_strength_2p", "search_strength_4p"):
        exp = next(e for e in registry.EXPERIMENTS if e.name == name)
        args = exp.args("full")
        doc = json.loads((entries.RESULTS / exp.folder / f"{name[-2:]}.json").read_text())
        given = dict(zip(args[::2], args[1::2], strict=True))
        for flag, value in given.items():
            assert str(doc["args"][flag.lstrip("-")]) == value, (name, flag)
        worlds = [int(w) for w in given["--worlds"].split(",")]
        for rows in doc["curves"].values():
            assert [r["worlds"] for r in rows] == worlds, f"{name}: a row is missing"
            assert all(r["games"] == int(given["--games"]) for r in rows)


def _tournament(name: str) -> dict[str, dict]:
    """The tournament file ``name`` (a path in the results, without .json) by agent."""
    doc = json.loads((ROOT / "experiments" / "results" / f"{name}.json").read_text())
    return {r["agent"]: r for r in doc["results"]}


def test_training_doc_quotes_the_demo_file():
    """The shipped policy's standing (demo tournament, search, builder) is the generated
    ``shipped_policy`` block in README and TRAINING.md (kept current by the docs test)."""
    demo = _tournament("demo_tournament/demo")
    for text in ((ROOT / "docs" / "TRAINING.md").read_text(), (ROOT / "README.md").read_text()):
        assert "<!-- results:shipped_policy -->" in text
        assert f"`ppo` wins {100 * demo['ppo']['win_rate']:.1f}%" in " ".join(text.split())


def test_training_doc_quotes_the_seed7_files():
    """TRAINING.md's seed-7 sentence (the shipped network against builder on other deals)
    quotes ``vs_builder_seed7/ppo_{2,3,4,5}p.json``."""
    text = " ".join((ROOT / "docs" / "TRAINING.md").read_text().split())
    rates = [_tournament(f"vs_builder_seed7/ppo_{n}p")["ppo"]["win_rate"] for n in (2, 3, 4, 5)]
    quoted = " / ".join(f"{100 * r:.1f}%" for r in rates)
    assert f"(seed 7) it wins {quoted} against `builder` at 2 / 3 / 4 / 5 players" in text


def test_readme_python_snippets_run():
    """The README's examples run as written, in order (one namespace, as a reader would)."""
    import re

    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    ns: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), ns)  # noqa: S102


def test_help_texts_have_no_doubled_percent(capsys):
    """argparse %-formats help strings: a literal '%%' in a description prints as is."""
    from mamma_mia_agents.cli.commands import build_parser

    parser = build_parser()
    texts = [parser.format_help()]
    texts += [
        sub.format_help()
        for action in parser._subparsers._group_actions  # noqa: SLF001
        for sub in action.choices.values()
    ]
    from experiments.docs import generate as docs

    for main in (cli.main, docs.main):
        with pytest.raises(SystemExit):
            main(["--help"])
        texts.append(capsys.readouterr().out)
    for text in texts:
        assert "%%" not in text
        assert "usage:" in text


def test_agents_doc_quotes_the_bot_speed_and_openspiel_files():
    agents = (ROOT / "docs" / "AGENTS.md").read_text()
    # (bot_speed.json is shown by the generated `bot_speed` block: test_docs_blocks_...)
    os_ = json.loads(
        (
            ROOT / "experiments" / "results" / "openspiel_ismcts" / "openspiel_ismcts.json"
        ).read_text()
    )
    lo, hi = os_["wilson95"]
    args = os_["args"]
    text = " ".join(agents.split())
    for q in (
        f"won {os_['ismcts_wins']:g} of {os_['games']} two-player games",
        f"({100 * os_['ismcts_win_rate']:.1f}%, Wilson {100 * lo:.1f}-{100 * hi:.1f}%)",
        f"{os_['ms_per_decision_median']:.0f} ms per decision",
        f"{args['simulations']} simulations",
        f"--deals {args['deals']} --simulations {args['simulations']}",
    ):
        assert q in text, f"AGENTS.md should quote {q!r} (openspiel_ismcts.json)"


def test_performance_doc_quotes_the_benchmark_file():
    perf = (ROOT / "docs" / "PERFORMANCE.md").read_text()
    results = ROOT / "experiments" / "results"
    import csv

    with open(results / "benchmark" / "benchmark.csv") as fh:
        rows = list(csv.DictReader(fh))
    table = [x for x in perf.splitlines() if x.startswith("| mamma_mia") or "_v3 `" in x]
    assert len(table) == len(rows), "PERFORMANCE.md: one table row per benchmark.csv row"
    for line, r in zip(table, rows, strict=True):
        cells = [c.strip().strip("*") for c in line.split("|")[1:-1]]
        assert cells[1] == f"{int(r['batch']):,}", line
        for cell, key in zip(
            cells[2:],
            ("turns_per_s", "sampling_turns_per_s", "with_sampling_turns_per_s"),
            strict=True,
        ):
            want = f"{round(float(r[key])):,}" if r[key] else ""
            assert cell == want, f"PERFORMANCE.md {line!r}: {cell!r} vs {key} {want!r}"
    speed = {(r["env"], int(r["batch"])): float(r["turns_per_s"]) for r in rows}
    vec = speed[("mamma_mia vector env (4 players)", 4096)]
    text = " ".join(perf.split())
    assert f"**{vec / 1e6:.2f} million turns/s at B = 4,096**" in text
    for kind, shown in (("env()", "`env()` runs **{:.2f}×**"), ("raw_env", "`raw_env` {:.2f}×")):
        ratio = (
            speed[(f"mamma_mia {kind} (AEC, 4 players)", 1)]
            / speed[(f"connect_four_v3 {kind} (AEC)", 1)]
        )
        assert shown.format(ratio) in text, shown.format(ratio)


def _fmt_int(x: float) -> str:
    return f"{round(x):,}"


def _fuzz_rows() -> list[list[str]]:
    """TESTING.md's long-run table: entry points of the fuzz report, grouped as printed."""
    ro, rs, st = "reset(options state) ", "reset(seed, options) ", "step(actions) "
    eng = ("observe", "legal_masks", "global_state")
    return [
        ["GameState.from_json"],
        *([ro + f"[{k}]"] for k in ("learner", "aec_raw", "aec_env", "gym")),
        ["build_position"],
        [rs + "[engine]"],
        [rs + f"[{k}]" for k in ("aec_raw", "aec_env")],
        [rs + f"[{k}]" for k in ("vector", "gym", "sb3")],
        [st + f"[{k}]" for k in ("aec_raw", "aec_env")],
        [st + f"[{k}]" for k in ("gym", "sb3")],
        [st + f"[{k}]" for k in ("vector", "vector_nocopy")],
        [st + "[engine]"],
        [f"Engine.{k}(out=, seats=, state)" for k in eng],
        ["Engine.step(active=)"],
        [f"config values [{k}]" for k in ("Config", "Engine", "aec_raw", "aec_env", "vector")]
        + [f"config values [{k}]" for k in ("gym", "sb3")],
        ["PPOAgent(policy file)"],
        ["mamma-mia CLI"],
    ]


def test_testing_doc_quotes_the_fuzz_long_runs():
    import re

    testing = (ROOT / "docs" / "TESTING.md").read_text()
    text = " ".join(testing.split())
    results = ROOT / "experiments" / "results"
    runs = [json.loads((results / "fuzz_long_run" / f"{i}.json").read_text()) for i in (1, 2)]
    for i, run in enumerate(runs, 1):
        when = ": the first merge of the env-core fixes" if i == 1 else ", after the second merge"
        want = (
            f"**Run {i}** (commit `{run['git_commit'][:7]}`{when}): "
            f"{round(run['total_cases']):,} cases, {round(run['total_seconds']):,} s of case time"
        )
        assert want in text, f"TESTING.md should say {want!r}"
    groups = _fuzz_rows()
    r1, r2 = (run["entry_points"] for run in runs)
    for eps in (r1, r2):
        assert sorted(sum(groups, [])) == sorted(eps), "an entry point missing from the table"
    start = testing.index("| entry point | run 1 cases |")
    table = [x for x in testing[start:].splitlines()[2:] if x.startswith("|")][: len(groups)]
    assert len(table) == len(groups)
    for line, names in zip(table, groups, strict=True):
        _, c1, c2, secs = (c.strip() for c in line.strip("|").split("|"))

        def total(run: dict, key: str, names: list[str] = names) -> float:
            return sum(run[n][key] for n in names)

        def status(prefix: str, names: list[str] = names) -> int:
            return sum(
                v for n in names for k, v in r2[n]["statuses"].items() if k.startswith(prefix)
            )

        assert c1 == f"{total(r1, 'cases'):,}", f"{line}: run 1 cases"
        assert c2.split(" ")[0] == f"{total(r2, 'cases'):,}", f"{line}: run 2 cases"
        assert secs == f"{round(total(r2, 'seconds')):,}", f"{line}: run 2 case time"
        m = re.search(r"\((\d+) / (\d+)(?: / (\d+))?(?:; (\d+) shrinking)?", c2)
        assert m, line
        acc, ref, hole, err = (int(x) if x else 0 for x in m.groups())
        assert (acc, ref, hole, err) == (
            status("accepted"),
            status("refused"),
            status("known hole"),
            status("error"),
        ), f"{line}: run 2 outcomes"


def test_agents_doc_quotes_the_search_strength_files():
    """The prose under the (generated) search-strength table, against its files: the
    headline rows (default budget, 2,000 games each)."""
    text = " ".join((ROOT / "docs" / "AGENTS.md").read_text().split())
    results = ROOT / "experiments" / "results"
    rows = {}
    for name in ("search_strength/2p_headline.json", "search_strength/headline.json"):
        doc = json.loads((results / name).read_text())
        for r in sum(doc["curves"].values(), []):
            rows.setdefault((r["num_players"], r["opponent"], r["worlds"]), r)
    two, four = rows[2, "builder", 16], rows[4, "builder", 16]
    assert two["games"] >= 2000 and four["games"] >= 2000
    for r, who in ((two, "two-player games against `builder`"), (four, "four-player")):
        lo, hi = r["wilson95"]
        q = f"**{100 * r['win_rate']:.1f}%** of {r['games']:,} {who}"
        assert q in text, f"AGENTS.md should say {q!r}"
        assert f"{100 * lo:.1f}-{100 * hi:.1f}" in text


def test_ray_and_local_tournament_results_are_identical() -> None:
    """The committed Ray-backend tournament equals the local one but for how it was run."""
    res = ROOT / "experiments" / "results"
    local, ray = (
        json.loads((res / "backend_tournament" / f"{b}_4p.json").read_text())
        for b in ("local", "ray")
    )
    assert "--backend ray" in ray["command"] and "--backend local" in local["command"]
    assert comparison.strip(local) == comparison.strip(ray)
    assert local["results"] and local["games"] == ray["games"] >= 2000


def test_agents_doc_quotes_the_bot_speed_file():
    """The bot speed ratio and the load in AGENTS.md's prose, against bot_speed.json."""
    results = ROOT / "experiments" / "results"
    agents = " ".join((ROOT / "docs" / "AGENTS.md").read_text().split())
    speed = json.loads((results / "bot_speed" / "bot_speed.json").read_text())
    ratio = f"`builder` reaches {100 * speed['vector_env']['builder_over_random']:.0f}% of random"
    assert ratio in agents, f"AGENTS.md should quote {ratio!r} (bot_speed.json)"
    load = f"load average {speed['load_average_before'][0]:.1f}"
    assert load in agents, f"AGENTS.md should quote {load!r} (bot_speed.json)"


def test_a_made_file_is_checked_against_its_committed_copy():
    """``--check``'s reference of each made file: a training run's files prefixed by the
    run's name in its folder, any other experiment's file by its name; for every experiment
    the committed files ``--list`` names (which the test above finds committed)."""
    by_name = {e.name: e for e in registry.EXPERIMENTS}
    res = entries.RESULTS
    tuning = by_name["champion_2p_train"]
    assert tuning.reference("tuning.json", res) == res / "champion" / "champion_2p_tuning.json"
    assert "champion/champion_2p_tuning.json" in tuning.results("full")
    speed = by_name["speed"]
    assert speed.reference("speed.json", res) == res / "leaderboard" / "speed.json"
    for exp in registry.EXPERIMENTS:  # --check compares with the files --list names
        made = exp.deterministic("full") + exp.timing("full") + exp.other("full")
        if exp.args("full") is not None:
            listed = {res / f for f in exp.results("full")}
            assert {exp.reference(f, res) for f in made} == listed, exp.name


def test_a_timing_file_without_ratios_is_a_problem_not_a_crash(tmp_path):
    """A timing file is compared by its experiment's ``ratios``: one without them is
    said, never skipped in silence nor called (``None`` is not a function)."""
    exp = entries.Experiment("bare", "-m x", "bare", args=lambda mode: [],
                             timing=lambda mode: ["t.json"])  # fmt: skip
    new, ref = tmp_path / "new.json", tmp_path / "ref.json"
    for f in (new, ref):
        f.write_text("{}")
    problems = comparison.compare_timing(exp, "t.json", new, ref)
    assert problems == ["t.json: a timing file of bare, which has no ratios to compare it by"]
    for e in registry.EXPERIMENTS:  # and no registered experiment has one
        assert e.ratios is not None or not (e.timing("full") or e.timing("quick")), e.name
