"""The game in progress (``play/session.py``): whole games through the JSON-lines contract.

Everything here drives ``TableGame.apply`` exactly as ``dicewise play --json`` does, and
checks the table's bookkeeping against the rules and its advice against ``dicewise.advise``
for the same position.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings, strategies as st

import dicewise
from dicewise.errors import DicewiseError
from dicewise.play import commands
from dicewise.play.session import TableGame
from dicewise.solver.sheet import parse_sheet
from dicewise.solver.rulesets import category_game


pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process


def play_out(game: TableGame, limit: int = 2000) -> list[dict]:
    """Roll and take the best choice until the game is over; every answer."""
    answers = []
    for _ in range(limit):
        if game.over:
            return answers
        answers.append(game.apply("roll" if game.awaiting == "dice" else "pick 1"))
        assert answers[-1]["ok"], answers[-1]
    raise AssertionError("the game did not end")


def test_a_whole_game_of_three_players_of_general():
    game = TableGame.new("general", players=3, seed=11, names=["Ann", "Boris", "Ola"])
    answers = play_out(game)
    state = answers[-1]["state"]
    assert state["over"] and state["awaiting"] is None and state["to_move"] is None
    rules = category_game("general")
    if state["result"]["reason"] == "scores":
        for p in state["players"]:
            sheet = parse_sheet(rules, p["sheet"])
            assert sheet.mask == (1 << 10) - 1  # ten boxes each
            assert p["points"] == sheet.points
    ranking = state["result"]["ranking"]
    assert sorted(r["name"] for r in ranking) == ["Ann", "Boris", "Ola"]
    scores = [r["score"] for r in ranking]
    if state["result"]["reason"] == "scores":
        assert scores == sorted(scores, reverse=True)
        assert state["result"]["winners"] == [r["name"] for r in ranking if r["score"] == scores[0]]
    # Seats take whole turns in order: the writes alternate Ann, Boris, Ola.
    writers = [a["state"]["to_move"] for a in answers[:-1] if a["state"]["awaiting"] == "dice"
               and a["state"]["roll"] == 0]
    assert writers[:6] == [1, 2, 0, 1, 2, 0]


def test_advice_is_the_advice_of_advise_for_the_same_position():
    game = TableGame.new("poker-programs", players=2, seed=4)
    for _ in range(7):
        play_one_turn(game)
    answer = game.apply("roll")
    me = answer["state"]["players"][game.to_move]
    expected = dicewise.advise("poker-programs", dice=answer["state"]["dice"], roll=1,
                               sheet=me["sheet"] or None)
    assert answer["advice"] == json.loads(json.dumps(expected.to_json()))


def play_one_turn(game: TableGame) -> None:
    mover = game.to_move
    while game.to_move == mover and not game.over:
        assert game.apply("roll" if game.awaiting == "dice" else "pick 1")["ok"]


@pytest.mark.parametrize("line", [5, None, b"roll"])
def test_a_command_that_is_no_text_is_refused_by_name(line):
    game = TableGame.new("general", players=1, seed=2)
    with pytest.raises(DicewiseError, match="apply takes a command line"):
        game.apply(line)  # AttributeError: 'int' object has no attribute 'strip'


def test_a_bad_command_changes_nothing():
    game = TableGame.new("general", players=2, objective="score", seed=2)
    game.apply("roll")
    before = game.state()
    for line in ("keep 7", "write nowhere", "dice 1 2 3 4 5", "split 1+2 3+4 5", "pick 99",
                 "frobnicate", "", "cross ones"):
        answer = game.apply(line)
        assert answer["ok"] is False and answer["error"] and "\n" not in answer["error"]
        assert game.state() == before


def test_a_split_takes_its_fifth_die_as_the_die_its_pairs_leave():
    """``split 2+2 4+4 -`` as the advice shows a fifth die that gets no mark (a puścioch:
    the fifth-die faces 1, 3, 6 chosen, none rolled), or with the fifth left out: the die
    the pairs leave, as if typed; pairs the roll does not hold are refused."""
    lines = ["dice 1 2 2 3 3", "split 2+2 3+3 1", "dice 3 2 2 4 4", "split 2+2 4+4 3",
             "dice 6 2 2 5 5", "split 2+2 5+5 6", "dice 2 2 4 4 5"]
    sheets = set()
    for last in ("split 2+2 4+4 -", "split 2+2 4+4", "split 2+2 4+4 5"):
        game = TableGame.new("ryzykant", players=1, advice=False)
        for line in lines + [last]:
            assert game.apply(line)["ok"], line
        assert game.events[-1] == {"action": {"pairs": [[2, 2], [4, 4]], "fifth": 5}}
        sheets.add((game.sheets[0].text, game.sheets[0].points))
    assert len(sheets) == 1
    refused = game.apply("dice 2 2 4 4 5") and game.apply("split 2+2 5+5 -")
    assert refused["error"] == "the split 2+2 5+5 does not use the dice 2 2 4 4 5, each once"


@pytest.mark.parametrize("ruleset, options, lines, why", [
    ("poker-programs", None, ["dice 1 1 2 3 4", "write pair"],
     "pair is a free figure, written only after all six obligatory ones (still open: ones, "
     "twos, threes, fours, fives, sixes)"),
    ("general", None, ["dice 1 1 1 2 3", "write ones", "dice 1 1 4 5 6", "write threes",
                       "dice 1 1 4 5 6", "write ones"], "ones is written already"),
    ("poker-school", {"columns": 1}, ["dice 1 2 3 4 6", "write pair"],
     "the dice do not score pair: cross it, or write another row"),
    ("poker-school", {"columns": 1}, ["dice 6 6 2 4 1", "write pair", "dice 1 1 2 4 6",
                                      "cross twos", "dice 2 2 3 4 6", "cross pair"],
     "pair has no open cell"),
    ("ryzykant", None, ["dice 1 2 3 4 6", "split 1+6 2+3 5"],
     "the split 2+3 1+6 5 does not use the dice 1 2 3 4 6, each once"),
    # RULES.md 3: a pair of ones is a pair, but under the seed's minimum
    ("poker-school", {"columns": 1}, ["dice 1 1 2 3 4", "write pair"],
     "pair needs at least 10 points before any doubling (these dice make 2): cross it, or "
     "write another row"),
    ("poker-school", {"columns": 1}, ["dice 1 1 2 3 4", "write chance"],
     "chance needs at least 22 points before any doubling (these dice make 11): cross it, or "
     "write another row"),
    ("poker-school", None, ["dice 4 4 4 4 1", "write fours", "dice 1 1 2 3 5", "cross ones",
                            "dice 1 2 3 5 6", "write fours"],
     "fours needs three dice showing 4, the reserve counted (here 1): cross it, or write "
     "another row"),
    # RULES.md 4: three fifth-die faces chosen, one of them rolled
    ("ryzykant", None, [line for face in (1, 2, 3) for line in (
        f"dice {face} {face} {face} {face} {face}", f"split {face}+{face} {face}+{face} {face}",
        f"split {face}+{face} {face}+{face} {face}")] + ["dice 4 4 4 4 1", "split 4+4 1+4 4"],
     "the three fifth-die faces are chosen (1, 2, 3) and the roll shows 1: the fifth die must "
     "be one of them"),
    # RULES.md, yahtzee joker=forced: a further Yahtzee goes to its face's box first
    ("yahtzee", {"joker": "forced"}, ["dice 5 5 5 5 5", "write yahtzee", "dice 1 2 3 4 6",
                                      "write ones", "dice 5 5 5 5 5", "write chance"],
     "a further Yahtzee goes to its face's upper box while that is open, else to an open "
     "lower box (joker=forced); here: fives")])
def test_a_refused_write_says_why_where_the_rules_can(ruleset, options, lines, why):
    """Not the list of every legal move: the rule the move breaks (the list stays where the
    game has nothing more to say)."""
    game = TableGame.new(ruleset, players=2, options=options, objective="score", seed=2,
                         advice=False)
    for line in lines[:-1]:
        assert game.apply(line)["ok"], line
    answer = game.apply(lines[-1])
    assert answer["ok"] is False and answer["error"].endswith(why), answer["error"]
    assert "(allowed:" not in answer["error"]


def test_keep_then_the_dice_rolled_only_or_all_five():
    game = TableGame.new("general", players=1, seed=2)
    assert game.apply("dice 2 2 4 6 6")["state"]["awaiting"] == "choice"
    assert game.apply("keep 6 6")["state"]["kept"] == [6, 6]
    assert game.apply("dice 1 2 3")["state"]["dice"] == [1, 2, 3, 6, 6]
    game.apply("undo")
    assert not game.apply("dice 1 2 3 4 5")["ok"]  # does not hold the kept sixes
    assert game.apply("dice 6 1 6 2 3")["state"]["dice"] == [1, 2, 3, 6, 6]
    state = game.apply("keep 1 2 3 6 6")["state"]  # keep all five: the same dice, roll 3
    assert state["roll"] == 3 and state["dice"] == [1, 2, 3, 6, 6]
    assert not game.apply("keep 6")["ok"]  # no roll is left
    state = game.apply("write единицы")["state"]
    assert state["players"][0]["sheet"] == "ones=1"


@pytest.mark.parametrize("nothing", ["nothing", "none", "ничего", "nic", "Nic"])
def test_keep_nothing_as_a_player_says_it(nothing):
    """A Russian or Polish player keeps no dice in their own word (the help says so)."""
    game = TableGame.new("general", players=1, seed=2)
    game.apply("dice 2 2 4 6 6")
    answer = game.apply(f"keep {nothing}")
    assert answer["ok"] and answer["state"]["kept"] == [], answer


def test_undo_save_and_resume_mid_game(tmp_path):
    game = TableGame.new("general", players=2, objective="score", seed=5, lang="en")
    for _ in range(9):
        game.apply("roll" if game.awaiting == "dice" else "pick 1")
    state = game.state()
    game.apply("roll" if game.awaiting == "dice" else "pick 1")
    assert game.apply("undo")["state"] == state
    answer = game.apply(f"save {tmp_path / 'g.json'}")
    assert answer["ok"] and answer["saved"].endswith("g.json")
    resumed = TableGame.load(tmp_path / "g.json")
    assert resumed.state() == state
    # Both go on identically: the dice dicewise rolls depend on the seed and the move count.
    assert play_out(resumed)[-1]["state"] == play_out(game)[-1]["state"]
    with pytest.raises(DicewiseError, match="not a saved dicewise game"):
        TableGame.from_json({"events": []})
    damaged = {**game.to_json(), "events": [{"dice": [1, 2, 3, 4, 5]}, {"action": {"write": "x"}}]}
    with pytest.raises(DicewiseError, match="does not replay"):
        TableGame.from_json(damaged)


@pytest.mark.parametrize("typed, written", [
    ("~/g.json", "home/g.json"), ('"my game.json"', "my game.json"),
    ("'my game.json'", "my game.json"), ("~/'quoted'.json", "home/'quoted'.json")])
def test_a_save_is_written_where_a_player_at_a_shell_means_it(typed, written, tmp_path,
                                                              monkeypatch):
    """``save ~/g.json`` in the home folder (there is no folder ``~``) and ``save "my
    game.json"`` without its quotes, as a shell would read them."""
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    game = TableGame.new("general", players=1, seed=5, lang="en")
    game.apply("roll")
    answer = game.apply(f"save {typed}")
    assert answer["ok"], answer
    assert TableGame.load(tmp_path / written).state() == game.state()
    assert answer["saved"] == str(tmp_path / written) if typed.startswith("~") else written


