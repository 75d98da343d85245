"""``dicewise play`` in a real terminal (pexpect), as players use it at the table.

Whole games of every seed game are typed line by line: the dice as a player reads them off
real dice (a shadow ``TableGame`` in the test, fed the same lines, says what is legal and
what the result must be), or rolled by dicewise and the advice's best choice picked.
"""

from __future__ import annotations

import random
import re
import signal
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

from dicewise.play.session import TableGame  # noqa: E402

PROMPT = "\r\n> "


class Terminal:
    """``dicewise play ...`` on a pseudo-terminal; ``send(line)`` returns what it printed."""

    def __init__(self, args, cache, timeout=120, home=None):
        env = {"DICEWISE_CACHE": str(cache), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
               "COLUMNS": "120", **({"HOME": str(home)} if home else {})}
        # Ctrl-C must reach the game even when the test runner was started in the background
        # of a script, whose children inherit an ignored SIGINT.
        self.child = pexpect.spawn(sys.executable, ["-m", "dicewise", "play", *args], env=env,
                                   cwd=str(cache), encoding="utf-8", timeout=timeout,
                                   dimensions=(50, 160),
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        # each line goes once the prompt is out, so pexpect's 50 ms wait before a send,
        # for programs that drop what comes too early, would only add up
        self.child.delaybeforesend = None
        self.child.expect_exact("> ")
        self.opening = self.child.before

    def send(self, line: str) -> str:
        self.child.sendline(line)
        i = self.child.expect_exact(["> ", pexpect.EOF])
        out = self.child.before
        if i == 1:
            self.child.close()
        return out.replace("\r\n", "\n")

    @property
    def alive(self) -> bool:
        return self.child.isalive()

    def close(self):
        if self.child.isalive():
            self.child.sendline("quit")
            self.child.expect(pexpect.EOF)
        self.child.close()


def shadow_line(shadow: TableGame, rnd: random.Random) -> str:
    """The next line a player types: the dice off the table, or a legal choice."""
    if shadow.awaiting == "dice":
        return "dice " + " ".join(str(rnd.randint(1, 6)) for _ in range(5 - len(shadow.kept)))
    legal = shadow.legal()
    writes = [a for a in legal if "write" in a or "pairs" in a]
    a = rnd.choice(writes) if writes and rnd.random() < 0.8 else rnd.choice(legal)
    if "pairs" in a:
        (p, q), (s, t) = a["pairs"]
        return f"split {p}+{q} {s}+{t} {a['fifth']}"
    (kind, value), = a.items()
    return f"keep {' '.join(map(str, value)) or 'nothing'}" if kind == "keep" else f"{kind} {value}"


def type_whole_game(ruleset, tmp_path, players=2, options=(), seed=1, extra=()):
    """A whole game typed from real dice with --no-advice; checks the result printed."""
    args = [ruleset, "--players", str(players), "--no-advice", "--lang", "en", *extra]
    for o in options:
        args += ["--option", o]
    term = Terminal(args, tmp_path)
    shadow = TableGame.new(ruleset, players=players, advice=False,
                           options=[o for o in options] or None)
    rnd = random.Random(seed)
    out = ""
    while not shadow.over:
        line = shadow_line(shadow, rnd)
        assert shadow.apply(line)["ok"]
        out = term.send(line)
        assert "not done" not in out, (line, out)
    assert "the game is over" in out
    for r in shadow.result()["ranking"]:
        assert f"{r['place']}. {r['name']}: {r['score']}" in out
    # The game stays on the table, so that a typo that ended it can be taken back.
    assert "undo takes the last move back" in out and term.alive
    assert "the game is over" not in term.send("undo")
    term.close()
    return out


@pytest.mark.slow
def test_general_rolled_by_dicewise_with_advice(tmp_path):
    """Two players, the advice's best choice every time, a bad line and an undo on the way."""
    term = Terminal(["general", "--players", "2", "--objective", "score", "--seed", "5",
                     "--names", "Ann,Boris", "--lang", "en", "--top", "3"], tmp_path)
    assert "Ann: the dice?" in term.opening
    out = term.send("roll")
    assert "Ann: roll 1 of 3, dice" in out and re.search(r"\n\s+1\s+\d+\.\d\d\s+0\.00  ", out)
    assert re.search(r"\n\s+3\s", out) and not re.search(r"\n\s+4\s", out)  # --top 3
    assert "not done: unknown command 'frobnicate'" in term.send("frobnicate")
    assert "not done" in term.send("write nowhere")
    before = term.send("sheet")
    term.send("pick 1")
    undone = term.send("undo")
    assert "Ann: 0 points" in undone and "* Ann" in before
    out = ""
    for _ in range(300):
        out = term.send("roll" if "the dice?" in out or "the dice?" in undone else "pick 1")
        undone = ""
        if "the game is over" in out:
            break
    assert "the game is over" in out and re.search(r"1\. (Ann|Boris): \d+", out)
    term.close()


def test_a_short_general_game_with_advice_in_the_terminal(tmp_path):
    """One player: ten turns of a roll and the best choice, a bad line, an undo."""
    term = Terminal(["general", "--players", "1", "--seed", "2", "--lang", "en", "--top", "2",
                     "--names", "Ann"], tmp_path)
    assert "Ann: the dice?" in term.opening
    out = term.send("dice 2 2 4 6 6")
    assert "Ann: roll 1 of 3, dice 2 2 4 6 6" in out
    assert re.search(r"\n\s+1\s+\d+\.\d\d\s+0\.00  ", out) and not re.search(r"\n\s+3\s", out)
    assert "not done: unknown command 'frobnicate'" in term.send("frobnicate")
    term.send("write sixes")
    assert "Ann: 12 points" in term.send("sheet")
    assert "Ann: 0 points" in term.send("undo")
    out = term.send("write twos")
    for box in ("ones", "threes", "fours", "fives", "sixes", "straight", "full_house", "four",
                "general"):
        term.send("dice 1 2 3 4 5")
        out = term.send(f"write {box}")
    assert "the game is over: Ann scored " in out  # solitaire: a score, no ranking
    assert "Ann: roll 1 of 3, dice 1 2 3 4 5" in term.send("undo")
    assert "the game is over" in term.send("write general")
    term.close()


@pytest.mark.slow
def test_save_and_resume_in_the_terminal(tmp_path):
    term = Terminal(["poker-programs", "--players", "2", "--seed", "3", "--lang", "en"], tmp_path)
    for line in ("roll", "pick 1", "roll", "pick 1"):
        term.send(line)
    sheet = term.send("sheet")
    assert "saved to" in term.send(f"save {tmp_path / 'game.json'}")
    term.close()
    again = Terminal(["--resume", str(tmp_path / "game.json"), "--lang", "en"], tmp_path)
    assert again.send("sheet").strip() == sheet.strip()
    again.close()


@pytest.mark.slow
def test_a_whole_game_of_general_from_real_dice(tmp_path):
    out = type_whole_game("general", tmp_path, players=3, seed=4)
    assert re.search(r"the game is over; Player \d wins", out), out[-500:]


@pytest.mark.slow
def test_a_whole_game_of_poker_programs_from_real_dice(tmp_path):
    out = type_whole_game("poker-programs", tmp_path, players=2, seed=2)
    assert re.search(r"\d+\. Player \d: -?\d+ \(settlement [+-]\d+\.\d\d\)", out)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["yahtzee", "yatzy"])
