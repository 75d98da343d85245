"""Simulation, exact score distributions, strategy tables, the agent harness and review.

Proves: simulated means of the optimal policy agree with the solved values within their
confidence intervals, and the exact distribution of the optimal score has the solved mean
and matches the simulated one; simulation is reproducible and uses common random numbers;
an agent that plays the advisor's best choice has zero regret and the optimal policy's
scores on the same dice; the harness's per-decision regrets agree with an independent
judge (``review``, built on the advisor); the subprocess protocol survives bots that crash,
send garbage, hang or play illegal moves; the tables have the documented shape.
"""

from __future__ import annotations

import io
import json
import sys
import textwrap

import numpy as np
import pytest

import dicewise
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from dicewise.cli.main import cli
from dicewise.play.agents import CallableAgent, ProcessAgent
from dicewise.play.bench import bench_agent
from dicewise.play.review import review_lines
from dicewise.solver.protocol import OPENING_COLUMNS
from dicewise.solver.rulesets.simulate import simulate_games
from dicewise.solver.rulesets import category_game
from dicewise.solver.rulesets.strategy import (category_table, exact_distribution, opening_table,
                                              scratch_boxes)
from dicewise.solver.stats import ScoreSummary

pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process


def run(*args):
    return CliRunner().invoke(cli, list(args), prog_name="dicewise")


@pytest.mark.slow  # a big simulation (28,000 games): CI's second step runs it
@pytest.mark.parametrize("name, games", [("general", 20000), ("poker-programs", 8000)])
def test_optimal_simulation_agrees_with_solved_value(solved, name, games):
    game, values = solved(name)
    summary = ScoreSummary.of(simulate_games(game, values.values, "optimal", games, seed=11).scores)
    se = summary.std / np.sqrt(games)
    assert abs(summary.mean - values.expected_score) < 4 * se
    lo, hi = summary.ci95
    assert lo < summary.mean < hi and hi - lo == pytest.approx(2 * 1.959963984540054 * se)


def test_policies_rank_and_are_reproducible(solved):
    game, values = solved("general")
    opt = simulate_games(game, values.values, "optimal", 3000, seed=5).scores
    again = simulate_games(game, values.values, "optimal", 3000, seed=5).scores
    greedy = simulate_games(game, values.values, "greedy", 3000, seed=5).scores
    rand = simulate_games(game, values.values, "random", 3000, seed=5).scores
    assert np.array_equal(opt, again)
    assert opt.mean() > greedy.mean() > rand.mean()


@pytest.mark.slow  # 40,000 games
def test_big_general_rate_is_policy_free(solved):
    # RULES.md §1: every turn opens with five fresh dice, so P(big general) = 1-(1-6/7776)^10.
    game, values = solved("general")
    rec = simulate_games(game, values.values, "random", 40000, seed=2)
    p = game.big_general_probability()
    assert p == pytest.approx(1 - (1 - 6 / 7776) ** 10)
    assert abs(rec.ended_early.mean() - p) < 4 * np.sqrt(p * (1 - p) / 40000)


@pytest.mark.parametrize("name", ["general", pytest.param("poker-programs", marks=pytest.mark.slow)])
def test_exact_distribution(solved, name):
    game, values = solved(name)
    dist = exact_distribution(game, values.values)
    assert dist.probability.sum() == pytest.approx(1, abs=1e-12)
    assert dist.mean == pytest.approx(values.expected_score, abs=1e-9)
    rec = simulate_games(game, values.values, "optimal", 10000, seed=9)
    grid = np.linspace(dist.scores[0], dist.scores[-1], 60)
    exact_cdf = np.array([dist.probability[dist.scores <= x].sum() for x in grid])
    sim_cdf = np.array([(rec.scores <= x).mean() for x in grid])
    assert np.abs(exact_cdf - sim_cdf).max() < 1.63 / np.sqrt(10000) * 1.5  # KS, alpha 1%


def test_an_exact_distribution_is_pushed_forward_once_per_table(solved):
    """simulate run again on one table (loaded again, so a new array) reuses its exact
    distribution; another ruleset's table gets its own, and no caller can change the one kept."""
    game, values = solved("general")
    first = exact_distribution(game, values.values)
    assert exact_distribution(game, values.values.copy()) is first
    with pytest.raises(ValueError):
        first.probability[0] = 1.0
    plain, plain_values = solved("general", big_general="sixty")
    other = exact_distribution(plain, plain_values.values)
    assert other is not first
    assert other.mean == pytest.approx(plain_values.expected_score, abs=1e-9)
    assert other.mean != pytest.approx(first.mean)


def _best_action(game, values):
    from dicewise.solver.advice import advise_position
    from dicewise.solver.sheet import parse_sheet

    def agent(obs):
        spec = ",".join(f"{k}={v}" for k, v in obs["sheet"].items())
        return advise_position(game, values, parse_sheet(game, spec), obs["dice"], obs["roll"]).best.action

    return agent


@pytest.mark.slow
def test_optimal_agent_has_no_regret_and_the_optimal_scores(solved, solution):
    game, values = solved("general")
    report = bench_agent(solution("general"), CallableAgent(_best_action(game, values), "best"),
                         25, seed=4)
    data = report.to_json()
    assert data["regret_total"] < 1e-9 and data["errors"] == []
    # Same dice, same decisions — except where two choices tie exactly and are broken apart.
    assert (report.scores == report.optimal_scores).mean() >= 0.8


def test_a_run_stopped_early_is_set_against_the_optimum_on_the_games_it_played(solution):
    """The optimal policy plays only the games the agent finished (a bot that stops the run
    at once is reported at once, however many games were asked for), on the same dice."""
    def first_box_then_nonsense(obs):
        return {"write": "nonsense"} if obs["game"] == 3 else \
            [a for a in obs["legal"] if "write" in a][0]

    sol = solution("general")
    data = bench_agent(sol, CallableAgent(first_box_then_nonsense, "fails"), 10**6, seed=2,
                       on_error="stop").to_json()
    assert data["games"] == 3 and data["stopped"]
    assert data["optimal_mean"] == pytest.approx(dicewise.simulate("general", games=3,
                                                                   seed=2).summary.mean)