@pytest.mark.parametrize("ruleset, unused", [
    ("general", {"cross", "split"}), ("poker-school", {"split"}),
    ("ryzykant", {"keep", "write", "cross"})])
def test_help_lists_the_commands_of_the_game_at_the_table(ruleset, unused):
    """No ``split`` in a game of General's help, no ``keep`` in Ryzykant's: each game's
    commands only, every one of which it takes."""
    game = TableGame.new(ruleset, players=2, seed=5, objective="score", advice=False)
    listed = set(game.apply("help")["help"])
    assert listed == set(commands.HELP) - unused
    for verb in unused:  # said before the dice are asked for
        refused = game.apply(f"{verb} 1")["error"]
        assert refused.startswith(("this game has no", "this game takes splits only")), refused
    unknown = game.apply("frobnicate")["error"]
    assert unknown == f"unknown command 'frobnicate' (commands: {', '.join(game.verbs)})"
    assert set(game.verbs) == listed


def test_a_big_general_wins_at_once():
    game = TableGame.new("general", players=3, seed=1, names=["A", "B", "C"])
    assert game.apply("dice 1 2 3 4 5")["ok"] and game.apply("write straight")["ok"]
    state = game.apply("dice 4 4 4 4 4")["state"]
    assert state["over"] and state["result"]["reason"] == "won_at_once"
    assert state["result"]["winners"] == ["B"]
    assert state["result"]["why"] == "five of a kind on the first throw"
    # The others keep their order by points: A's 25 before C's 0.
    assert [(r["place"], r["name"]) for r in state["result"]["ranking"]] == [
        (1, "B"), (2, "A"), (3, "C")]
    assert not game.apply("roll")["ok"]
    assert game.apply("undo")["state"]["over"] is False