def test_a_whole_reference_game_from_real_dice(ruleset, tmp_path):
    type_whole_game(ruleset, tmp_path, players=2, seed=3)


@pytest.mark.slow
def test_a_whole_game_of_poker_school_from_real_dice(tmp_path):
    type_whole_game("poker-school", tmp_path, players=2, seed=5)


@pytest.mark.slow
def test_a_whole_game_of_ryzykant_from_real_dice(tmp_path):
    type_whole_game("ryzykant", tmp_path, players=3, seed=6)


@pytest.mark.slow
def test_russian_and_polish_labels(tmp_path):
    term = Terminal(["general", "--players", "2", "--objective", "score", "--seed", "1",
                     "--lang", "ru", "--names", "Аня,Борис"], tmp_path)
    assert "Аня: кости?" in term.opening
    out = term.send("dice 2 2 4 6 6")
    assert "бросок 1 из 3" in out and "оставить 6 6 (перебросить 3; ещё 2 броска)" in out
    out = term.send("write шестерки")
    assert "шестерки=12" in out
    term.close()
    term = Terminal(["ryzykant", "--players", "2", "--no-advice", "--lang", "pl"], tmp_path)
    assert "kości?" in term.opening
    term.close()


@pytest.mark.slow
def test_approximate_advice_shows_each_loss_error_in_the_players_language(
        quick_approximate_tables, monkeypatch):
    """Each choice of approximate advice with its loss's error and, where the values cannot
    tell it from the best, a close call; the values' quality in the players' language."""
    from dicewise import api

    cache, ruleset, options = quick_approximate_tables
    term = Terminal([ruleset, *(f"--option={o}" for o in options), "--players", "2",
                     "--lang", "ru", "--top", "9"], cache)
    out = term.send("dice 1 1 2 2 5")
    term.close()
    monkeypatch.setenv("DICEWISE_CACHE", str(cache))
    advice = api.advise(ruleset, dice=[1, 1, 2, 2, 5], options=options)
    error = f"{advice.error_estimate:.3g}".replace(".", ",")  # Russian's decimal comma
    assert f"(приближённо; оценка ошибки ±{error})" in out
    rows = re.findall(r"^ +(\d+) +(-?[\d,]+) +([\d,]+) +±([\d,]+)  (.*)$", out, re.M)
    assert len(rows) == min(9, len(advice.choices))
    assert sum(c.close_call for c in advice.choices) >= 2
    for (i, expected, loss, error, label), c in zip(rows, advice.choices):
        assert tuple(float(x.replace(",", ".")) for x in (expected, loss, error)) == pytest.approx(
            (c.expected, c.loss, c.loss_error), abs=0.005 + 1e-7)
        assert label.endswith("(почти равны)") == c.close_call, label


