"""What a player reads at the table (``dicewise play`` from a pipe): the sheets after every
write, a draw said as one, and the settings a resumed game keeps."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dicewise import api, i18n
from dicewise.cli.main import cli
from dicewise.solver.registry import get_game

pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process


def play(*args, lines=()):
    return CliRunner().invoke(cli, ["play", *args], input="".join(f"{l}\n" for l in lines),
                              prog_name="dicewise")


def test_a_solitaire_game_shows_the_sheet_after_each_write():
    result = play("yatzy", "--players", "1", "--no-advice", "--lang", "en",
                  lines=["dice 3 3 3 1 2", "write threes", "quit"])
    assert result.exit_code == 0
    assert "* Player 1: 9 points — threes=9" in result.output


def test_long_names_open_the_game_on_lines_of_80_columns():
    names = "Александра Константиновна,Bartłomiej Wierzbicki-Kowalski,Christopher Alexander,D"
    result = play("poker-programs", "--players", "4", "--names", names, "--no-advice",
                  lines=["quit"])
    assert result.exit_code == 0
    assert max(map(len, result.output.splitlines())) <= 80, result.output
    assert "Bartłomiej Wierzbicki-Kowalski,\n    Christopher Alexander" in result.output


def test_the_help_of_a_game_of_splits_speaks_of_no_keep():
    """Ryzykant throws all five dice every roll: its help says so, and lists no keep."""
    result = play("ryzykant", "--players", "2", "--no-advice", "--lang", "en",
                  lines=["help", "quit"])
    assert result.exit_code == 0
    assert "dice D D D D D — the five dice showing" in result.output
    assert "keep" not in result.output.lower()


def test_equal_totals_of_two_players_are_a_draw():
    """RULES.md: equal totals draw (one winner, or two said as winners, would misreport it)."""
    boxes = get_game("general").rules({}).category_names
    lines = [line for box in boxes for line in ("dice 2 2 3 4 6", f"write {box}") * 2]
    result = play("general", "--players", "2", "--no-advice", "--lang", "en", lines=lines)
    assert result.exit_code == 0
    assert "the game is over: a draw (Player 1, Player 2)" in result.output
    assert "winners" not in result.output
    ru = play("general", "--players", "2", "--no-advice", "--lang", "ru", lines=lines)
    assert "игра окончена: ничья (Игрок 1, Игрок 2)" in ru.output


def test_a_resumed_game_keeps_its_objective_and_speaks_the_new_language(tmp_path):
    saved = tmp_path / "g.json"
    result = play("general", "--players", "2", "--no-advice", "--lang", "en",
                  lines=["dice 1 2 3 4 6", f"save {saved}", "quit"])
    assert result.exit_code == 0 and saved.exists()
    refused = play("--resume", str(saved), "--objective", "win")
    assert refused.exit_code == 2 and "--resume takes the game's own settings" in refused.output
    resumed = play("--resume", str(saved), "--lang", "ru", lines=["sheet", "quit"])
    assert resumed.exit_code == 0 and "Игрок 1" in resumed.output
    assert "Player 1" not in resumed.output


def test_a_game_kept_without_advice_resumes_with_it(tmp_path):
    """A table that kept the score only (--no-advice) may ask for advice when it goes on
    (--advice); without either flag the saved game's setting stands."""
    saved = tmp_path / "g.json"
    play("poker-programs", "--players", "2", "--no-advice", "--lang", "en",
         lines=["dice 1 2 3 4 6", f"save {saved}", "quit"])
    off = play("--resume", str(saved), lines=["advise", "quit"]).output
    assert "advice is off" in off
    on = play("--resume", str(saved), "--advice", "--top", "2", lines=["advise", "quit"])
    assert on.exit_code == 0 and "advice is off" not in on.output
    assert [line.split()[0] for line in on.output.splitlines()
            if line.split()[:1] in (["1"], ["2"])][:2] == ["1", "2"]