def test_a_stopped_games_regret_is_not_set_against_the_finished_games(solution):
    """The run stops in game 3: its judged decisions are in regret_total, but the regret a
    game is that of the three finished games over three, as a run of those three games."""
    def first_box(obs):
        return [a for a in obs["legal"] if "write" in a][0]

    def fails_late_in_game_3(obs):
        return {"write": "nonsense"} if (obs["game"], obs["turn"]) == (3, 6) else first_box(obs)

    sol = solution("general")
    stopped = bench_agent(sol, CallableAgent(fails_late_in_game_3, "fails"), 10, seed=2,
                          on_error="stop").to_json()
    three = bench_agent(sol, CallableAgent(first_box, "first"), 3, seed=2).to_json()
    assert stopped["games"] == 3 and stopped["regret_total"] > three["regret_total"]
    assert stopped["regret_per_game"] == pytest.approx(three["regret_total"] / 3)
    assert stopped["regret_per_game_error"] is None  # exact values


def test_an_approximate_games_regret_carries_its_decisions_loss_errors(tmp_path):
    """Ryzykant (a table of the zero value model, built at once): the regret a game comes
    with its decisions' loss_error added up, a game, which review of the same log finds."""
    from dicewise.solver.ryzykant.approx import ValueModel
    from dicewise.solver.ryzykant.game import Fitted
    from dicewise.tables import store

    game, rules = dicewise.api.make_rules("ryzykant")
    table = store.save(game, rules, Fitted(ValueModel.zero()),
                       {"expected_score": 0.0, "approximate": True, "error_estimate": 7.5},
                       tmp_path / "ryzykant.dwt")
    log = tmp_path / "log.jsonl"
    report = dicewise.bench_agent("ryzykant", lambda obs: obs["legal"][-1], games=1, seed=4,
                                  table=table, log=log).to_json()
    judged = dicewise.review("ryzykant", log.read_text().splitlines(), table=table)
    summed = sum(d.loss_error for d in judged.decisions)
    assert report["approximate"] and report["regret_per_game_error"] == pytest.approx(summed)
    assert report["regret_per_game_error"] > 0
    # each game's summary names its worst decision with that decision's error, as the list does
    worst = max(judged.decisions, key=lambda d: d.loss)
    assert judged.games[0]["worst"]["loss_error"] == worst.loss_error > 0
    with pytest.MonkeyPatch.context() as mp:  # the command prints what the API judged
        mp.setattr(dicewise.api, "review", lambda *args, **kwargs: judged)
        result = run("review", "ryzykant", str(log))
    assert result.exit_code == 0, result.stderr
    said = " ".join(result.stdout.split("\n\n")[0].split())  # the summary, unwrapped
    assert f"(lost {worst.loss:.3f} ±{worst.loss_error:.2f}" in said, said


def test_an_agent_that_changes_its_observation_changes_no_log(solution, tmp_path):
    """A Python agent gets a copy: writing into it changes neither the log (review reads it
    back) nor the costliest decisions' positions."""
    def scribbles(obs):
        action = [a for a in obs["legal"] if "write" in a][0]
        obs["sheet"]["ones"], obs["dice"][0], obs["points"] = 5, 9, 999.0
        return action

    log = tmp_path / "log.jsonl"
    with open(log, "w") as f:
        report = bench_agent(solution("general"), CallableAgent(scribbles, "scribbles"), 2, 1,
                             log=f).to_json()
    judged = review_lines(solution("general"), log.read_text().splitlines())
    assert len(judged) == report["decisions"] > 0
    assert all(9 not in c["dice"] and c["points"] != 999.0 for c in report["costliest"])


def test_a_best_agent_has_no_costliest_decisions_and_a_race_interval_within_0_and_1(solved,
                                                                                    solution):
    """Only decisions that lost something are the costliest; the outcome of a race (1, ½ or
    0 a game) has a share's interval, never beyond 0 or 1."""
    game, values = solved("general")
    best = bench_agent(solution("general"), CallableAgent(_best_action(game, values), "best"),
                       1, seed=1).to_json()
    assert best["regret_total"] < 1e-9 and best["costliest"] == []
    from dicewise.play.bench import AgentReport

    race = AgentReport("general", {}, "bot", 0, np.array([1.0, 1.0, 0.5, 1.0, 1.0, 0.0]),
                       np.zeros(6), 6, {}, (), (), None, False, None, "win").to_json()
    low, high = race["ci95"]
    assert 0 <= low < race["mean"] < high <= 1


def test_a_long_review_shows_its_progress_and_a_quick_refusal_is_one_line(tmp_path,
                                                                        monkeypatch):
    """Judging a long log shows its progress once it takes over a second (here at once), on
    stderr, without changing what is judged; a log refused at once stays one line."""
    import dicewise.play.review as review_module

    log = tmp_path / "log.jsonl"
    dicewise.bench_agent("general", lambda o: o["legal"][0], games=2, log=log)

    def run(*args):
        return CliRunner().invoke(cli, ["review", "general", *args, "--json"])

    quiet = run(str(log))
    assert quiet.exit_code == 0 and quiet.stderr == ""
    monkeypatch.setattr(review_module, "SHOW_PROGRESS_AFTER", -1.0)
    shown = run(str(log))
    assert shown.exit_code == 0 and shown.stdout == quiet.stdout
    assert shown.stderr == "judging the decisions ...\n"
    # a game the log does not hold: refused in one line before any judging (it was judged
    # whole first, its progress shown, then refused)
    absent = run(str(log), "--game", "99")
    assert absent.exit_code == 2 and absent.stderr == \
        "dicewise: error: the log has no game 99 (games: 0-1)\n", absent.stderr
    monkeypatch.setattr(review_module, "SHOW_PROGRESS_AFTER", 60.0)
    log.write_text("not json\n" + log.read_text())
    refused = run(str(log))
    assert refused.exit_code == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr


@pytest.mark.slow
def test_regret_matches_an_independent_judge(solved, solution, tmp_path):
    """A bot that writes its first legal box at once: the harness's regret, decision by
    decision, must equal the advisor's loss for the same decisions (via ``review``)."""
    game, values = solved("general")

    def first_box(obs):
        return [a for a in obs["legal"] if "write" in a][0]

    log = tmp_path / "log.jsonl"
    with open(log, "w") as f:
        report = bench_agent(solution("general"), CallableAgent(first_box, "first"), 20, 3, log=f)
    judged = review_lines(solution("general"), log.read_text().splitlines())
    data = report.to_json()
    assert len(judged) == data["decisions"]
    assert sum(r.loss for r in judged) == pytest.approx(data["regret_total"], rel=1e-9)
    # The expected score of a policy is the optimum less its expected regret.
    big = bench_agent(solution("general"), CallableAgent(first_box, "first"), 400, 8).to_json()
    se = (big["ci95"][1] - big["ci95"][0]) / (2 * 1.96)
    assert abs(big["mean"] + big["regret_per_game"] - values.expected_score) < 4 * se + 1.0


def _bot(tmp_path, name, body):
    """The command that runs a bot written in Python, isolated and without the site packages
    it never uses (``-I -S``): a bot that fails is started again at every decision, and the
    site's imports made each start three times as long."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return f"{sys.executable} -I -S {path}"


GOOD = """
import json, sys
for line in sys.stdin:
    obs = json.loads(line)
    print(json.dumps([a for a in obs["legal"] if "write" in a][0]), flush=True)
