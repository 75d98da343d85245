"""Play for a target and the two-player race, through the real command line.

Proves: ``chance --target`` prints the documented JSON, never puts the target policy below
the expected-score policy, answers 1 for a target the sheet has reached and refuses a bad
target in one line; ``advise --target`` ranks by probability with the expected score beside
and names the expected-score choice; ``simulate --policy target:T`` reaches T as often as
``chance`` says (within its interval); ``table --what target`` is the whole curve;
``chance/advise --players 2`` answer late positions from a sub-game, with P(win) + ½P(draw)
made of its parts, and refuse sheets that cannot stand side by side.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from dicewise.cli.main import cli
from lines import unwrapped

SHEET = "ones=3,twos=6,threes=9,straight=25"
ME = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,straight=25"
THEM = "ones=2,twos=8,threes=12,fours=16,fives=20,sixes=24,full_house=30"


pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process


def run(*args):
    return CliRunner().invoke(cli, list(args), prog_name="dicewise")


def ok(*args):
    result = run(*args)
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
    return json.loads(result.stdout) if "--json" in args else result.stdout


def one_error_line(result, fragment=""):
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dicewise: error:") and fragment in lines[0]


@pytest.mark.slow
def test_chance_json_and_the_two_policies():
    doc = ok("chance", "general", "--target", "150", "--json")
    assert {"ruleset", "target", "points", "probability",
            "probability_expected_score_policy"} <= set(doc)
    assert doc["points"] == 0 and 0 < doc["probability"] < 1
    # the target policy maximises exactly this probability
    assert doc["probability"] >= doc["probability_expected_score_policy"] - 1e-12
    later = ok("chance", "general", "--target", "103", "--sheet", SHEET, "--json")
    assert later["points"] == 43 and later["probability"] >= later["probability_expected_score_policy"]
    assert ok("chance", "general", "--target", "40", "--sheet", SHEET, "--json")["probability"] == 1.0
    assert ok("chance", "general", "--target", "0", "--json")["probability"] == 1.0


@pytest.mark.slow
def test_the_cached_table_answers_both_policies_from_any_sheet(monkeypatch):
    """The expected-score policy's chance is solved with the target table and read from it:
    a later sheet needs no pass, and reads what a pass from that sheet gives."""
    from dicewise.solver.category import solve_states
    from dicewise.solver.rulesets import category_game
    from dicewise.solver.sheet import parse_sheet
    from dicewise.solver.target import driver, evaluation

    ok("chance", "general", "--target", "150", "--json")
    game = category_game("general")
    written = parse_sheet(game, SHEET)
    alone = evaluation.policy_target_values(game, solve_states(game), target=150,
                                            start=written.state(game), start_points=written.points)

    def solved_again(*args, **kwargs):
        raise AssertionError("a cached target table was solved again")

    monkeypatch.setattr(driver, "solve_layers", solved_again)
    monkeypatch.setattr(evaluation, "solve_layers", solved_again)
    doc = ok("chance", "general", "--target", "150", "--sheet", SHEET, "--json")
    assert doc["probability_expected_score_policy"] == pytest.approx(
        float(alone.at(written.state(game), 150 - written.points)), abs=1e-12)


@pytest.mark.parametrize("args, fragment", [
    (["chance", "general", "--target", "-5"], "-5"),
    (["chance", "general", "--target", "abc"], "abc"),
    (["chance", "general"], "--target"),
    (["chance", "general", "--target", "100", "--sheet", "twos=7"], "twos=7"),
    (["chance", "ryzykant", "--target", "100"], "ryzykant has no `chance`"),
    # advise has no `chance` to lack: what ryzykant lacks is play for a target
    (["advise", "ryzykant", "--dice", "1", "2", "3", "4", "5", "--target", "100"],
     "ryzykant has no play for a target"),
    # nor has bench-agent a `chance` to lack
    (["bench-agent", "ryzykant", "--agent", "x:y", "--target", "900"],
     "ryzykant has no play for a target"),
    (["simulate", "general", "--policy", "target:x"], "target:x"),
    (["simulate", "general", "--policy", "target:-3"], "-3"),
    # past 64 bits (and far past any score): refused, not an overflow in the solvers
    (["chance", "general", "--target", str(10**23)], "at most 1,000,000,000 points"),
    (["advise", "general", "--roll", "1", "--dice", "2", "2", "4", "6", "6", "--target",
      str(2**63)], "at most 1,000,000,000 points"),
    (["bench-agent", "general", "--agent-cmd", "cat", "--target", str(10**23)], "at most"),
    (["simulate", "general", "--policy", f"target:{2**63 - 1}"],
     "a target is at most 1,000,000,000 points"),
    (["chance", "general", "--players", "2", "--sheet", ME, "--opponent-sheet", "ones=2"],
     "turns alternate"),
    (["chance", "poker-programs", "--players", "2"], "not solved for two players"),
    # each refusal names what was given, and the tables that take it
    (["chance", "general", "--target", "150", "--opponent-sheet", "ones=3"],
     "--opponent-sheet is for --players N"),
    (["advise", "general", "--roll", "2", "--dice", "3", "3", "5", "6", "6", "--players", "2",
      "--opponent-fifth", "2=5"], "--players 2 takes no --fifth or --opponent-fifth"),
    # a game with no chance at all says that, at any table (not "duel risk" to a game with none)
    (["chance", "ryzykant", "--players", "3"], "ryzykant has no `chance`"),
    (["chance", "risk", "--players", "3"], "risk has no `chance`"),
])
def test_bad_targets_and_sheets_are_one_line(args, fragment):
    one_error_line(run(*args), fragment)


def test_advise_for_a_target_ranks_by_probability():
    doc = ok("advise", "general", "--roll", "2", "--dice", "3", "3", "5", "6", "6", "--sheet", SHEET,
             "--target", "180", "--json")
    assert doc["objective"] == "target" and doc["target"] == 180
    probabilities = [c["probability"] for c in doc["choices"]]
    assert probabilities == sorted(probabilities, reverse=True) and doc["best"] == doc["choices"][0]
    assert all(c["expected"] is not None for c in doc["choices"])
    assert doc["expected_score_choice"] in [c["action"] for c in doc["choices"]]
    mean = ok("advise", "general", "--roll", "2", "--dice", "3", "3", "5", "6", "6", "--sheet", SHEET,
              "--json")
    assert doc["expected_score_choice"] == mean["best"]["action"]
    assert doc["policies_differ"] == (doc["best"]["action"] != mean["best"]["action"])
    text = ok("advise", "general", "--roll", "2", "--dice", "3", "3", "5", "6", "6", "--sheet", SHEET,
              "--target", "180")
    assert "P(≥ target)" in text


#: Ones..fives, straight and full house written, 15 points: sixes, four and general add at
#: most 30 + 45 + 60 (RULES.md §1), so 150 is the most this sheet can end with.
NEAR_THE_END = "ones=1,twos=2,threes=3,fours=4,fives=5,straight=0,full_house=0"


@pytest.mark.parametrize("target, settled, said", [
    ("151", "out_of_reach", "the target 151 can no longer be reached from here"),
    ("0", "certain", "the target 0 is certain from here")])
def test_a_target_out_of_reach_or_certain_is_played_for_the_best_mean(target, settled, said):
    position = ("advise", "general", "--roll", "1", "--dice", "6", "6", "6", "2", "3",
                "--sheet", NEAR_THE_END)
    mean = ok(*position, "--json")
    doc = ok(*position, "--target", target, "--json")
    assert doc["settled"] == settled and doc["policies_differ"] is False
    assert {c["probability"] for c in doc["choices"]} == {1.0 if settled == "certain" else 0.0}
    # every choice has the same chance: the ranking is the expected score's, keep 6 6 6 first
    assert [c["action"] for c in doc["choices"]] == [c["action"] for c in mean["choices"]]
    assert doc["best"]["action"] == {"keep": [6, 6, 6]} == doc["expected_score_choice"]
    text = unwrapped(ok(*position, "--target", target))
    assert text[2].startswith(said) and "keep 6 6 6" in text[4]
    ru = unwrapped(ok(*position, "--target", target, "--lang", "ru"))
    assert ru[2].startswith(f"цель {target} отсюда")
    # where the target can still be missed, nothing is said
    assert ok(*position, "--target", "100", "--json")["settled"] is None
    assert "from here" not in ok(*position, "--target", "100")


@pytest.mark.slow
def test_simulated_target_play_reaches_the_target_as_often_as_chance_says():
    p = ok("chance", "general", "--target", "150", "--json")["probability"]
    games = 6000
    sim = ok("simulate", "general", "--policy", "target:150", "--games", str(games), "--seed", "4",
             "--json")
    assert sim["policy"] == "target:150"
    assert abs(sim["reached_rate"] - p) < 4 * math.sqrt(p * (1 - p) / games)


def test_the_target_curve():
    rows = json.loads(ok("table", "general", "--what", "target", "--format", "json"))
    chances = np.array([r["probability"] for r in rows])
    expected = np.array([r["probability_expected_score_policy"] for r in rows])
    assert chances[0] == 1.0 and np.all(np.diff(chances) <= 1e-12)
    assert np.all(chances >= expected - 1e-9)
    # csv and json keep full precision: the curve's far tail (270 is General's highest score)
    # is what ``chance`` says, not rounded away
    for t in (150, 260, 270):
        said = ok("chance", "general", "--target", str(t), "--json")
        assert rows[t]["probability"] == pytest.approx(said["probability"], rel=1e-9, abs=0)
        assert rows[t]["probability_expected_score_policy"] == pytest.approx(
            said["probability_expected_score_policy"], rel=1e-9, abs=0)
    assert rows[270]["probability"] > 0 and len(rows) == 271
    # for people rounded, but a chance too small to show is not shown as none
    text = ok("table", "general", "--what", "target", "--format", "text").splitlines()
    assert text[-1].split() == ["270", "<0.0001", "<0.0001"]


@pytest.mark.slow
def test_the_target_curve_holds_probabilities_only():
    """poker-programs' curve summed to 1.0000000000000047 at T = 0 (a score can be negative
    there, so its first targets are not certain by the rules): a probability never passes 1."""
    rows = [line.split(",") for line in
            ok("table", "poker-programs", "--what", "target", "--format", "csv").splitlines()[1:]]
    chances = np.array([[float(p) for p in row[1:]] for row in rows])
    assert ((chances >= 0) & (chances <= 1)).all() and chances[0, 0] == 1.0


def test_two_players_from_a_late_position():
    doc = ok("chance", "general", "--players", "2", "--sheet", ME, "--opponent-sheet", THEM, "--json")
    assert {"ruleset", "players", "probability", "p_win", "p_draw"} <= set(doc)
    assert doc["players"] == 2 and doc["source"] == "sub-game" and doc["seat"] == "first"
    assert 0 <= doc["probability"] <= 1
    assert doc["p_win"] + doc["p_draw"] / 2 == pytest.approx(doc["probability"], abs=1e-6)
    advice = ok("advise", "general", "--players", "2", "--roll", "1", "--dice", "2", "2", "4", "6",
                "6", "--sheet", ME, "--opponent-sheet", THEM, "--json")
    assert advice["objective"] == "win" and advice["seat"] == "first"
    assert advice["turn_start_probability"] == pytest.approx(doc["probability"], abs=1e-6)
    values = [c["probability"] for c in advice["choices"]]
    assert values == sorted(values, reverse=True)
    assert advice["expected_score_choice"] in [c["action"] for c in advice["choices"]]


def test_p_win_and_p_draw_make_the_chance_where_draws_happen():
    """Equal sheets: a draw is likely, and P(win) + ½P(draw) is still the chance."""
    doc = ok("chance", "general", "--players", "2", "--sheet", ME, "--opponent-sheet", ME, "--json")
    assert doc["p_draw"] > 0.05
    assert doc["p_win"] + doc["p_draw"] / 2 == pytest.approx(doc["probability"], abs=1e-6)
    assert 0 <= doc["p_win"] and doc["p_win"] + doc["p_draw"] <= 1 + 1e-9


def test_the_reached_rate_counts_the_games_that_end_on_the_target():
    """``reached_rate`` is the share of final scores ≥ T, a score of exactly T included."""
    import dicewise

    sim = dicewise.simulate("general", policy="target:180", games=300, seed=2)
    scores = np.asarray(sim.scores)
    assert (scores == 180).any()  # the case that tells ≥ from >
    assert sim.extra["reached_rate"] == (scores >= 180).mean()
    # the rate measures the solved chance, the table's own P(final ≥ 180) from the start
    low, high = sim.extra["reached_rate_ci95"]
    assert low <= sim.extra["reached_rate"] <= high
    assert sim.extra["probability"] == pytest.approx(
        dicewise.chance("general", target=180).probability, abs=1e-12)


@pytest.mark.slow  # 4,000 games played for the target: CI's second step runs it
def test_the_target_policy_reaches_its_solved_chance():
    """Played out, the target policy reaches T as often as its table says it does."""
    import dicewise

    sim = dicewise.simulate("general", policy="target:150", games=4000, seed=3)
    p, n = sim.extra["probability"], 4000
    assert abs(sim.extra["reached_rate"] - p) < 4 * np.sqrt(p * (1 - p) / n)


@pytest.mark.slow  # General's target table and the games played for it
def test_target_play_keeps_the_games_statistics():
    """``simulate --policy target:T`` adds General's ``ended_on_first_roll_rate``, as every
    policy of General does (docs/json.md), beside ``target`` and ``reached_rate``."""
    sim = ok("simulate", "general", "--policy", "target:150", "--games", "300", "--seed", "2",
             "--json")
    assert 0 <= sim["ended_on_first_roll_rate"] <= 1
    assert sim["target"] == 150 and 0 <= sim["reached_rate"] <= 1
    assert "ended on first roll rate" in ok("simulate", "general", "--policy", "target:150",
                                            "--games", "300", "--seed", "2")


@pytest.mark.slow
def test_the_target_curve_as_a_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "general-target.png"
    run_result = run("table", "general", "--what", "target", "--plot", str(out))
    assert run_result.exit_code == 0, run_result.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert run_result.stderr.strip().endswith(f"wrote the plot to {out}")
    ru = run("table", "general", "--what", "target", "--plot", str(out), "--lang", "ru")
    assert ru.stderr.strip().endswith(f"график записан в {out}")
    one_error_line(run("table", "general", "--what", "opening", "--plot", str(out)), "--plot")
    # one file for the table and its plot would keep only the plot
    one_error_line(run("table", "general", "--what", "target", "--out", str(out), "--plot",
                       str(tmp_path / "." / out.name)), "--out and --plot name one file")


@pytest.mark.slow  # builds General's target table (seconds)
def test_a_plot_that_cannot_be_drawn_is_one_line_and_no_table(tmp_path, monkeypatch):
    """A format matplotlib names but cannot write here (.pgf wants LaTeX) was a traceback
    with exit 1; and a plot refused at its writing came after the whole table was printed."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    def no_latex(self, *args, **kwargs):
        raise RuntimeError("'xelatex' not found; install it\nor change rcParams")

    monkeypatch.setattr(Figure, "savefig", no_latex)
    ok("table", "general", "--what", "target")  # its tables built: what is left is the plot
    refused = run("table", "general", "--what", "target", "--plot", str(tmp_path / "t.pgf"))
    one_error_line(refused, "cannot draw a .pgf image here ('xelatex' not found; install it)")
    assert refused.stdout == "" and not (tmp_path / "t.pgf").exists()
    ru = run("table", "general", "--what", "target", "--plot", str(tmp_path / "t.pgf"),
             "--lang", "ru")
    assert ru.exit_code == 2 and ru.stderr.startswith(
        "dicewise: ошибка: не удаётся нарисовать здесь изображение .pgf")