def test_after_a_win_at_once_the_others_tied_on_points_share_a_place():
    game = TableGame.new("general", players=3, seed=1, names=["A", "B", "C"], advice=False)
    state = game.apply("dice 2 2 2 2 2")["state"]
    assert state["over"] and state["result"]["winners"] == ["A"]
    assert sorted((r["place"], r["name"]) for r in state["result"]["ranking"]) == [
        (1, "A"), (2, "B"), (2, "C")]  # 0 points each


def test_five_of_a_kind_after_a_keep_does_not_win_at_once():
    """Only a first-roll five of a kind wins at once (RULES.md section 1)."""
    game = TableGame.new("general", players=2, seed=1, names=["A", "B"], advice=False)
    assert game.apply("dice 6 6 6 6 1")["ok"] and game.apply("keep 6 6 6 6")["ok"]
    state = game.apply("dice 6")["state"]
    assert not state["over"] and state["roll"] == 2 and state["dice"] == [6] * 5
    assert {"write": "general"} in state["legal"]


def test_poker_programs_settles_score_minus_mean():
    game = TableGame.new("poker-programs", players=3, seed=8)
    result = play_out(game)[-1]["state"]["result"]
    scores = {r["name"]: r["score"] for r in result["ranking"]}
    mean = sum(scores.values()) / 3
    assert result["settlement"] == pytest.approx({n: s - mean for n, s in scores.items()})


def test_top_keeps_the_best_choices_of_the_same_advice():
    full = TableGame.new("general", players=1, seed=3)
    short = TableGame.new("general", players=1, seed=3, top=3)
    a, b = full.apply("roll")["advice"], short.apply("roll")["advice"]
    assert b["choices"] == a["choices"][:3] and b["best"] == a["best"]