"""


@pytest.mark.parametrize("kind, body, expect", [
    ("crash", """
        import json, sys
        for i, line in enumerate(sys.stdin):
            if i == 2:
                sys.exit(3)
            obs = json.loads(line)
            print(json.dumps([a for a in obs["legal"] if "write" in a][0]), flush=True)
        """, "crash"),
    ("garbage", """
        import sys
        for line in sys.stdin:
            print("hello there", flush=True)
        """, "malformed"),
    ("hang", """
        import sys, time
        for line in sys.stdin:
            time.sleep(60)
        """, "timeout"),
    ("illegal", """
        import json, sys
        for line in sys.stdin:
            print(json.dumps({"write": "no_such_box"}), flush=True)
        """, "not a legal action"),
])
def test_subprocess_failures_are_reported_and_survived(solution, tmp_path, kind, body, expect):
    # the hung bot never answers: a short timeout is as sure to run out as a long one
    agent = ProcessAgent(_bot(tmp_path, kind, body), timeout=0.1 if kind == "hang" else 0.5)
    try:
        report = bench_agent(solution("general"), agent, 1, seed=1, on_error="continue",
                             max_failures=1 if kind == "hang" else 10**6)
    finally:
        agent.close()
    data = report.to_json()
    assert data["errors"] and expect in data["errors"][0]["error"]
    if kind == "hang":  # a hung bot is reported and the run stops, not waited on at every turn
        assert len(data["errors"]) == 1 and "the agent failed once (last:" in data["stopped"]
    else:
        assert data["games"] == 1 and data["stopped"] is None  # the run went on to the end
    first = data["errors"][0]
    assert {"game", "turn", "roll", "dice", "error", "sent"} <= set(first)
    if kind == "garbage":
        assert first["sent"] == "hello there"
    if kind in ("garbage", "illegal"):  # dicewise played every decision: none is the agent's
        assert data["decisions"] == 0 and data["costliest"] == [] and data["regret_total"] == 0


def test_a_bot_that_writes_without_end_of_line_is_stopped_at_once(solution):
    """Endless output with no end of line is a malformed answer as soon as it is longer than
    any answer, not read into memory until the timeout."""
    agent = ProcessAgent("cat /dev/zero", timeout=60)
    try:
        data = bench_agent(solution("general"), agent, 1, seed=1, on_error="stop").to_json()
    finally:
        agent.close()
    assert data["error_kinds"] == {"malformed": 1} and "a line over 1 MiB" in data["stopped"]


def test_a_crashed_bot_is_reported_with_the_end_of_its_stderr(solution, tmp_path):
    """What a bot writes on stderr is kept out of the report (much of it, unread, would block
    it), but a crash says its last line: why it died, not only its exit status."""
    agent = ProcessAgent(_bot(tmp_path, "traceback", """
        import json, sys
        for i, line in enumerate(sys.stdin):
            obs = json.loads(line)
            sys.stderr.write(("thinking " * 100 + "\\n") * 100)  # 90 kB a decision
            if i == 3:
                raise ValueError("no box for these dice")
            print(json.dumps([a for a in obs["legal"] if "write" in a][0]), flush=True)
        """), timeout=5)
    try:
        data = bench_agent(solution("general"), agent, 1, seed=1, on_error="stop").to_json()
    finally:
        agent.close()
    assert data["decisions"] == 3 and data["error_kinds"] == {"crash": 1}
    assert data["errors"][0]["error"] == ("crash: exited with status 1 (its stderr ended: "
                                          "ValueError: no box for these dice)")


@pytest.mark.parametrize("kinds, writes", [
    ({"malformed"}, 'print("thinking about turn", obs["turn"]); print(answer)'),  # a debug line
    # or a line of JSON, written at once with the answer (an answer written after the next
    # observation went cannot be told from an answer to it): judged, and the line after it
    # said as a second line for one observation
    ({"illegal", "malformed"},
     'sys.stdout.write(json.dumps({"debug": obs["turn"]}) + "\\n" + answer + "\\n")'),
    # an answer and a line after it, there before the next observation (print debugging):
    # never a silent drop
    ({"malformed"}, 'sys.stdout.write(answer + "\\n" + json.dumps({"write": "ones"}) + "\\n")'),
])
def test_a_bot_that_writes_more_than_its_answer_is_not_judged_on_stale_lines(solution, tmp_path,
                                                                           kinds, writes):
    """A line on stdout before each answer is the bot's failed answer; the answer after it,
    written before the next observation was sent, is no answer to that one: it is not
    judged against a position it was never meant for: a program that wrote what is not JSON,
    or a line still there when the next observation is due, is said to have failed and
    started afresh."""
    agent = ProcessAgent(_bot(tmp_path, "chatty", f"""
        import json, sys
        for line in sys.stdin:
            obs = json.loads(line)
            answer = json.dumps([a for a in obs["legal"] if "write" in a][0])
            {writes}
            sys.stdout.flush()
        """), timeout=5)
    log = io.StringIO()
    try:
        data = bench_agent(solution("general"), agent, 1, seed=1, max_failures=10**6,
                           log=log).to_json()
    finally:
        agent.close()
    assert data["games"] == 1 and set(data["error_kinds"]) == kinds
    assert data["restarts"] == data["error_kinds"]["malformed"]
    judged = [line for line in map(json.loads, log.getvalue().splitlines())
              if "substituted" not in line]
    assert len(judged) == data["decisions"] == (0 if "illegal" in kinds else len(judged))
    for line in judged:  # each the answer to its own observation, never a line meant for another
        assert line["action"] == [a for a in line["observation"]["legal"] if "write" in a][0]


def test_subprocess_good_bot_and_stop_on_error(solved, tmp_path):
    game, values = solved("general")
    good = run("bench-agent", "general", "--agent-cmd", _bot(tmp_path, "good", GOOD),
               "--games", "3", "--json")
    assert good.exit_code == 0, good.stderr
    data = json.loads(good.stdout)
    assert {"mean", "optimal_mean", "regret_per_game", "regret_per_decision", "decisions",
            "errors"} <= set(data) and data["errors"] == [] and data["games"] == 3
    bad = run("bench-agent", "general", "--agent-cmd",
              _bot(tmp_path, "bad", 'import sys\nfor l in sys.stdin: print("{}", flush=True)\n'),
              "--games", "3", "--on-error", "stop")
    assert bad.exit_code == 2 and "Traceback" not in bad.stderr
    errors = [line for line in bad.stderr.splitlines() if line.startswith("dicewise: error:")]
    assert len(errors) == 1 and "first error" in errors[0]


def test_python_agent_from_module(tmp_path, monkeypatch):
    (tmp_path / "mybots.py").write_text(  # it talks as it plays: not into the report
        "def first(obs):\n    print('thinking')\n"
        "    return [a for a in obs['legal'] if 'write' in a][0]\n")
    monkeypatch.chdir(tmp_path)
    result = run("bench-agent", "general", "--agent", "mybots:first", "--games", "2", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["decisions"] == 20
    assert result.stderr.count("thinking") == 20
    missing = run("bench-agent", "general", "--agent", "mybots:nothing", "--games", "2")
    assert missing.exit_code == 2 and "cannot load agent" in missing.stderr


def test_a_python_agent_may_answer_in_numpy_numbers_and_tuples(solution):
    """An in-process agent's action is read as a program's would be, from its JSON: faces
    as numpy integers (as argmax gives them) or a tuple are the legal action they write,
    not refused with a message that shows the list it took for something else."""
    def agent(obs):
        if obs["roll"] < 3:
            return {"keep": tuple(np.asarray(obs["dice"][:2], dtype=np.int64))}
        return {"write": np.str_([a for a in obs["legal"] if "write" in a][0]["write"])}

    data = bench_agent(solution("general"), CallableAgent(agent, "numpy"), 1, seed=1,
                       on_error="stop").to_json()
    assert data["errors"] == [] and data["games"] == 1 and data["decisions"] >= 10


@pytest.mark.parametrize("args", [
    ["--agent-cmd", "python3 'unclosed"],  # shlex cannot split it
    ["--agent-cmd", "   "],  # no program at all
    ["--agent-cmd", "cat", "--timeout", "nan"],  # a FloatRange lets NaN through
])
def test_unusable_agent_commands_are_one_line(args):
    result = run("bench-agent", "general", *args, "--games", "2")
    assert result.exit_code == 2 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dicewise: error: "), result.stderr


def test_a_python_agent_that_exits_is_an_agent_failure(tmp_path, monkeypatch):
    """sys.exit in an in-process agent is its crash, reported like any exception, not the
    end of the run with the agent's exit status and no word."""
    (tmp_path / "quitter.py").write_text("def leave(obs):\n    raise SystemExit(5)\n")
    monkeypatch.chdir(tmp_path)
    result = run("bench-agent", "general", "--agent", "quitter:leave", "--games", "2")
    assert result.exit_code == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("dicewise: error:")]
    assert len(errors) == 1 and "SystemExit: 5" in errors[0]


def test_a_huge_illegal_action_is_named_in_a_line_not_a_screen(tmp_path, monkeypatch):
    """An agent that keeps a thousand dice is refused in a line that shows the head of what
    it sent and the verdict, not the thousand dice."""
    (tmp_path / "hoarder.py").write_text("def keep_all(obs):\n    return {'keep': [1] * 1000}\n")
    monkeypatch.chdir(tmp_path)
    result = run("bench-agent", "general", "--agent", "hoarder:keep_all", "--games", "3")
    assert result.exit_code == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("dicewise: error:")]
    assert len(lines) == 1 and len(lines[0]) < 400, result.stderr
    assert '{"keep": [1, 1' in lines[0] and " ... " in lines[0], lines[0]
    assert lines[0].endswith("is not a legal action here)"), lines[0]


def test_review_command(solved, tmp_path):
    game, values = solved("general")
    log = tmp_path / "game.jsonl"
    result = run("bench-agent", "general", "--agent-cmd", _bot(tmp_path, "good", GOOD),
                 "--games", "1", "--log", str(log))
    assert result.exit_code == 0, result.stderr
    out = run("review", "general", str(log), "--json")
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(data["decisions"]) == 10 and data["total_loss"] > 0
    log.write_text("not json\n")
    assert run("review", "general", str(log)).exit_code == 2