@pytest.mark.slow
def test_bench_agent_against_the_win_optimal_player(tmp_path, monkeypatch):
    """An agent that plays the advisor's best choice loses nothing and scores what the
    win-optimal player scores on the same dice; one that writes at once loses a lot."""
    (tmp_path / "racebots.py").write_text(
        "import dicewise\n"
        "def first(obs):\n"
        "    return [a for a in obs['legal'] if 'write' in a][0]\n"
        "def best(obs):\n"
        "    sheet = ','.join(f'{k}={v}' for k, v in obs['sheet'].items())\n"
        "    other = ','.join(f'{k}={v}' for k, v in obs['opponent_sheet'].items())\n"
        "    return dicewise.api.advise_two_player('general', dice=obs['dice'], roll=obs['roll'],\n"
        "        sheet=sheet, opponent_sheet=other).best.action\n")
    monkeypatch.chdir(tmp_path)
    common = ["bench-agent", "general", "--players", "2", "--sheet", ME, "--opponent-sheet", THEM,
              "--games", "12", "--json"]
    best = ok(*common, "--agent", "racebots:best")
    assert best["regret_total"] == pytest.approx(0, abs=1e-6) and best["regret_unit"] == "probability"
    assert best["mean"] == pytest.approx(best["optimal_mean"])
    worst = ok(*common, "--agent", "racebots:first")
    assert worst["regret_total"] > 0 and worst["decisions"] > 0
    assert best["objective"] == worst["objective"] == "win"
    # for people: each game's outcome, and "the same" outcome where a score race says draws
    text = run(*common[:-1], "--agent", "racebots:first")
    said = " ".join(text.stdout.split())
    assert f"P(win)+½P(draw) {worst['mean']:.3f} (95% CI" in said, said
    assert (f"the same dice {worst['optimal_mean']:.3f}" in said
            and "a better outcome in" in said and "draws" not in said), said
    one_error_line(run("bench-agent", "general", "--players", "2", "--agent", "racebots:first",
                       "--sheet", ME, "--opponent-sheet", "ones=2"), "turns alternate")