def test_a_resumed_game_refuses_in_its_own_language_and_goes_on_in_a_new_one(tmp_path):
    """The flags --resume does not take are refused in the saved game's language (the file
    is read first); a saved language this dicewise does not speak gives way to --lang."""
    saved = tmp_path / "g.json"
    play("general", "--players", "2", "--no-advice", "--lang", "ru",
         lines=["dice 1 2 3 4 6", f"save {saved}", "quit"])
    refused = play("--resume", str(saved), "--players", "3")
    assert refused.exit_code == 2 and "--resume берёт настройки самой партии" in refused.stderr
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["lang"] = "xx"
    saved.write_text(json.dumps(data), encoding="utf-8")
    unknown = play("--resume", str(saved), lines=["quit"])
    assert unknown.exit_code == 2
    assert unknown.stderr == "dicewise: error: unknown language 'xx' (languages: en, ru, pl)\n"
    resumed = play("--resume", str(saved), "--lang", "pl", lines=["sheet", "quit"])
    assert resumed.exit_code == 0 and "Polecenia: help" in resumed.output


def test_a_game_resumes_with_its_ruleset_named_as_the_readme_shows(tmp_path):
    saved = tmp_path / "game.json"
    play("general", "--players", "1", "--no-advice", lines=["dice 1 2 3 4 5", "write straight",
                                                            f"save {saved}", "quit"])
    resumed = play("general", "--resume", str(saved), lines=["sheet", "quit"])
    assert resumed.exit_code == 0 and "straight=25" in resumed.output
    other = play("yahtzee", "--resume", str(saved))
    assert other.exit_code == 2
    assert other.stderr == "dicewise: error: the saved game is a game of general, not yahtzee\n"
    missing = play("general", "--resume", str(tmp_path / "none.json"))
    assert missing.exit_code == 2 and "cannot read" in missing.stderr


def test_a_solitaire_game_ends_on_its_score_not_a_winner():
    from dicewise import api

    lines = [c for box in api.describe("general")["categories"]
             for c in ("dice 1 2 3 4 6", f"write {box}")]
    result = play("general", "--players", "1", "--no-advice", "--lang", "en", lines=lines)
    assert result.exit_code == 0 and "the game is over: Player 1 scored 16" in result.output
    assert "winners" not in result.output


@pytest.mark.slow  # the win policy's tables for a table of three
def test_the_table_heads_a_race_of_three_by_the_share_of_the_win_as_advise_does():
    """Among three players a choice's value is its share of the win, not P(win)+½P(draw)."""
    result = play("general", "--players", "3", "--objective", "win", "--seed", "1",
                  "--lang", "en", lines=["dice 3 3 5 6 6", "quit"])
    assert result.exit_code == 0
    assert "share of win" in result.output and "P(win)" not in result.output


@pytest.mark.slow  # General's target table
def test_the_table_marks_the_expected_score_choice_as_advise_does():
    """Playing for a target, the choice the mean would take is marked where it is not the
    best (the game at the table showed no mark, ``advise`` did)."""
    args = ("general", "--players", "1", "--target", "150", "--top", "3")
    out = play(*args, "--lang", "en", lines=["dice 1 1 1 1 2", "quit"]).output
    first, second, third = (out.index(f"\n   {k} ") for k in (1, 2, 3))
    assert "write four for 45" in out[first:second] and "←" not in out[:second]
    assert "keep 1 1 1 1" in out[second:third]
    assert "← the expected-score choice" in out[second:third]
    shown = play(*args, "--lang", "ru", lines=["dice 1 1 1 1 2", "quit"]).output
    assert "← ход на наибольшее ожидание" in shown


def test_one_winner_is_named_as_the_winner_in_every_language():
    boxes = get_game("general").rules({}).category_names
    lines = [line for box in boxes for line in ("dice 6 6 6 6 5", f"write {box}",
                                                  "dice 1 1 2 2 3", f"write {box}")]
    for lang, said in (("en", "the game is over; Player 1 wins"),
                       ("ru", "игра окончена; победитель: Игрок 1"),
                       ("pl", "gra skończona; wygrywa Gracz 1")):
        result = play("general", "--players", "2", "--no-advice", "--lang", lang, lines=lines)
        assert result.exit_code == 0 and said in result.output, result.output[-300:]