def test_review_leaves_out_what_bench_agent_played_for_a_failed_agent(solved, tmp_path):
    """An agent that fails every other decision: the log marks the best action played in its
    place, and review judges only the agent's own decisions, as bench-agent did."""
    game, values = solved("general")
    log = tmp_path / "game.jsonl"
    half = _bot(tmp_path, "half", """
        import json, sys
        for i, line in enumerate(sys.stdin):
            obs = json.loads(line)
            legal = [a for a in obs["legal"] if "write" in a] or obs["legal"]
            print(json.dumps({"write": "no_such_box"} if i % 2 else legal[0]), flush=True)
        """)
    bench = run("bench-agent", "general", "--agent-cmd", half, "--games", "2", "--log",
                str(log), "--json")
    assert bench.exit_code == 0, bench.stderr
    report = json.loads(bench.stdout)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    marked = [i for i, r in enumerate(records, 1) if "substituted" in r]
    assert len(marked) == len(report["errors"]) > 5
    assert all(records[i - 1]["substituted"]["kind"] == "illegal" for i in marked)
    judged = json.loads(run("review", "general", str(log), "--json").stdout)
    assert judged["substituted_lines"] == marked
    assert len(judged["decisions"]) == report["decisions"] == len(records) - len(marked)
    assert judged["total_loss"] == pytest.approx(report["regret_total"], abs=1e-9)
    text = run("review", "general", str(log)).stdout
    assert f"not judged: {len(marked)} decisions that bench-agent played" in text
    one = json.loads(run("review", "general", str(log), "--game", "1", "--json").stdout)
    assert one["substituted_lines"] == [i for i in marked if records[i - 1]["observation"]
                                        ["game"] == 1]


def test_review_refuses_damaged_and_mismatched_logs(solved, tmp_path):
    game, values = solved("general")
    log = tmp_path / "game.jsonl"
    assert run("bench-agent", "general", "--agent-cmd", _bot(tmp_path, "good", GOOD),
               "--games", "1", "--log", str(log)).exit_code == 0
    record = json.loads(log.read_text().splitlines()[0])

    def refused(data: bytes, fragment: str):
        log.write_bytes(data)
        result = run("review", "general", str(log))
        assert result.exit_code == 2 and "Traceback" not in result.stderr, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0], result.stderr

    refused(b"\xff\xfe not text\n", "line 1 is not JSON")  # not UTF-8
    refused(b"[" * 100000 + b"]" * 100000 + b"\n", "line 1 is not JSON")  # too deep for json
    refused(json.dumps(record).encode()[:300], "line 1 is not JSON (cut short?)")
    refused(b"[1, 2]\n", "line 1: expected")  # JSON, but not a decision
    refused(b"\n\n", "the log holds no decision to judge")
    missing = run("review", "general", str(tmp_path / "none.jsonl"))
    assert missing.exit_code == 2 and missing.stderr.startswith("dicewise: error: cannot read ")
    no_dice = {**record, "observation": {**record["observation"], "dice": None}}
    refused(json.dumps(no_dice).encode(), "an observation has dice")
    # A game under other rules is not judged under the defaults without a word.
    plain = {**record, "observation": {**record["observation"],
                                       "options": {"straight": "plain", "big_general": "ends"}}}
    refused(json.dumps(plain).encode(), "options")
    assert run("review", "general", str(log), "-o", "straight=plain").exit_code == 0
    # A log that leaves an option out (an older one) is judged under the review's rules.
    older = {**record, "observation": {**record["observation"], "options": {"straight": "plain"}}}
    log.write_text(json.dumps(older) + "\n")
    assert run("review", "general", str(log), "-o", "straight=plain").exit_code == 0
    refused(json.dumps(older).encode(), "options")
    for damaged in (None, [], "straight=plain"):  # no --option could match: not suggested
        bad = {**record, "observation": {**record["observation"], "options": damaged}}
        refused(json.dumps(bad).encode(),
                f"line 1: options is {json.dumps(damaged)}, not an object of the game's")
    # A decision of the two-player race, played to win, is not judged by the points alone.
    race = {**record, "observation": {**record["observation"], "players": 2,
                                      "opponent_sheet": {"ones": 3}}}
    refused(json.dumps(race).encode(), "line 1: a decision of a game of 2 players")
    # Two runs' logs in one file: not judged as one game (its turns twice over), nor the
    # expected-score decisions by the chance of the other run's target.
    assert run("bench-agent", "general", "--agent-cmd", _bot(tmp_path, "good", GOOD),
               "--games", "1", "--log", str(log)).exit_code == 0
    one_run = log.read_bytes()
    assert run("review", "general", str(log)).exit_code == 0
    refused(one_run + one_run, "line 11: game 0 goes back from turn 10, roll ")
    refused(one_run + one_run, ", roll 1: a log is one bench-agent run")
    # nor a line pasted twice as two decisions (its loss counted twice)
    line = one_run.splitlines(keepends=True)[0]
    refused(line + line, "line 2: game 0 decides turn 1, roll 1 twice: a log is one")
    first = json.loads(one_run.splitlines()[0])
    aimed = {**first, "observation": {**first["observation"], "target": 150, "game": 1}}
    refused(one_run + json.dumps(aimed).encode() + b"\n", "mixes decisions played for a target")
    for target, said in ((-5, "a target is a whole number of points, at least 0, not -5"),
                         (150.5, "a target is a whole number"), ("150", "a target is a whole"),
                         (True, "a target is a whole"), (10**30, "a target is at most")):
        odd = {**first, "observation": {**first["observation"], "target": target}}
        refused(json.dumps(odd).encode(), f"line 1: {said}")  # none bench-agent could write


def test_a_log_of_other_rules_is_refused_before_any_table_is_built(empty_cache, tmp_path):
    """Reviewing a log of the one-column game without its options refuses at once: building
    the full game's table first (minutes) would only end in the same refusal."""
    log = tmp_path / "one-column.jsonl"
    options = {"columns": 1, "school_cross_erases": False}
    log.write_text(json.dumps({"observation": {"ruleset": "poker-school", "options": options,
                                               "roll": 1, "dice": [1, 2, 3, 4, 5]},
                               "action": {"keep": [1]}}) + "\n")
    result = run("review", "poker-school", str(log))
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "line 1: a game with options" in result.stderr
    assert list(empty_cache.iterdir()) == []  # nothing solved, nothing cached