@pytest.mark.slow  # a target table, a run and its review
def test_a_log_played_for_a_target_is_reviewed_for_it(tmp_path):
    """bench-agent --target writes its target in each observation; review then judges each
    decision by the chance of reaching it, as bench-agent did (it judged by points before)."""
    import dicewise

    def hasty(obs):  # writes at once, in the first box it may
        return next(a for a in obs["legal"] if "write" in a)

    log, plain = tmp_path / "target.jsonl", tmp_path / "points.jsonl"
    with open(log, "w") as out:
        bench = dicewise.bench_agent("general", hasty, games=2, seed=3, target=150, log=out)
    with open(plain, "w") as out:
        dicewise.bench_agent("general", hasty, games=2, seed=3, log=out)
    assert all(json.loads(line)["observation"]["target"] == 150 for line in log.open())
    judged = ok("review", "general", str(log), "--json")
    assert judged["target"] == 150 and len(judged["decisions"]) == bench.decisions
    assert judged["total_loss"] == pytest.approx(bench.to_json()["regret_total"], abs=1e-12)
    # chances are named as advise names them, not "expected" (points)
    assert all(0 <= d["chose_probability"] <= d["best_probability"] <= 1
               and "best_expected" not in d for d in judged["decisions"])
    # a log without the target is judged for one given; a log's own target stands
    assert ok("review", "general", str(plain), "--target", "150", "--json")["total_loss"] == \
        pytest.approx(bench.to_json()["regret_total"], abs=1e-12)
    assert ok("review", "general", str(plain), "--json")["target"] is None
    text = " ".join(ok("review", "general", str(log)).split())
    assert "chance of reaching 150" in text
    # what a decision lost is a chance, not points (the text said points)
    assert "points" not in text and "lost some of the chance of reaching 150, " in text, text
    one_error_line(run("review", "general", str(log), "--target", "100"), "--target 150")