@pytest.mark.slow  # General's target table
def test_the_table_says_in_its_language_when_the_target_is_certain():
    """From the empty General sheet 0 points is certain: the advice says so once and ranks
    by the expected score (the straight for 25 first), as ``advise --target`` does."""
    result = play("general", "--players", "1", "--target", "0", "--lang", "pl", "--top", "2",
                  lines=["dice 1 2 3 4 5", "quit"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    said = [i for i, line in enumerate(lines) if line.startswith("cel 0 jest stąd pewny")]
    first = next(line for line in lines[said[0]:] if line.split()[:1] == ["1"])
    assert len(said) == 1 and "„strit”: 25" in first


def test_leaving_an_unsaved_game_says_it_is_lost(tmp_path):
    """quit (or the end of the input) after moves no save holds: one line says so; after a
    save, or before any move, nothing."""
    lost = "the game is not saved: it ends here (save FILE before quit keeps it)"
    assert play("general", "--players", "2", "--objective", "score", "--seed", "3",
                lines=["roll", "quit"]).output.rstrip().endswith(lost)
    assert play("general", "--players", "2", "--objective", "score", "--seed", "3",
                lines=["roll"]).output.rstrip().endswith(lost)
    ended = play("general", "--players", "2", "--objective", "score", "--lang", "en",
                 lines=["dice 6 6 6 6 6", "quit"]).output  # ended, its typo still undoable
    assert "wins the game at once" in ended and ended.rstrip().endswith(lost)
    for lines in (["quit"], ["roll", f"save {tmp_path / 'g.json'}", "quit"]):
        assert lost not in play("general", "--players", "2", "--objective", "score",
                                "--seed", "3", lines=lines).output
    ru = play("general", "--players", "2", "--objective", "score", "--seed", "3", "--lang", "ru",
              lines=["roll", "quit"]).output
    assert ru.rstrip().endswith("партия не сохранена и на этом заканчивается (save FILE перед "
                                "quit сохранит её)")


@pytest.mark.parametrize("ruleset, options, lines", [
    pytest.param("yahtzee", [], ["dice 6 6 6 6 6", "write yahtzee", "dice 6 6 6 6 6", "write sixes"],
                 marks=pytest.mark.slow),  # Yahtzee's solve: seconds
    ("poker-school", ["-o", "columns=1", "-o", "school_cross_erases=false"],
     ["dice 6 6 6 6 6", "write sixes"])])
def test_a_sheet_line_after_its_dash_is_what_advise_takes(ruleset, options, lines):
    """What no cell shows (Yahtzee's bonus, poker-school's premiums) goes beside the points,
    so that the sheet a player copies from the table is one ``advise --sheet`` reads."""
    out = play(ruleset, *options, "--players", "1", "--no-advice", lines=lines).output
    last = [line for line in out.splitlines() if line.startswith("* ")][-1]
    points, sheet = last.split(" — ")
    assert points.endswith(")") and "(" in points, last  # the bonus or the premiums
    advised = CliRunner().invoke(cli, ["advise", ruleset, *options, "--roll", "1", "--dice", "1",
                                       "2", "3", "4", "5", "--sheet", sheet, "--json"])
    assert advised.exit_code == 0, advised.output


def test_a_game_won_at_once_says_why():
    """General's big general ends the game: the table says what the throw was."""
    out = play("general", "--players", "2", "--objective", "score", "--lang", "pl",
               "--names", "Ola,Jan", lines=["dice 6 6 6 6 6"]).output
    assert "Ola wygrywa od razu: pięć jednakowych w pierwszym rzucie" in out


def test_a_taken_prize_shown_in_russian_or_polish_is_read_back_by_advise():
    """poker-school: the sheet a table shows in Russian or Polish, its taken= entry included
    (``взяли соперники=пара``, ``zajęte przez rywali=para``), is notation ``advise --sheet``
    reads, as the English one is: not an unknown row."""
    lines = [line for _ in range(3) for line in ("dice 6 6 1 2 3", "write pair") * 2]
    shown = {}
    for lang in ("ru", "pl"):
        result = play("poker-school", "--players", "2", "--no-advice", "--lang", lang,
                      lines=lines + ["quit"])
        assert result.exit_code == 0
        last = [line for line in result.output.splitlines() if " — " in line][-1]
        shown[lang] = last.split(" — ", 1)[1]  # the second player's sheet, as shown
    assert "взяли соперники=пара" in shown["ru"] and "zajęte przez rywali=para" in shown["pl"]

    def advise(sheet):  # no rival earned the pair: the table refuses the taken= entry
        return CliRunner().invoke(cli, ["advise", "poker-school", "--players", "2", "--roll",
                                        "1", "--dice", "1", "2", "3", "4", "5", "--sheet", sheet,
                                        "--opponent-sheet", "ones=3/3/3", "--lang", "en"],
                                  prog_name="dicewise")

    english = advise("pair=24/24/24,taken=pair")
    assert english.exit_code == 2 and "taken= lists pair" in english.output
    for lang in ("ru", "pl"):
        answer = advise(shown[lang])
        assert (answer.exit_code, answer.output) == (english.exit_code, english.output)
    # a column's 60 as the sheets show it: "столбец 1", "kolumna 1"
    english = advise("pair=24/24/24,taken=pair/column1")
    assert english.exit_code == 2 and "taken= lists pair, column1" in english.output
    for sheet in ("pair=24/24/24,взяли соперники=пара/столбец 1",
                  "pair=24/24/24,zajęte przez rywali=para/kolumna 1"):
        answer = advise(sheet)
        assert (answer.exit_code, answer.output) == (english.exit_code, english.output)


@pytest.mark.slow  # advise solves the whole of Yahtzee
def test_a_counter_shown_in_russian_or_polish_is_read_back_by_advise():
    """Yahtzee: the sheet a table shows in Russian or Polish, its bonus Yahtzees counted as
    ``бонусные покеры=1`` (``dodatkowe generały=1``), is notation ``advise --sheet`` reads."""
    lines = ["dice 6 6 6 6 6", "write yahtzee", "dice 6 6 6 6 6", "write sixes", "quit"]
    shown = {}
    for lang in ("ru", "pl"):
        result = play("yahtzee", "--players", "1", "--no-advice", "--lang", lang, lines=lines)
        assert result.exit_code == 0
        shown[lang] = [line for line in result.output.splitlines() if " — " in line][-1]
        shown[lang] = shown[lang].split(" — ", 1)[1].split(";")[0]  # the sheet, as shown
    assert "бонусные покеры=1" in shown["ru"] and "dodatkowe generały=1" in shown["pl"]

    def advise(sheet):
        return CliRunner().invoke(cli, ["advise", "yahtzee", "--roll", "2", "--dice", "6", "6",
                                        "6", "2", "1", "--sheet", sheet, "--lang", "en"],
                                  prog_name="dicewise")

    english = advise("sixes=30,yahtzee=50,yahtzee_bonus=1")  # stdout: the advice, no progress
    assert english.exit_code == 0 and "180 points written" in english.stdout
    for lang in ("ru", "pl"):
        answer = advise(shown[lang])
        assert (answer.exit_code, answer.stdout) == (english.exit_code, english.stdout)


def test_a_name_that_is_no_text_is_refused_before_the_game(tmp_path):
    """A name whose bytes are no UTF-8 (typed in a terminal of another encoding) reaches the
    program as halves of characters, which no saved game can hold: refused in one line at
    the start, not a traceback at the first save."""
    result = play("general", "--names", "Ann,\udcff", "--no-advice", "--lang", "en",
                  lines=["roll", f"save {tmp_path / 'g.json'}"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.startswith("dicewise: error: a player's name is one line of printable")
    assert len(result.stderr.splitlines()) == 1


def test_a_pick_says_what_it_played_even_a_choice_not_shown():
    """`pick K` plays the K-th choice of the whole ranking; past the --top shown, the player
    still reads which one went on the sheet (and programs its action)."""
    advice = api.advise("general", dice=[1, 2, 2, 5, 6], roll=1)
    ninth = advice.choices[8]
    result = play("general", "--players", "1", "--top", "2", "--lang", "en",
                  lines=["dice 1 2 2 5 6", "pick 9", "quit"])
    assert result.exit_code == 0
    assert f"played: {ninth.label}" in result.output
    answers = play("general", "--players", "1", "--json",
                   lines=["dice 1 2 2 5 6", "pick 9", "quit"]).output.splitlines()
    assert json.loads(answers[-2])["picked"]["action"] == ninth.action
    ru = play("general", "--players", "1", "--top", "2", "--lang", "ru",
              lines=["dice 1 2 2 5 6", "pick 9", "quit"])
    assert "сыграно: оставить" in ru.output


def test_picking_past_the_last_choice_counts_the_choices_in_the_form_of_their_number():
    """At roll 3 with one box open the advice has one choice: "there is 1 choice", not
    "there are 1 choices"; Russian and Polish say each count in its own form."""
    from dicewise.play.session import TableGame

    game = TableGame.new("general", players=1, lang="en", advice=False)
    for box in get_game("general").rules({}).category_names[:-1]:
        assert game.apply("dice 1 2 3 4 6")["ok"] and game.apply(f"write {box}")["ok"]
    for line in ("dice 1 2 3 4 6", "keep nothing") * 2 + ("dice 1 2 3 4 6",):
        assert game.apply(line)["ok"]
    game.table.advice = True
    assert game.apply("pick 2")["error"] == "there is 1 choice, not 2"
    for lang, said in (("ru", "в подсказке 1 вариант, а не 2"),
                       ("pl", "w podpowiedzi jest 1 ruch, nie 2")):
        game.speak(lang)
        assert game.apply("pick 2")["error"] == said


@pytest.mark.parametrize("n,ru,pl", [
    (2, "в подсказке 2 варианта", "w podpowiedzi są 2 ruchy"),
    (5, "в подсказке 5 вариантов", "w podpowiedzi jest 5 ruchów"),
    (21, "в подсказке 21 вариант", "w podpowiedzi jest 21 ruchów"),
    (22, "в подсказке 22 варианта", "w podpowiedzi są 22 ruchy"),
    (25, "в подсказке 25 вариантов", "w podpowiedzi jest 25 ruchów")])
def test_the_choices_a_pick_can_take_are_counted(n, ru, pl):
    from dicewise import i18n

    counted = i18n.Plural("there is {n} choice, not {k}", "there are {n} choices, not {k}", n,
                          n=n, k=99)
    assert counted == f"there are {n} choices, not 99"
    assert counted.in_language(i18n.translator("ru")) == f"{ru}, а не 99"
    assert counted.in_language(i18n.translator("pl")) == f"{pl}, nie 99"


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_a_long_sheet_is_broken_between_its_entries_to_fit_80_columns(lang):
    """A poker-school sheet runs to hundreds of columns: it is shown on lines of at most 80,
    broken after an entry's comma (never inside one), and read back whole it is the sheet."""
    rows = api.describe("poker-school")["rows"]
    lines = [line for row in rows for line in ("dice 1 2 3 4 6", f"cross {row}")]
    result = CliRunner().invoke(cli, ["play", "poker-school", "--players", "1", "--no-advice",
                                      "--lang", lang],
                                input="".join(f"{line}\n" for line in lines + ["quit"]),
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0
    out = result.output.splitlines()
    assert max(map(len, out)) <= 80
    head = max(i for i, line in enumerate(out) if " — " in line)
    more = [line for line in out[head + 1:] if line.startswith("    ")]
    assert len(more) >= 1 and out[head].endswith(",")
    sheet = " ".join([out[head].split(" — ", 1)[1]] + [line.strip() for line in more])
    assert sheet.split(", ") == [f"{i18n.box_label('poker-school', row, lang)}=x"
                                 for row in rows]


def test_the_example_games_of_a_simulation_fit_80_columns():
    """``simulate`` shows poker-school's first games with their sheets, broken as the table's."""
    result = CliRunner().invoke(cli, ["simulate", "poker-school", "--games", "1", "--policy",
                                      "greedy", "--lang", "ru"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    out = result.stdout.splitlines()
    first = next(i for i, line in enumerate(out) if line.startswith("партия 1: лист "))
    assert out[first + 1].startswith("    ") and max(map(len, out)) <= 80


@pytest.mark.parametrize("lang, said", [("en", "unknown row 'nosuchrow' (rows: ones, twos,"),
                                        ("ru", "нет строки 'nosuchrow' (строки: единицы,"),
                                        ("pl", "nie ma wiersza 'nosuchrow' (wiersze: jedynki,")])
def test_poker_school_names_its_rows_rows_as_its_rules_do(lang, said):
    """poker-school's rules speak of rows (строка, wiersz): so does its unknown-name refusal."""
    out = play("poker-school", "--players", "1", "--no-advice", "--lang", lang,
               lines=["dice 1 1 2 3 4", "write nosuchrow", "quit"]).output
    assert said in out, out


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_a_refusal_that_lists_the_boxes_fits_80_columns(lang):
    """An unknown box is refused with every box named (180 columns in Russian and Polish):
    broken between the names, read back whole it is the refusal."""
    result = CliRunner().invoke(cli, ["play", "yatzy", "--players", "1", "--no-advice",
                                      "--lang", lang],
                                input="dice 1 2 3 4 5\nwrite nosuchbox\nquit\n",
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0
    out = result.output.splitlines()
    first = next(i for i, line in enumerate(out) if "'nosuchbox'" in line)
    more = [line for line in out[first + 1:] if line.startswith("    ")]
    assert more and max(map(len, out)) <= 80
    refusal = " ".join([out[first]] + [line.strip() for line in more])
    tr = i18n.translator(lang)
    boxes = ", ".join(i18n.box_label("yatzy", box, lang)
                      for box in api.describe("yatzy")["categories"])
    assert refusal == tr("not done: {error}").format(error=tr(
        "unknown box {box!r} (boxes: {boxes})").format(box="nosuchbox", boxes=boxes))


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_a_refusal_keeps_what_it_quotes_on_one_line(lang):
    """A split typed wrong is quoted back whole on the line it moved to, not broken at its
    spaces ('1+2 / 3+4' read as two things)."""
    result = CliRunner().invoke(cli, ["play", "ryzykant", "--players", "3", "--seed", "1",
                                      "--no-advice", "--lang", lang],
                                input="dice 1 2 3 4 6\nsplit 1+2 3 4\nsplit 1+2+3 4 6\nquit\n",
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0
    out = result.output.splitlines()
    assert max(map(len, out)) <= 80
    assert any("'1+2 3 4'" in line for line in out), result.output
    assert any("'1+2+3 4 6'" in line for line in out), result.output
    # the rules' refusals are sentences: broken at their spaces, commas or none
    school = CliRunner().invoke(cli, ["play", "poker-school", "--players", "1", "--no-advice",
                                      "--lang", lang],
                                input="dice 1 2 3 4 6\nwrite ones\nwrite pair\nwrite chance\n"
                                      "quit\n", env={"COLUMNS": "200"})
    assert school.exit_code == 0 and max(map(len, school.output.splitlines())) <= 80


@pytest.mark.parametrize("ruleset,line,said", [
    ("general", "split 1+2", "this game has no splits: keep dice or write a box"),
    ("general", "split", "this game has no splits: keep dice or write a box"),
    ("ryzykant", "keep 7", "this game takes splits only, as split 3+4 5+6 2"),
    ("ryzykant", "keep x y", "this game takes splits only, as split 3+4 5+6 2"),
    ("ryzykant", "split 1+2", "split takes two pairs and a fifth die, as split 3+4 5+6 2, "
                              "not '1+2'"),
    ("ryzykant", "split 1+9 3+4 5", "split: a die shows 1..6, not '9'"),  # the die is said
    ("ryzykant", "split 1+2 3+4 0", "split: a die shows 1..6, not '0'"),
    ("general", "keep 7", "keep: a die shows 1..6, not '7'")])
def test_a_move_the_game_has_no_use_for_is_refused_as_such_however_it_is_typed(ruleset, line,
                                                                                  said):
    """General was told how to type a split, Ryzykant how to type the dice of a keep."""
    from dicewise.play.session import TableGame

    game = TableGame.new(ruleset, players=1, lang="en", advice=False)
    assert game.apply("dice 1 2 3 4 5")["ok"]
    assert game.apply(line)["error"] == said
    if said.startswith("this game"):
        game.speak("ru")
        assert game.apply(line)["error"] == {
            "general": "в этой игре бросок не делят: оставьте кости или запишите графу",
            "ryzykant": "в этой игре бросок только делят, например split 3+4 5+6 2"}[ruleset]


@pytest.mark.parametrize("lang, said", [
    ("ru", {"split": "в этой игре бросок не делят: оставьте кости или запишите их в строку",
            "write": "write: назовите строку, например write шестерки",
            "help": "write BOX — записать кости в строку BOX (и остановиться)",
            "last roll": "бросков больше нет: запишите кости в строку или поставьте крест"}),
    ("pl", {"split": "w tej grze nie dzieli się rzutu: zostaw kości albo zapisz je w wierszu",
            "write": "write: podaj wiersz, np. write szóstki",
            "help": "write BOX — zapisz kości w wierszu BOX (też: stop i zapisz)",
            "last roll": "nie ma już rzutów: zapisz kości w wierszu albo postaw krzyżyk"})])
def test_poker_school_at_the_table_names_its_rows_as_its_rules_do(lang, said):
    """A poker-school row is «строка» / «wiersz» (as its sheet's refusals and crosses say),
    in what the table refuses and in its help, not the «графа» / «rubryka» of General."""
    from dicewise.play.session import TableGame

    game = TableGame.new("poker-school", players=1, lang=lang, advice=False,
                         options={"columns": 1, "school_cross_erases": False})
    assert game.apply("dice 1 2 3 4 5")["ok"]
    assert game.apply("split 1+2 3+4 5")["error"] == said["split"]
    assert game.apply("write")["error"] == said["write"]
    assert game.apply("help")["help"]["write"] == said["help"]
    for _ in range(2):  # the third roll's dice: a keep has no roll left
        assert game.apply("keep 1")["ok"] and game.apply("dice 1 2 3 4 5")["ok"]
    assert game.apply("keep 1")["error"] == said["last roll"]
    general = TableGame.new("general", players=1, lang=lang, advice=False)
    assert general.apply("help")["help"]["write"] != said["help"]


def test_a_choice_too_long_for_80_columns_goes_on_under_the_choices():
    """Russian "keep nothing" with its rolls left runs a row of advice to 82 columns: the row
    is broken before its parenthesis (inside it only where that is too wide for a line of
    its own), and goes on under the choices; a count and its noun ("2 броска") stay
    together."""
    result = CliRunner().invoke(cli, ["play", "general", "--players", "1", "--lang", "ru",
                                      "--top", "50"], input="dice 1 2 3 4 6\nquit\n",
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0
    out = result.output.splitlines()
    assert max(map(len, out)) <= 80
    i = next(i for i, line in enumerate(out) if "ничего не оставлять" in line)
    column = out[i].index("ничего")
    assert out[i].endswith("ничего не оставлять")
    assert out[i + 1] == " " * column + "(перебросить все пять; ещё 2 броска)"


def test_the_rows_of_two_players_playing_to_win_fit_80_columns_in_russian(tmp_path):
    """Two players of General playing to win: the values are headed P(победы)+½P(ничьей), and
    every row of a keep ran past 80 columns with "осталось 2 броска", broken in two.  The
    heading reads on over the numbers' column and the rolls left are "ещё 2 броска": each
    row of a keep is one line, but keep nothing's, the longest, which goes on under it."""
    from dicewise.play.session import TableGame

    game = TableGame.new("general", players=2, lang="ru", advice=False, objective="win", seed=1)
    for box in ("ones", "twos", "threes", "fours", "fives", "sixes", "straight"):
        for _ in range(2):  # late enough for the solved sub-game: no race table to build
            assert game.apply("dice 2 2 4 6 6")["ok"] and game.apply(f"write {box}")["ok"]
    saved = tmp_path / "late.json"
    saved.write_text(json.dumps({**game.to_json(), "advice": True}), encoding="utf-8")
    result = play("--resume", str(saved), "--top", "50", lines=["dice 2 2 4 6 6", "quit"])
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert "P(победы)+½P(ничьей)" in out[out.index("Игрок 1: бросок 1 из 3, кости 2 2 4 6 6") + 1]
    keeps = [line for line in out if "оставить " in line]  # not keep nothing, "оставлять"
    assert len(keeps) == 17 and all(line.endswith("ещё 2 броска)") for line in keeps)
    assert max(map(len, out)) <= 80


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_help_fits_80_columns_and_lists_every_command(lang):
    """Each command's help goes on, indented under its first line, where the language makes
    it longer than a terminal (Russian's keep ran to 92 columns)."""
    result = play("poker-school", "--players", "1", "--no-advice", "--lang", lang,
                  lines=["help", "quit"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80
    starts = [line.split()[0] for line in lines if line.startswith("  ") and line[2] != " "]
    assert {"keep", "write", "cross", "undo", "save", "quit"} <= set(starts)
    assert all(line.startswith("      ") for line in lines if line.startswith("   "))


def test_a_long_name_at_the_prompt_still_fits_80_columns():
    """Names may have 40 characters: the prompt for the dice (and what it kept) breaks
    between its entries, as every line a player reads does."""
    name = "Maximilian Alexander von Hohenzollern-Si"
    out = play("general", "--names", f"{name},Bob", "--no-advice", "--lang", "pl",
               lines=["dice 1 2 3 4 5", "keep 1 2 3 4"]).output
    assert max(map(len, out.splitlines())) <= 80, out
    assert f"{name}: kości? (dice D D D D D albo roll)" in " ".join(out.split("\n    "))


def test_two_tables_left_in_one_second_keep_both_games(tmp_path, monkeypatch):
    """Games rescued in the same second (two tables in one folder, Ctrl+C in both) get two
    files, each its own game: the name is claimed as the file is written."""
    from dicewise.cli import play_along
    from dicewise.play.session import TableGame

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(play_along.time, "strftime", lambda fmt: "20261207-160732")
    # both tables looked before either wrote: a name free when looked at is no promise
    monkeypatch.setattr(play_along.Path, "exists", lambda self, **kw: False)
    games = []
    for dice, box in (("1 2 3 4 5", "straight"), ("6 6 6 6 1", "four")):
        game = TableGame.new("general", players=3, advice=False)
        assert game.apply(f"dice {dice}")["ok"] and game.apply(f"write {box}")["ok"]
        games.append(game)
    paths = [play_along._rescued(game) for game in games]
    assert paths == ["dicewise-general-20261207-160732.json",
                     "dicewise-general-20261207-160732-1.json"]
    for path, game in zip(paths, games):
        assert TableGame.load(path).to_json() == game.to_json()


def test_a_saved_game_of_an_unknown_ruleset_lists_the_games_play_has(tmp_path, monkeypatch):
    """As `play nosuch` does: the games one can sit down to, not Risk."""
    monkeypatch.chdir(tmp_path)
    saved = CliRunner().invoke(cli, ["play", "general", "--names", "a,b"],
                               input="save g.json\nquit\n")
    assert saved.exit_code == 0, saved.output
    data = json.loads((tmp_path / "g.json").read_text())
    (tmp_path / "g.json").write_text(json.dumps({**data, "ruleset": "nosuch"}))
    for args in (["play", "--resume", "g.json"], ["play", "nosuch"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2 and "unknown ruleset 'nosuch'" in result.stderr
        assert "general" in result.stderr and "risk" not in result.stderr, result.stderr


def test_sigterm_at_the_prompt_saves_the_game_and_ends_as_terminated(tmp_path):
    """``kill`` during a game played through a pipe (a supervisor's): the moves are saved,
    though no player typed Ctrl+C, and the command ends as a terminated one does, so the
    script that sent it sees status 143, not success."""
    import os
    import signal
    import subprocess
    import sys

    game = subprocess.Popen([sys.executable, "-m", "dicewise.cli", "play", "general", "--players",
                             "2", "--seed", "1", "--no-advice"], cwd=tmp_path,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "DICEWISE_CACHE": str(tmp_path / "cache")})
    try:
        game.stdin.write(b"roll\n")
        game.stdin.flush()
        shown = b""
        while b"advice is off" not in shown:  # the roll made: a move no save holds
            line = game.stdout.readline()
            assert line, "the game ended before its roll"
            shown += line
        game.send_signal(signal.SIGTERM)
        out, err = game.communicate(timeout=30)
        out = shown + out
    finally:
        if game.poll() is None:
            game.kill()
    assert game.returncode == 143 and err.decode().splitlines() == ["dicewise: terminated"]
    saved = list(tmp_path.glob("dicewise-general-*.json"))
    assert len(saved) == 1 and f"dicewise play --resume {saved[0].name}" in out.decode()
    assert json.loads(saved[0].read_text())["ruleset"] == "general"