def test_bad_tables_are_refused_in_one_line():
    with pytest.raises(DicewiseError, match="seats 1, 2, 3, 4, 5, 6 players, not 7"):
        TableGame.new("general", players=7)
    with pytest.raises(DicewiseError, match="2 names for 3 players"):
        TableGame.new("general", players=3, names=["a", "b"])
    with pytest.raises(DicewiseError, match="risk"):
        TableGame.new("risk")
    with pytest.raises(DicewiseError, match="language"):
        TableGame.new("general", lang="de")


# -- poker-school and Ryzykant at the table ---------------------------------------------------

def random_line(game: TableGame, rnd) -> str:
    """A random legal command for the player to move (writes preferred to crosses)."""
    if game.awaiting == "dice":
        return "roll"
    legal = game.legal()
    writes = [a for a in legal if "write" in a or "pairs" in a]
    a = rnd.choice(writes) if writes and rnd.random() < 0.9 else rnd.choice(legal)
    if "pairs" in a:
        (p, q), (s, t) = a["pairs"]
        return f"split {p}+{q} {s}+{t} {a['fifth']}"
    (kind, value), = a.items()
    return f"keep {' '.join(map(str, value))}" if kind == "keep" else f"{kind} {value}"


@pytest.mark.parametrize("columns", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_poker_school_premiums_go_to_the_first_and_sheets_read_back(columns):
    import random

    from dicewise.solver.poker_school.rules import ROW_INDEX, PokerSchoolRules

    rules = PokerSchoolRules(columns=columns)
    rnd = random.Random(columns)
    game = TableGame.new("poker-school", players=3, seed=columns, options={"columns": columns},
                         advice=False)
    while not game.over:
        answer = game.apply(random_line(game, rnd))
        assert answer["ok"], answer
        for seat, p in enumerate(answer["state"]["players"]):
            sheet = rules.parse_sheet(p["sheet"])  # the notation advise takes, taken= included
            assert (rules.final_score(sheet) if p["done"] else sheet.points) == p["points"]
        prizes = answer["state"]["prizes"]
        for row, owner in prizes["premiums"].items():
            for seat, p in enumerate(answer["state"]["players"]):
                taken = rules.parse_sheet(p["sheet"]).clean[ROW_INDEX[row]]
                assert not taken or seat == owner  # nobody else can earn it any more
    assert game.state()["result"]["ranking"][0]["score"] == max(
        p["points"] for p in game.state()["players"])


def test_a_poker_school_sheet_shows_the_points_no_cell_holds():
    """A player's points are the cells shown plus the premiums and column 60s the state
    names: on one column without erasure, each row's premium is its cell's score, and the
    column scored throughout earns its 60."""
    dice = {"ones": "1 1 1 2 3", "twos": "2 2 2 1 3", "threes": "3 3 3 1 2", "fours": "4 4 4 1 2",
            "fives": "5 5 5 1 2", "sixes": "6 6 6 1 2", "pair": "5 5 1 2 3",
            "two_pairs": "5 5 4 4 1", "triplet": "4 4 4 1 2", "small_straight": "1 2 3 4 5",
            "big_straight": "2 3 4 5 6", "full_house": "6 6 6 2 2", "four": "3 3 3 3 1",
            "poker": "1 1 1 1 1", "chance": "6 6 5 4 1"}
    game = TableGame.new("poker-school", players=1, options={"columns": 1,
                                                             "school_cross_erases": False},
                         advice=False)
    for row, faces in dice.items():
        assert game.apply(f"dice {faces}")["ok"]
        player = game.apply(f"write {row}")["state"]["players"][0]
        cells = sum(int(entry.partition("=")[2]) for entry in player["sheet"].split(","))
        assert player["premiums"] == cells  # the premium is the row's one cell
        assert player["points"] == cells + player["premiums"] + player.get("column_bonuses", 0)
    assert player["done"] and player["column_bonuses"] == 60


def test_ryzykant_every_player_splits_every_roll_until_their_game_ends():
    import random

    rnd = random.Random(3)
    game = TableGame.new("ryzykant", players=3, seed=3, advice=False, names=["A", "B", "C"])
    throws = 0
    while not game.over:
        if game.awaiting == "dice":
            active = [i for i, s in enumerate(game.sheets) if not s.done]
            assert game.to_move in active  # only a player still in the game throws
            throws += 1
            thrower = game.to_move
            state = game.apply("roll")["state"]
            splitters = []
            while game.awaiting == "choice" and game.state()["events"] and not game.over:
                splitters.append(game.to_move)
                game.apply(random_line(game, rnd))
                if game.awaiting == "dice":
                    break
            assert sorted(splitters) == active
            assert splitters[0] == state["to_move"] == thrower  # the thrower splits first
    rolls = [p["rolls"] for p in game.state()["players"]]
    assert max(rolls) == throws and min(rolls) >= 10
    assert not game.apply("keep 1")["ok"]


@pytest.fixture()
def small_fits(monkeypatch):
    from dicewise.solver.registry import GAMES, get_game

    for name in GAMES:
        shrink = getattr(get_game(name), "test_settings", None)
        if shrink is not None:
            for target, value in shrink().items():
                monkeypatch.setattr(target[0], target[1], value)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["poker-school", "ryzykant"])