def test_simulate_command_json(solved):
    result = run("simulate", "general", "--games", "2000", "--seed", "7", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"ruleset", "rule_options", "policy", "seed", "games", "mean", "std",
                         "ci95", "min", "max", "percentiles", "histogram", "games_per_second",
                         "approximate", "expected_score", "error_estimate",
                         "ended_on_first_roll_rate", "exact"}  # docs/json.md
    assert set(data["exact"]) == {"mean", "std", "percentiles", "min", "max"}
    assert set(data["percentiles"]) == set(data["exact"]["percentiles"]) == {"5", "25", "50",
                                                                            "75", "95"}
    assert sum(count for low, high, count in data["histogram"]) == 2000
    assert data["exact"]["mean"] == pytest.approx(data["expected_score"])
    assert data["approximate"] is False
    assert run("simulate", "general", "--policy", "clever").exit_code == 2


def test_scratch_rate_counts_only_scratches(solved):
    # RULES.md §2: an obligatory figure of poker-programs scores (c − 3) × f, 0 for exactly
    # three dice of the face (the figure made), so its 0 is no scratch; a free figure scores
    # 0 only where its dice do not qualify.  §1 and the reference rulesets: every box's 0 is
    # one (no box of theirs scores below 0).
    for name in ("general", "yahtzee", "yatzy"):
        assert scratch_boxes(category_game(name)).all()
    for name in ("poker-programs", "general"):
        game, values = solved(name)
        scores = simulate_games(game, values.values, "optimal", 2000, seed=1).box_scores
        _, rows = category_table(game, values, 2000, 1)
        for c, row in enumerate(rows):
            zeros = (scores[~np.isnan(scores[:, c]), c] == 0).mean()
            if name == "poker-programs" and c < 6:
                assert not scratch_boxes(game)[c] and row[3] == 0.0
                assert zeros > 0.1  # figures made, which the column once counted as scratches
            else:
                assert scratch_boxes(game)[c] and row[3] == pytest.approx(zeros)


def test_a_box_no_game_wrote_has_no_mean_and_no_shares(solved):
    """General's game of seed 93 ends on a five of a kind before twos is written: its row
    says it was never filled, and leaves its mean, scratch rate and roll shares undefined
    (None, a blank cell), not 0/0 shown as 0."""
    game, values = solved("general")
    header, rows = category_table(game, values, 1, 93)
    never = [row for row in rows if row[1] == 0.0]
    assert never and all(row[2:7] == [None] * 5 and row[7] == 1 for row in never)
    for row in rows:
        if row[1] == 1.0:  # written once: one roll's share is 1, the others 0
            assert sorted(row[4:7]) == [0.0, 0.0, 1.0] and row[3] in (0.0, 1.0)


def test_strategy_tables(solved, tmp_path):
    game, values = solved("general")
    header, rows = opening_table(game, values)
    assert len(rows) == 2 * 252 and tuple(header) == OPENING_COLUMNS  # as every game's
    _, cats = category_table(game, values, 2000, 1)
    assert [r[0] for r in cats] == list(game.category_names)
    assert all(0 <= r[3] <= 1 for r in cats)
    out = tmp_path / "opening.csv"
    result = run("table", "general", "--what", "opening", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "roll,dice,best,expected,runner_up,runner_up_expected,margin" and \
        len(lines) == 505
    states = run("table", "general", "--what", "states", "--format", "json")
    assert len(json.loads(states.stdout)) == values.n_reachable
    assert run("table", "general", "--what", "states", "--json").stdout == states.stdout
    written = run("table", "general", "--what", "opening", "--out", str(out), "--json")
    assert json.loads(written.stdout) == {"out": str(out), "ruleset": "general",
                                          "what": "opening", "format": "json", "rows": 504}
    assert len(json.loads(out.read_text())) == 504
    clash = run("table", "general", "--json", "--format", "csv")
    assert clash.exit_code == 2 and "--json is --format json" in clash.stderr
    # a CSV written to a file, and what was written said in JSON
    written = run("table", "general", "--what", "opening", "--format", "csv", "--out", str(out),
                  "--json")
    assert json.loads(written.stdout)["format"] == "csv" and len(out.read_text().splitlines()) == 505


def test_a_hung_agent_stops_the_run_after_a_few_failures(tmp_path):
    """``sleep`` never answers: after --max-failures timeouts in a row the run is reported
    and stops, one line and exit 2, in seconds rather than a timeout per decision."""
    import time

    start = time.monotonic()
    result = run("bench-agent", "general", "--agent-cmd", "sleep 1000", "--games", "3",
                 "--timeout", "0.1")
    assert time.monotonic() - start < 20
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("dicewise: error:")]
    assert len(errors) == 1 and "failed 3 times in a row" in errors[0] and "timeout" in errors[0]
    # no game finished: the report says so and lists the errors, with no mean of nothing
    assert "no game finished" in result.stdout and "nan" not in result.stdout
    assert "lost 0.000" not in result.stdout  # the moves dicewise made in the agent's place


@pytest.mark.parametrize("ruleset,options", [("general", []),
                                             pytest.param("poker-programs", [],
                                                          marks=pytest.mark.slow),
                                             ("poker-school", ["-o", "columns=1", "-o",
                                                               "school_cross_erases=false"])])
def test_the_readme_bot_plays_without_an_error(ruleset, options, tmp_path):
    """The complete bot the README shows runs as written, in the games it is offered for
    (poker-school too, where a roll that fits no row leaves only crosses)."""
    import re
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(# my_bot\.py.*?)```", readme, re.S).group(1)
    bot = tmp_path / "my_bot.py"
    bot.write_text(code)
    # two games: each game of poker-school meets several rolls that fit no row
    result = run("bench-agent", ruleset, *options, "--agent-cmd", f"{sys.executable} {bot}",
                 "--games", "2", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["errors"] == [] and data["games"] == 2


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), games=st.integers(1, 300), turns=st.integers(1, 15),
       chunk=st.integers(1, 320))