@pytest.mark.slow  # builds poker-programs' target table (9 s)
def test_a_probability_is_never_past_one():
    """poker-programs' target 0: its table's sums of chances end 4.7e-15 above 1 (the
    obligatory figures can lose points, so 1 is not set by the rules); what is shown is 1."""
    doc = ok("chance", "poker-programs", "--target", "0", "--json")
    assert doc["probability"] == 1.0 and 0.99 < doc["probability_expected_score_policy"] <= 1.0
    advice = ok("advise", "poker-programs", "--roll", "1", "--dice", "1", "1", "1", "1", "1",
                "--target", "0", "--json")
    assert all(0.99 < c["probability"] <= 1.0 for c in advice["choices"])


@pytest.mark.parametrize("fmt", ["text", "csv", "json"])
def test_writing_a_long_table_out_shows_progress(monkeypatch, fmt):
    # `table yatzy --what states --format text` (958,976 rows) spent 8 s putting its rows
    # into words after the table's bar had closed, without a word on stderr.
    from contextlib import contextmanager

    import dicewise.cli.measure as measure

    plain = ok("table", "general", "--what", "states", "--format", fmt)
    bars = []

    @contextmanager
    def recorded(length, label):
        bar = {"label": str(label), "length": length, "done": 0}
        bars.append(bar)
        yield lambda steps=1: bar.update(done=bar["done"] + steps)

    monkeypatch.setattr(measure, "progress", recorded)
    monkeypatch.setattr(measure, "_BAR_ROWS", 100)
    monkeypatch.setattr(measure, "_ROW_STEP", 300)
    assert ok("table", "general", "--what", "states", "--format", fmt) == plain  # same bytes
    written = [b for b in bars if b["label"] == "writing table states"]
    assert len(written) == 1 and written[0]["done"] == written[0]["length"] == 1024


@pytest.mark.slow  # the win policy's tables for a table of three
@pytest.mark.parametrize("lang,joined", [("en", "against 112 and 116"), ("ru", "112 и 116"),
                                         ("pl", "112 i 116")])
def test_the_rivals_points_at_a_table_of_three_stay_on_one_line(lang, joined):
    """A line of entries breaks after its commas: the rivals' points are one entry ("112 and
    116"), never "112," at the end of one line and "116:" beginning the next."""
    said = ok("chance", "general", "--players", "3", "--sheet", ME, "--opponent-sheet", THEM,
              "--opponent-sheet", THEM.replace("ones=2", "ones=4").replace("sixes=24", "sixes=30")
              .replace("twos=8", "twos=4"), "--games", "20", "--lang", lang)
    assert joined in said, said