def test_advice_of_the_approximate_games_is_that_of_advise(ruleset, small_fits):
    import random

    rnd = random.Random(1)
    game = TableGame.new(ruleset, players=2, seed=1, top=4)
    for _ in range(6):
        game.apply(random_line(game, rnd))
    if game.awaiting == "dice":
        game.apply("roll")
    answer = game.apply("advise")
    me = answer["state"]["players"][answer["state"]["to_move"]]
    position = game.sheets[game.to_move].position(tuple(game.dice), game.roll)
    expected = dicewise.advise(ruleset, **position)
    expected = {**expected.to_json(), "choices": expected.to_json()["choices"][:4]}
    assert answer["advice"] == json.loads(json.dumps(expected))
    assert me["sheet"] == position["sheet"]


@pytest.mark.slow
def test_two_player_general_plays_to_win_and_solves_the_race_once():
    """From a late position the race's sub-game is solved once and serves every later
    decision of both players; each advice is that of ``advise --players 2``."""
    boxes = ["ones", "twos", "threes", "fours", "fives", "sixes", "straight"]
    keeper = TableGame.new("general", players=2, seed=9, advice=False)
    for box in boxes:
        for _ in range(2):
            keeper.apply("dice 1 2 3 4 6")
            assert keeper.apply(f"write {box}")["ok"]
    game = TableGame.from_json({**keeper.to_json(), "advice": True})
    assert game.advisor.objective == "win"
    race = None
    for _ in range(60):
        if game.over:
            break
        answer = game.apply("roll" if game.awaiting == "dice" else "pick 1")
        if answer["advice"] is None or game.over:
            continue
        race = race or game.advisor._race
        assert game.advisor._race is race  # solved once, for both players
        players = answer["state"]["players"]
        expected = dicewise.advise_two_player(
            "general", dice=game.dice, roll=game.roll, sheet=players[game.to_move]["sheet"],
            opponent_sheet=players[1 - game.to_move]["sheet"]).to_json()
        got = answer["advice"]
        assert got["objective"] == "win"
        assert [c["action"] for c in got["choices"]] == [c["action"] for c in expected["choices"]]
        assert [c["probability"] for c in got["choices"]] == pytest.approx(
            [c["probability"] for c in expected["choices"]], abs=1e-12)
    assert game.over and race is not None


#: Eight boxes written each (player 0, then player 1, turn by turn): four and general open.
LATE = [("1 1 1 2 3", "ones"), ("2 2 2 2 3", "ones"), ("1 2 2 5 6", "twos"), ("2 3 3 5 6", "twos"),
        ("3 3 4 5 6", "threes"), ("1 3 3 3 4", "threes"), ("4 4 1 2 3", "fours"),
        ("4 4 4 2 3", "fours"), ("5 5 5 1 2", "fives"), ("5 1 2 3 4", "fives"),
        ("6 6 6 6 1", "sixes"), ("6 6 1 2 3", "sixes"), ("1 2 3 4 6", "straight"),
        ("1 2 3 4 5", "straight"), ("1 2 3 4 6", "full_house"), ("2 2 3 3 3", "full_house")]


def test_the_race_advice_is_advise_players_2_for_the_mover_and_follows_an_undo():
    """Two-player General to win from a late position: each advice is that of
    ``advise --players 2`` for the player to move against the other; the race solved for
    the first advice serves the next player's too; after undoing back past the position it
    was solved from, the advice is still that of ``advise --players 2``."""
    keeper = TableGame.new("general", players=2, seed=9, advice=False)
    for dice, box in LATE:
        assert keeper.apply(f"dice {dice}")["ok"]
        assert keeper.apply(f"write {box}")["ok"]
    game = TableGame.from_json({**keeper.to_json(), "advice": True})
    sheets = [p["sheet"] for p in game.state()["players"]]
    assert sheets[0] != sheets[1] and game.advisor.objective == "win"

    def check(answer):
        assert answer["ok"], answer
        players = answer["state"]["players"]
        mover = answer["state"]["to_move"]
        expected = dicewise.advise_two_player(
            "general", dice=game.dice, roll=game.roll, sheet=players[mover]["sheet"],
            opponent_sheet=players[1 - mover]["sheet"]).to_json()["choices"]
        got = answer["advice"]["choices"]
        assert [c["action"] for c in got] == [c["action"] for c in expected][:len(got)]
        assert [c["probability"] for c in got] == pytest.approx(
            [c["probability"] for c in expected][:len(got)], abs=1e-12)

    check(game.apply("dice 6 6 6 6 2"))
    race = game.advisor._race
    assert game.apply("write four")["ok"]
    check(game.apply("dice 3 3 3 3 2"))  # the other player, from the same race
    assert game.advisor._race is race
    for _ in range(4):  # back to player 1 choosing where its full house goes: 7 boxes written
        answer = game.apply("undo")
    assert game.to_move == 1 and game.awaiting == "choice"
    assert answer["state"]["players"][1]["sheet"] == sheets[1].replace(",full_house=35", "")
    check(answer)