def test_the_dice_made_a_chunk_at_a_time_are_the_dice_of_one_draw(seed, games, turns, chunk):
    """A long simulation draws its dice chunk by chunk, in bounded memory, and every game
    still gets the dice that one draw of the whole stream gives it (so seeded figures
    stand whatever the number of games)."""
    from dicewise.solver.rulesets.simulate import dice_chunks, dice_stream

    parts = list(dice_chunks(seed, games, turns, chunk))
    assert [len(p) for p in parts[:-1]] == [chunk] * (len(parts) - 1)
    assert np.array_equal(np.concatenate(parts), dice_stream(seed, games, turns))
    first = 1 + seed % 7  # a first chunk of its own size (a game's own dice, as game_dice does)
    parts = list(dice_chunks(seed, games, turns, chunk, first))
    assert len(parts[0]) == min(first, games)
    assert np.array_equal(np.concatenate(parts), dice_stream(seed, games, turns))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 15), chunk=st.integers(1, 40),
       asked=st.lists(st.integers(0, 200), min_size=1, max_size=12))
def test_one_games_dice_are_those_of_the_whole_stream_in_any_order_asked(seed, turns, chunk,
                                                                        asked):
    """``game_dice`` keeps the stream's place between calls (an agent's games 0, 1, 2... draw
    each game's dice once, not every game before it again): games asked for in any order,
    forwards, backwards or twice, get the dice one draw of the stream gives them."""
    from dicewise.solver.rulesets.simulate import dice_stream, game_dice

    whole = dice_stream(seed, max(asked) + 1, turns)
    for index in asked:
        assert np.array_equal(game_dice(seed, index, turns, chunk), whole[index]), index


def test_an_agents_games_are_made_as_they_are_played_on_the_streams_dice(solution):
    """``episodes`` draws its dice a chunk at a time (bench-agent may be asked for 10⁷
    games, or stop after one): each game still meets the dice of ``episode`` alone."""
    from dicewise.solver.rulesets.game import EPISODE_CHUNK, GENERAL

    sol = solution("general")
    games = GENERAL.episodes(sol, 5, 10**7)
    assert not isinstance(games, list)
    for i, ep in enumerate(games):
        if i in (0, EPISODE_CHUNK - 1, EPISODE_CHUNK, EPISODE_CHUNK + 7):
            assert np.array_equal(ep.stream, GENERAL.episode(sol, 5, i).stream), i
        if i > EPISODE_CHUNK + 7:
            break


def test_a_simulation_without_box_records_plays_the_same_games(solved, monkeypatch):
    """``simulate`` keeps only the scores (8 bytes a game, not two (games, boxes) records):
    the same games, the same scores, across chunks of the dice."""
    from dicewise.solver.rulesets import simulate

    game, values = solved("general")
    monkeypatch.setattr(simulate, "CHUNK", 512)  # three chunks, the last one short
    full = simulate_games(game, values.values, "optimal", 1200, seed=4)
    lean = simulate_games(game, values.values, "optimal", 1200, seed=4, boxes=False)
    assert np.array_equal(full.scores, lean.scores)
    assert np.array_equal(full.ended_early, lean.ended_early) and full.ended_early.any()
    n = game.n_categories
    assert lean.box_scores.shape == (0, n) and full.box_scores.shape == (1200, n)


@pytest.mark.slow  # a long run's memory, traced: 4 s
def test_a_long_simulation_holds_its_scores_not_its_box_records(solved, monkeypatch):
    """The memory of a run without box records grows by its scores alone: a chunk's box
    records, (games, boxes) twice, are let go when the chunk is played."""
    import tracemalloc

    from dicewise.solver.rulesets import simulate

    game, values = solved("general")
    monkeypatch.setattr(simulate, "CHUNK", 512)
    held = []  # the memory in use after each chunk
    tracemalloc.start()
    try:
        simulate_games(game, values.values, "optimal", 10 * 512, seed=3, boxes=False,
                       progress=lambda n: held.append(tracemalloc.get_traced_memory()[0]))
    finally:
        tracemalloc.stop()
    grown = held[-1] - held[1]
    # 8 chunks' scores are 32 KB; their box records would be 8 × 512 games × 13 boxes ×
    # 16 bytes (852 KB)
    assert len(held) == 10 and grown < 2**18, grown


@pytest.mark.slow  # a long run's memory, traced: the target table and 10 chunks
def test_a_long_run_for_a_target_holds_its_scores_not_its_box_records(monkeypatch):
    """`simulate --policy target:T` keeps what it reports (the scores), not every game's
    box records: its memory grows by a chunk's scores, not by a chunk's (games, boxes)."""
    import contextlib
    import tracemalloc

    from dicewise import api
    from dicewise.solver.rulesets import simulate

    monkeypatch.setattr(simulate, "CHUNK", 512)
    # Once untraced: the tables and the turn plans cached for these games' sheets.
    api.simulate("general", policy="target:150", games=10 * 512, seed=3)
    held = []

    @contextlib.contextmanager
    def traced(length, label):
        yield lambda n: held.append(tracemalloc.get_traced_memory()[0])

    tracemalloc.start()
    try:
        api.simulate("general", policy="target:150", games=10 * 512, seed=3, progress=traced)
    finally:
        tracemalloc.stop()
    grown = held[-1] - held[1]
    # 8 chunks' scores are 32 KB; their box records would be 8 × 512 games × 10 boxes ×
    # 16 bytes (655 KB)
    assert len(held) == 10 and grown < 2**18, grown