def test_ctrl_c_leaves_without_a_traceback(tmp_path):
    term = Terminal(["general", "--players", "2", "--no-advice", "--lang", "en"], tmp_path)
    term.child.sendintr()
    term.child.expect(pexpect.EOF)
    assert "Traceback" not in term.child.before
    term.child.close()
    assert term.child.exitstatus == 0
    assert not list(tmp_path.glob("dicewise-*.json"))  # no move made: nothing to keep


@pytest.mark.parametrize("key", ["ctrl-c", pytest.param("ctrl-d", marks=pytest.mark.slow)])
def test_a_stray_ctrl_c_or_ctrl_d_keeps_the_game(key, tmp_path):
    """One key must not lose a game: moves no save holds are saved in the working folder, and
    the line printed resumes it where it stood."""
    term = Terminal(["general", "--players", "2", "--no-advice", "--lang", "pl"], tmp_path)
    term.send("dice 1 2 3 4 5")
    term.send("write straight")
    sheet = term.send("sheet")
    term.child.sendintr() if key == "ctrl-c" else term.child.sendeof()
    term.child.expect(pexpect.EOF)
    said = term.child.before.replace("\r\n", "\n")
    term.child.close()
    assert term.child.exitstatus == 0 and "Traceback" not in said
    (saved,) = tmp_path.glob("dicewise-general-*.json")
    assert f"gra jest zapisana; aby ją wznowić:\n    dicewise play --resume {saved.name}" in said
    again = Terminal(["--resume", saved.name], tmp_path)
    assert again.send("sheet") == sheet
    again.close()


def test_a_game_ended_by_a_typo_and_left_by_ctrl_d_is_saved_and_undone(tmp_path):
    """Five sixes typed by mistake end General at once; Ctrl+D then leaves a file, and the
    resumed game takes the typo back."""
    term = Terminal(["general", "--players", "2", "--no-advice"], tmp_path)
    term.send("dice 6 6 6 6 6")
    term.child.sendeof()
    term.child.expect(pexpect.EOF)
    term.child.close()
    (saved,) = tmp_path.glob("dicewise-general-*.json")
    again = Terminal(["--resume", saved.name], tmp_path)
    assert "the dice?" in again.send("undo")
    again.close()


@pytest.mark.slow
def test_ctrl_c_while_the_advice_is_worked_out_saves_on_a_line_of_its_own(tmp_path,
                                                                         monkeypatch):
    """Ctrl+C while a command runs (the advice of a table of five played to win, seconds):
    the game is saved, and what is said of it starts a line of its own, not the line of the
    ^C the terminal echoed."""
    import time

    from dicewise import api

    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path))
    api.solve("general")  # the table at hand: what the key stops is the advice
    term = Terminal(["general", "--players", "5", "--objective", "win", "--lang", "ru"],
                    tmp_path)
    term.child.sendline("dice 1 2 3 4 5")
    time.sleep(0.5)
    term.child.sendintr()
    term.child.expect(pexpect.EOF)
    said = term.child.before.replace("\r\n", "\n")
    term.child.close()
    assert term.child.exitstatus == 130 and "Traceback" not in said
    (saved,) = tmp_path.glob("dicewise-general-*.json")
    assert f"\nпартия сохранена; продолжить её:\n    dicewise play --resume {saved.name}" \
        in said, said
    assert "^Cпартия" not in said


@pytest.mark.slow
def test_a_player_of_poker_school_reads_the_rules_and_saves_at_home(tmp_path):
    """In Russian at a real terminal: help lists the game's own commands (no split), a pair
    of ones is refused by the seed's minimum, and ``save ~/...`` goes to the home folder."""
    home = tmp_path / "home"
    home.mkdir()
    term = Terminal(["poker-school", "--players", "2", "--no-advice", "--lang", "ru"], tmp_path,
                    home=home)
    helped = term.send("help")
    assert "cross ROW" in helped and "keep D..." in helped and "split" not in helped
    term.send("dice 1 1 2 3 4")
    refused = term.send("write пара")
    assert "требует не меньше 10 очков до удвоения (эти кости дают 2)" in " ".join(
        refused.split()), refused  # a refusal is broken at its spaces to fit 80 columns
    assert "сохранено в" in term.send("save ~/game.json")
    assert TableGame.load(home / "game.json").state()["dice"] == [1, 1, 2, 3, 4]
    term.close()