_VERBS = ["dice", "roll", "advise", "pick", "keep", "write", "cross", "split", "undo", "sheet",
          "help", "", "frobnicate", "DICE", "write"]
_WORDS = ["1", "6", "7", "0", "-1", "66341", "1+2", "3+4", "5", "sixes", "единицы", "x", "none",
          "nothing", "99999999999999999999", "ones twos", "+", "'", "\\", "é", "1,2,3,4,5"]


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.one_of(
    st.tuples(st.sampled_from(_VERBS), st.lists(st.sampled_from(_WORDS), max_size=6)).map(
        lambda t: " ".join([t[0], *t[1]])),
    st.text(max_size=30)), min_size=1, max_size=25))
def test_any_line_answers_one_json_object_and_a_refused_one_changes_nothing(lines):
    game = TableGame.new("general", players=2, objective="score", seed=1, advice=False)
    for line in lines:
        if "\n" in line or "\r" in line:
            continue
        before = game.to_json()
        answer = game.apply(line)
        json.dumps(answer)  # JSON-able, one object
        assert set(answer) >= {"ok"}
        if not answer["ok"]:
            assert isinstance(answer["error"], str) and answer["error"]
            assert game.to_json() == before


@pytest.mark.parametrize("line", ["pick ²", "pick " + "9" * 5000, "pick 1234567890"])
def test_a_pick_that_is_no_number_of_a_choice_is_refused(line):
    """int() refuses "²" (a digit, not a decimal) and thousands of digits: refused, not a crash."""
    game = TableGame.new("general", players=1, seed=1, advice=False)
    game.apply("roll")
    before = game.to_json()
    assert game.apply(line) == {"ok": False, "error": "pick takes the number of a choice of the "
                                                      "advice, as pick 1"}
    assert game.to_json() == before


def test_advice_follows_the_position_after_an_undo():
    game = TableGame.new("general", players=1, seed=1)
    first = game.apply("dice 2 2 4 6 6")["advice"]
    game.apply("undo")
    second = game.apply("dice 1 1 1 3 5")["advice"]
    assert second["dice"] == [1, 1, 1, 3, 5] and second != first
    assert second == dicewise.advise("general", dice=[1, 1, 1, 3, 5], roll=1).to_json()


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.parametrize("ruleset, players", [("general", 3), ("ryzykant", 2),
                                              ("poker-school", 2)])
def test_playing_to_win_at_a_table_is_the_advice_of_advise_players(ruleset, players,
                                                                   small_fits):
    import random

    rnd = random.Random(2)
    game = TableGame.new(ruleset, players=players, seed=2, top=4, objective="win")
    for _ in range(8):
        game.apply(random_line(game, rnd))
    if game.awaiting == "dice":
        game.apply("roll")
    answer = game.apply("advise")
    mover = game.to_move
    position = game.sheets[mover].position(tuple(game.dice), game.roll)
    rivals = [s.position((), None) for j, s in enumerate(game.sheets) if j != mover]
    expected = dicewise.api.advise_players(
        ruleset, players=players, dice=position["dice"], roll=position.get("roll"),
        sheet=position["sheet"], fifth=position.get("fifth"),
        opponent_sheets=[r["sheet"] for r in rivals],
        opponent_fifths=[r["fifth"] for r in rivals if "fifth" in r])
    expected = {**expected.to_json(), "choices": expected.to_json()["choices"][:4]}
    assert answer["advice"] == json.loads(json.dumps(expected))
    assert answer["advice"]["approximate"] is True


@pytest.mark.slow
def test_poker_school_values_prizes_rivals_took_as_lost(small_fits):
    """A premium a rival took is worth nothing to the writer (RULES.md section 3); advice
    reads it from the sheet's taken= entry, as the table writes it."""
    dice_, mine, taken = [2, 2, 5, 5, 6], "pair=12/12", "pair=12/12,taken=pair"
    a = dicewise.advise("poker-school", dice=dice_, roll=2, sheet=mine)
    b = dicewise.advise("poker-school", dice=dice_, roll=2, sheet=taken)
    write = {"write": "pair"}
    premium = a.choice_for(write).detail["score"]
    lost = a.choice_for(write).expected - b.choice_for(write).expected
    assert 0 < lost <= premium + 1e-9
    c = dicewise.advise("poker-school", dice=dice_, roll=2, sheet="taken=column1")
    d = dicewise.advise("poker-school", dice=dice_, roll=2, sheet="")
    assert 0 < d.turn_start_expected - c.turn_start_expected <= 60 + 1e-9


def _json_game_lines(ruleset: str, players: int, seed: int, tmp_path) -> list[str]:
    """A whole game typed by a script: dice, legal choices, a bad line, an undo, a save."""
    import random

    rnd = random.Random(seed)
    shadow = TableGame.new(ruleset, players=players, advice=False)
    lines = []
    while not shadow.over:
        if shadow.awaiting == "dice":
            line = "dice " + " ".join(str(rnd.randint(1, 6)) for _ in range(5 - len(shadow.kept)))
        else:
            line = random_line(shadow, rnd)
        assert shadow.apply(line)["ok"]
        lines.append(line)
        if len(lines) == 7:
            lines += ["frobnicate", "", "undo", line, f"save {tmp_path / 'mid.json'}"]
    return lines