def test_the_costliest_decisions_are_the_five_largest_losses(solution, tmp_path):
    """Over more than fifty judged decisions the report keeps the five largest losses,
    which ``review`` of the same log finds by itself."""
    def first_box(obs):
        return [a for a in obs["legal"] if "write" in a][0]

    log = tmp_path / "log.jsonl"
    with open(log, "w") as f:
        report = bench_agent(solution("general"), CallableAgent(first_box, "first"), 8, 3,
                             log=f)
    judged = review_lines(solution("general"), log.read_text().splitlines())
    assert len(judged) == report.decisions > 60
    worst = sorted((r.loss for r in judged), reverse=True)[:5]
    assert [c["loss"] for c in report.to_json()["costliest"]] == pytest.approx(worst, abs=1e-9)


def test_win_rates_against_the_optimum_and_restarts_count_each_case_once():
    from dicewise.play.bench import AgentReport

    def report(errors, stopped=None):
        return AgentReport("general", {}, "bot", 0, np.array([10.0, 20.0, 30.0, 40.0]),
                           np.array([5.0, 20.0, 35.0, 50.0]), 4, {}, (), tuple(errors),
                           stopped, False, None)

    rates = report([]).to_json()["win_rate_vs_optimal"]
    assert rates == {"wins": 0.25, "draws": 0.25, "losses": 0.5}
    crash, hang, bad = {"kind": "crash"}, {"kind": "timeout"}, {"kind": "illegal"}
    assert report([crash, bad, hang]).restarts() == 2  # each started again
    # the run stopped at its last failure, a hang: that one was not restarted
    assert report([crash, bad, hang], "the agent failed").restarts() == 1
    assert report([crash, bad], "the agent failed").restarts() == 1  # stopped at an illegal one
    assert report([crash, hang]).error_kinds() == {"crash": 1, "timeout": 1}


def test_review_sums_up_each_game_and_names_its_games_as_ranges():
    from dicewise.play.review import Reviewed, _ranges, per_game

    def judged(line, game, loss):
        return Reviewed(line, game, 1, 1, [1, 2, 3, 4, 5], {"keep": []}, 10.0 - loss,
                        {"write": "x"}, 10.0, loss, f"chose {line}", "best")

    rows = [judged(1, 3, 0.0), judged(2, 3, 3.0), judged(3, 1, 1.0), judged(4, 3, 5.0),
            judged(5, 3, 2.0), judged(6, 1, 0.0), judged(7, 3, 5.0)]
    games = per_game(rows)
    assert [g["game"] for g in games] == [3, 1]  # in the log's order
    for g in games:
        mine = [r for r in rows if r.game == g["game"]]
        lost = [r for r in mine if r.loss > 0]
        assert g["decisions"] == len(mine) and g["lost"] == len(lost)
        assert g["loss"] == pytest.approx(sum(r.loss for r in mine))
        worst = {r.line: r for r in lost if r.loss == max(x.loss for x in lost)}
        assert g["worst"]["line"] in worst  # one of the largest losses (ties: either)
        r = worst[g["worst"]["line"]]
        assert g["worst"] == {"line": r.line, "loss": r.loss, "chose": r.chose_label,
                              "best": "best", "loss_error": None, "close_call": False}
    assert per_game([judged(1, 0, 0.0)])[0]["worst"] is None
    assert _ranges([0, 1, 2, 3, 4, 7]) == "0-4, 7"
    assert _ranges([1, 3, 4, 9]) == "1, 3-4, 9" and _ranges([5]) == "5" and _ranges([]) == ""


def _recording(bars: list):
    """A progress factory that records each bar it opens (label, length, steps done)."""
    from contextlib import contextmanager

    @contextmanager
    def progress(length, label):
        bar = {"label": str(label), "length": length, "done": 0}
        bars.append(bar)

        def update(steps=1):
            bar["done"] += steps
        yield update
    return progress


@pytest.mark.parametrize("what", ["opening", "states"])
def test_a_strategy_table_fills_its_progress_bar(what):
    """The bar `table` opens is filled by the tables that play no games too (it stood at 0%
    while Yahtzee's states took tens of seconds)."""
    from dicewise import api

    bars = []
    api.strategy_table("general", what, games=777, progress=_recording(bars))
    (bar,) = [b for b in bars if b["label"] == f"table {what}"]
    assert bar["done"] == bar["length"] == 777


@pytest.mark.parametrize("name", ["general", pytest.param("poker-programs", marks=pytest.mark.slow)])
def test_simulate_fills_a_bar_while_it_works_out_the_exact_distribution(name):
    """simulate's exact distribution took 1.9 s after its games' bar had closed (poker-programs):
    it has a bar of its own, filled a turn at a time, and filled at once when already known."""
    from dicewise import api

    for _ in range(2):  # worked out, then known
        bars = []
        simulation = api.simulate(name, games=20, progress=_recording(bars))
        assert "exact" in simulation.to_json()
        (bar,) = [b for b in bars if b["label"] == "working out the exact distribution"]
        assert bar["done"] == bar["length"] == len(api.describe(name)["categories"])
    bars = []
    api.simulate(name, games=20, policy="greedy", progress=_recording(bars))
    assert [b["label"] for b in bars] == ["playing 20 games (greedy)"]


def test_the_target_table_reads_the_game_table_it_is_given(tmp_path):
    """``table=`` was ignored by the target table alone: it answered from the cache."""
    from dicewise import api

    with pytest.raises(api.DicewiseError, match="does not exist"):
        api.strategy_table("general", "target", table=str(tmp_path / "no" / "general.dwt"))


def test_an_observations_sheet_lists_its_boxes_in_sheet_order(solution):
    """Whatever order a game writes its boxes in, the observation (and so a log, a render and
    the costliest decisions) lists them as the sheet does."""
    sol = solution("general")
    episode = sol.game.episode(sol, 5, 0)
    while not episode.done:
        writes = [a for a in episode.observation()["legal"] if "write" in a]
        episode.apply(writes[-1])  # the last box first: against the sheet's order
        listed = list(episode.observation()["sheet"])
        assert listed == [n for n in sol.rules.category_names if n in listed]
    assert len(listed) == sol.rules.n_categories