@pytest.mark.parametrize("ruleset,players", [
    ("general", 2), pytest.param("poker-programs", 3, marks=pytest.mark.slow),
    pytest.param("yahtzee", 2, marks=pytest.mark.slow),
    pytest.param("yatzy", 2, marks=pytest.mark.slow),
    ("poker-school", 2), ("ryzykant", 3)])
def test_a_whole_game_through_play_json(ruleset, players, tmp_path):
    """``dicewise play --json`` from a pipe: one JSON line a command (a blank line too), the
    same as apply()."""
    import subprocess
    import sys

    lines = _json_game_lines(ruleset, players, 7, tmp_path)
    run = subprocess.run([sys.executable, "-m", "dicewise", "play", ruleset, "--players",
                          str(players), "--no-advice", "--json", "--lang", "en"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(answers) == len(lines)
    shadow = TableGame.new(ruleset, players=players, advice=False, lang="en")
    for line, answer in zip(lines, answers):
        expected = shadow.apply(line.replace("mid.json", "shadow.json"))
        if "saved" in expected:
            expected["saved"] = answer["saved"]
        assert answer == json.loads(json.dumps(expected)), line
    assert answers[-1]["state"]["over"] and answers[7]["ok"] is False
    resumed = TableGame.load(tmp_path / "mid.json")
    assert resumed.state() == answers[10]["state"]


SAVED = TableGame.new("general", players=2, seed=4, names=["Ann", "Boris"], top=2).to_json()


@pytest.mark.parametrize("change, why", [
    ({"seed": -5}, "a seed is a whole number"), ({"seed": True}, "a seed is a whole number"),
    ({"seed": 2**63}, "from 0 to 9223372036854775807, not 9223372036854775808"),
    ({"names": [1, 2]}, "every player needs a name"), ({"names": ["Ann", " "]}, "needs a name"),
    ({"names": list("abcdefg")}, "seats 1, 2, 3, 4, 5, 6 players, not 7"),
    ({"names": ["Ann", "Bo\nb"]}, "one line of printable text, not 'Bo\\\\nb'"),
    ({"names": ["Ann", "Bo\x07b"]}, "one line of printable text"),
    # half of a character: a JSON escape, or a byte a terminal sent that is no UTF-8
    ({"names": ["Ann", "Bo\udcffb"]}, "one line of printable text, not 'Bo\\\\udcffb'"),
    ({"names": []}, "not 0"), ({"names": ["a", "a"]}, "the same name"),
    ({"target": -3}, "a target is a whole number"), ({"top": 0}, "--top takes"),
    ({"top": "x"}, "--top takes"), ({"top": "3"}, "from 1, not '3'"),
    ({"version": "1"}, "a saved game of version '1'; this dicewise reads version 1"),
    ({"advice": "no"}, "advice is true or false"),
    ({"lang": "de"}, "unknown language"), ({"objective": "win", "target": 150}, "not both"),
    ({"events": [{"dice": [5.5, 1, 2, 3, 4]}]}, "dice are whole numbers"),
    ({"events": [{"dice": "12345"}]}, "dice are whole numbers"),
    ({"events": [{"dice": [True, 1, 2, 3, 4]}]}, "dice are whole numbers"),
    ({"options": 5}, "its options are not an object of names and values but 5$"),
    ({"options": ["straight=plain"]}, "its options are not an object"),
    ({"events": {"dice": [1, 2, 3, 4, 5]}}, "its events are not a list"),
    ({"events": "A" * 5000}, 'its events are not a list but "A{38}…$'),  # quoted as JSON
    ({"events": [{"dice": [1, 2, 3, 4, 5]}, {"action": [1]}]}, r"not an event of a game: "
     r'\{"action": \[1\]\}$'),
])
def test_a_hand_edited_save_is_refused_in_one_line(change, why):
    """A save is checked as a new game's settings are: one clear error, never a crash later."""
    with pytest.raises(DicewiseError, match=why):
        TableGame.from_json({**SAVED, **change})
    assert TableGame.from_json(SAVED).table.top == 2


def test_a_table_seats_what_the_game_seats():
    with pytest.raises(DicewiseError, match="a table of poker-school seats 1, 2, 3, 4 players, not 5"):
        TableGame.new("poker-school", players=5, advice=False)
    assert len(TableGame.new("general", players=6, advice=False).table.names) == 6


def test_a_move_the_game_does_not_have_is_refused_in_the_players_language():
    general = TableGame.new("general", players=2, lang="ru", advice=False)
    general.apply("dice 1 2 3 4 6")
    answer = general.apply("cross ones")
    assert not answer["ok"] and answer["error"].startswith("в этой игре нет крестиков")
    ryzykant = TableGame.new("ryzykant", players=2, lang="pl", advice=False)
    ryzykant.apply("dice 1 2 3 4 6")
    for line in ("write 7", "keep 1", "cross 7"):
        answer = ryzykant.apply(line)
        assert not answer["ok"] and answer["error"].startswith("w tej grze rzut tylko"), line


def test_an_upper_bonus_counts_as_soon_as_it_is_earned():
    """Yatzy's 50 for 63 in the upper section cannot be lost once earned: the standings
    count it then (not only when the sheet is full), and the state says which points no box
    shows."""
    game = TableGame.new("yatzy", players=1, advice=False)
    for face, box in enumerate(["ones", "twos", "threes", "fours", "fives", "sixes"], 1):
        other = 2 if face == 1 else 1
        assert game.apply(f"dice {face} {face} {face} {face} {other}")["ok"]
        assert game.apply(f"write {box}")["ok"]
        player = game.state()["players"][0]
        upper = 4 * sum(range(1, face + 1))
        assert player["points"] == upper + (50 if upper >= 63 else 0)
        assert player.get("bonus", 0) == (50 if upper >= 63 else 0)
    assert player["sheet"].startswith("ones=4,twos=8")


def test_the_sheet_lists_its_boxes_in_the_sheets_order():
    game = TableGame.new("general", players=1, advice=False)
    for box in ("sixes", "ones"):
        game.apply("dice 1 1 6 6 6")
        game.apply(f"write {box}")
    assert game.state()["players"][0]["sheet"] == "ones=2,sixes=18"


def test_default_names_follow_the_language_a_game_goes_on_in():
    game = TableGame.new("general", players=2, advice=False)
    named = TableGame.new("general", names=["Ann", "Boris"], advice=False)
    game.speak("ru"), named.speak("ru")
    assert game.table.names == ["Игрок 1", "Игрок 2"] and named.table.names == ["Ann", "Boris"]


def test_every_answer_that_is_done_names_the_command_it_ran():
    game = TableGame.new("yahtzee", players=1, seed=3, advice=False)
    said = [game.apply(line) for line in ("roll", "keep", "sheet", "undo", "help")]
    assert [a.get("command") for a in said] == ["roll", "keep", "sheet", "undo", "help"]
    assert "command" not in game.apply("keep 7")  # refused: nothing ran


def test_names_of_every_script_are_names():
    """A no-break space, a zero-width joiner (Persian, emoji): names, unlike a line break."""
    names = ["Jean\u00a0Luc", "\u0645\u06cc\u200c\u0646\u0627", "\U0001f469\u200d\U0001f4bb"]
    assert TableGame.new("general", names=names).table.names == names


@pytest.mark.parametrize("names", [["Аня", "аня"], ["Ann", "ANN"], ["Jean Luc", "jean  luc"],
                                   ["Straße", "STRASSE"]])
def test_names_one_player_would_answer_to_are_one_name(names):
    """Names told apart only by case or spacing are one player's at the table: a new game
    refuses them; a game saved with them before still resumes."""
    with pytest.raises(DicewiseError, match="two players have the same name"):
        TableGame.new("general", names=names, advice=False)
    assert TableGame.from_json({**SAVED, "names": names}).table.names == names


@pytest.mark.parametrize("settings, why", [
    ({"seed": 1.5}, "a seed is a whole number from 0 to"), ({"seed": "7"}, "not '7'"),
    ({"seed": float("nan")}, "a seed is a whole number"), ({"seed": 2**80}, "a seed is"),
    ({"players": 2.0}, "seats 1, 2, 3, 4, 5, 6 players, not 2.0"),
    ({"players": "2"}, "players, not 2"), ({"names": "ab"}, "names must be a list of texts"),
    ({"lang": 5}, "unknown language '5'"), ({"lang": ""}, "unknown language ''"),
])
def test_a_new_game_refuses_what_a_saved_one_would(settings, why):
    """TableGame.new checks its settings as a saved game's are checked (a seed of 1.5 played
    seed 1, names "ab" seated players a and b, players=2.0 and lang=5 raised Python's errors)."""
    with pytest.raises(DicewiseError, match=re.escape(why)):
        TableGame.new("general", **{"objective": "score", **settings})


def test_an_unknown_command_is_quoted_back_cut_short():
    """A pasted page is no command: the refusal quotes its first 40 characters, not all."""
    game = TableGame.new("general", players=2, advice=False)
    error = game.apply("a" * 200_000)["error"]
    assert error.startswith("unknown command '" + "a" * 40 + "…' (commands: ") and len(error) < 200


def test_a_mistyped_command_is_told_the_one_it_is_near():
    """`advice` for `advise`, `rol` for `roll`: the refusal names the command meant; a word
    near none is told the list alone."""
    for typed, meant in (("advice", "advise"), ("rol", "roll"), ("UNDOO", "undo")):
        with pytest.raises(DicewiseError) as refused:
            commands.parse(typed)
        assert f"unknown command '{typed}': did you mean {meant}? (commands: " in str(
            refused.value)
    with pytest.raises(DicewiseError) as refused:
        commands.parse("frobnicate")
    assert "did you mean" not in str(refused.value)
