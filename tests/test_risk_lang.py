"""``dicewise risk`` in the player's language: what each command prints, its refusals (its
own and the solver's), its help and its progress lines; ``--json`` stays as it is."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import string
from pathlib import Path

import pytest
from click.testing import CliRunner

from dicewise import i18n
from dicewise.cli import risk as cli_risk
from dicewise.solver.risk import reports
from dicewise.cli.helptext import paragraphs
from dicewise.cli.main import cli
from dicewise.errors import DicewiseError
from lines import ERROR_LINE

PLOTS = importlib.util.find_spec("matplotlib") is not None

#: Each command, the way a player asks it, with the options that make its longest lines.
RUNS = {
    "battle": ["battle", "10", "10", "-o", "ties=attacker", "-o", "max_defender_dice=1",
               "--defender-sees-roll", "--dice", "minimax"],
    "battle-armies": ["battle", "30", "25", "--objective", "expected-armies",
                      "--exchange-value", "5"],
    "battle-long": ["battle", "60", "60"],
    "advise": ["advise", "7", "4"],
    "advise-stop": ["advise", "3", "2", "--objective", "expected-armies", "--defender-sees-roll"],
    "advise-threshold": ["advise", "9", "6", "--objective", "threshold", "--threshold", "0.3",
                         "-o", "max_attacker_dice=2"],
    "chain": ["chain", "20", "3", "5", "2", "--garrison", "2", "--target", "0.8"],
    "cards": ["cards", "--sets-traded", "5", "--territories", "14", "--hand", "iicw",
              "--wild-cards", "2", "--players", "4", "--turns", "3"],
    "cards-one": ["cards", "--territories", "1", "--turns", "1", "--wild-cards", "1"],
    "table": ["table", "--max", "6", "--out", "risk.csv"],
    "table-file": ["table", "--max", "6", "--format", "table", "--out", "risk.tab"],
    "plot": ["plot", "--max", "6", "--out", "risk.png"],
}

#: Words each run says in Russian and Polish.
WORDS = {
    "battle": {"ru": ["10 против 10  (кости минимакс, ничья в пользу атакующего, защитник "
                      "видит бросок", "кости: до 3 у атакующего, до 1 у защитника",
                      "P(захвата)", "ожидаемые потери атакующего",
                      "армии атакующего, оставшиеся при захвате:"],
               "pl": ["10 przeciw 10  (kości minimaks, remis na korzyść atakującego,",
                      "obrońca widzi rzut", "kości: do 3 u atakującego, do 1 u obrońcy", "P(zdobycia)",
                      "oczekiwane straty obrońcy", "armie obrońcy pozostałe, gdy terytorium nie "
                      "zostało zdobyte:"]},
    "battle-armies": {"ru": ["цель ожидаемые армии", "P(остановки атаки)",
                             "ожидаемые армии, свои минус армии защитника (+ ценность захвата)"],
                      "pl": ["cel oczekiwane armie", "P(przerwania ataku)",
                             "oczekiwane armie, własne minus armie obrońcy (+ wartość "
                             "zdobycia)"]},
    "battle-long": {"ru": ["(ещё 35 менее вероятных значений: вместе 2,936e-03)"],
                    "pl": ["(jeszcze 35 mniej prawdopodobnych wartości: razem 2,936e-03)"]},
    "advise": {"ru": ["бросайте 3 кости (защитник в ответ бросает 2); продолжайте атаку",
                      "  1 кость (защитник бросает 2): P(захвата) 0,",
                      "P(захвата) при этой стратегии 0,"],
               "pl": ["rzuć 3 kośćmi (obrońca w odpowiedzi rzuca 2); atakuj dalej",
                      "  1 kość (obrońca rzuca 2): P(zdobycia) 0,",
                      "P(zdobycia) przy tej strategii 0,"]},
    "advise-stop": {"ru": ["прекратите атаку", "(защитник видит бросок): E[свои армии - армии "
                           "защитника]", "  остановиться сейчас: 1,0000000000"],
                    "pl": ["przerwij atak", "(obrońca widzi rzut): E[własne armie - armie "
                           "obrońcy]", "  przerwać teraz: 1,0000000000"]},
    "advise-threshold": {"ru": ["бросайте 2 кости", "P(захвата) при продолжении", "(порог 0,3)"],
                         "pl": ["rzuć 2 kośćmi", "P(zdobycia) przy dalszym ataku",
                                "(próg 0,3)"]},
    "chain": {"ru": ["20 армий против 3 -> 5 -> 2", "(гарнизон 2, кости максимум, ничья в пользу защитника)", "P(захвата всех)",
                     "захвачено территорий:", "наименьшее число армий для P(захвата всех) "
                     ">= 0,8: "],
              "pl": ["20 armii przeciw 3 -> 5 -> 2", "(garnizon 2, kości maksimum, remis na korzyść obrońcy)",
                     "P(zdobycia wszystkich)", "zdobyte terytoria:",
                     "najmniej armii dla P(zdobycia wszystkich) >= 0,8: "]},
    "cards": {"ru": ["начальные армии при 4 игроках: по 30 каждому",
                     "подкрепления за 14 территорий: 4 за ход", "(2 джокера в колоде):",
                     "за ближайшие 3 хода (на руке 'iicw'", "  ход  1: ", "  всего ",
                     "ожидаемые армии за 3 хода от территорий и карт: "],
              "pl": ["armie początkowe przy 4 graczach: po 30 dla każdego",
                     "posiłki za 14 terytoriów: 4 na turę", "(2 dżokery w talii):",
                     "w 3 najbliższych turach (w ręce 'iicw'", "  tura  1: ", "  razem ",
                     "oczekiwane armie w 3 turach z terytoriów i kart: "]},
    "cards-one": {"ru": ["подкрепления за 1 территорию: 3 за ход", "(1 джокер в колоде):",
                         "за ближайший 1 ход"],
                  "pl": ["posiłki za 1 terytorium: 3 na turę", "(1 dżoker w talii):",
                         "w 1 najbliższej turze"]},
    "table": {"ru": ["P(захвата) для A = 2..6, D = 1..6 записана в risk.csv (csv)"],
              "pl": ["zapisano P(zdobycia) dla A = 2..6, D = 1..6 w risk.csv (csv)"]},
    "table-file": {"ru": ["записана в risk.tab (table)"], "pl": ["w risk.tab (table)"]},
    "plot": {"ru": ["тепловая карта P(захвата) для A, D до 6 записана в risk.png"],
             "pl": ["zapisano mapę cieplną P(zdobycia) dla A, D do 6 w risk.png"]},
}

#: English a translated line would leak, once the values typed on the command line (dice,
#: objective and format names, the file written) are taken out.
ENGLISH = re.compile(r"\b(the|of|on|to|for|and|in|v|army|armies|dice|die|attacker|defender|"
                     r"expected|losses|conquer(ed)?|territor(y|ies)|stop|roll|go|turns?|total|"
                     r"wrote|sets?|cards?|garrison|ties|objective|heatmap|each|reinforcements|"
                     r"holding|wild|fewest|policy|less|likely|together|trade|threshold|now)\b")
TYPED = re.compile(r"\b(minimax|max|conquest|expected-armies|threshold|csv|table)\b|"
                   r"risk\.(csv|tab|png)")


def run(args, **kwargs):
    return CliRunner().invoke(cli, ["risk", *args], prog_name="dicewise", **kwargs)


def said(args, lang):
    result = run([*args, "--lang", lang], env={"COLUMNS": "200"})
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.stdout


def plotted(name):
    if name == "plot" and not PLOTS:
        pytest.skip("plots need matplotlib")


@pytest.mark.parametrize("lang", ["ru", "pl"])
@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_command_speaks_russian_and_polish(name, lang, tmp_path, monkeypatch):
    """The headings, labels, titles of the distributions and the advice are said in the
    language asked for, the words of --dice and --objective too (кости максимум, cel
    zdobycie); only file names and formats stay as typed."""
    plotted(name)
    monkeypatch.chdir(tmp_path)
    out = said(RUNS[name], lang)
    for words in WORDS[name][lang]:
        assert words in out, (words, out)
    assert not ENGLISH.search(TYPED.sub("", out)), out


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_line_fits_80_columns(name, lang, tmp_path, monkeypatch):
    """However wide the terminal, a longer line goes on indented on the next."""
    plotted(name)
    monkeypatch.chdir(tmp_path)
    wide = [line for line in said(RUNS[name], lang).splitlines() if len(line) > 80]
    assert not wide


def test_english_reads_as_before():
    out = said(RUNS["battle"], "en")
    assert out.startswith("10 v 10  (dice minimax, ties to the attacker, defender sees the roll,"
                          "\n    at most 3 v 1 dice, objective conquest)\n")
    assert "\nP(conquer)               0." in out and "\nexpected defender losses " in out
    assert "attacker armies left on conquest:\n" in out
    assert "roll 3 dice (the defender replies with 2); go on" in said(RUNS["advise"], "en")
    one = said(RUNS["cards-one"], "en")  # a count of one is said in the singular
    assert "reinforcements for 1 territory: 3 a turn" in one
    assert "(1 wild card in the deck):" in one and "in the next 1 turn (" in one


# a plot's JSON is three keys, drawn three times (a second): CI's second step runs it
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "plot" else n
                                  for n in sorted(RUNS)])
def test_json_is_the_same_in_every_language(name, tmp_path, monkeypatch):
    plotted(name)
    monkeypatch.chdir(tmp_path)
    outs = [run([*RUNS[name], "--json", *lang]) for lang in ([], ["--lang", "ru"],
                                                             ["--lang", "pl"])]
    assert all(r.exit_code == 0 for r in outs), [r.output for r in outs]
    assert outs[0].stdout == outs[1].stdout == outs[2].stdout
    assert json.loads(outs[0].stdout)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_an_unknown_language_is_refused_in_one_line(name, tmp_path, monkeypatch):
    plotted(name)
    monkeypatch.chdir(tmp_path)
    result = run([*RUNS[name], "--lang", "xx"])
    assert result.exit_code == 2 and not result.stdout
    assert result.stderr == ("dicewise: error: unknown language 'xx' (languages: en, ru, pl)\n")
    assert not Path("risk.csv").exists() and not Path("risk.png").exists()  # nothing written


def test_the_language_comes_from_the_locale(monkeypatch):
    monkeypatch.setenv("LANG", "pl_PL.UTF-8")
    assert run(RUNS["advise"]).stdout == said(RUNS["advise"], "pl")
    assert "rzuć 3 kośćmi" in run(RUNS["advise"]).stdout
    assert "roll 3 dice" in said(RUNS["advise"], "en")  # --lang before the locale


#: Bad input of every kind: the solver's refusals, the commands' own, click's.
BAD = [
    ["battle", "1", "5"], ["battle", "-3", "5"], ["battle", "5", "0"],
    ["battle", "100000", "5"], ["battle", "40000", "40000"], ["battle", "x", "3"],
    ["battle", "10", "10", "--dice", "foo"], ["battle", "10", "10", "--defender-sees-roll"],
    ["advise", "5", "3", "--threshold", "2", "--objective", "threshold"],
    ["advise", "5", "3", "--objective", "expected-armies", "--exchange-value", "1e10"],
    ["advise", "5", "3", "--threshold", "0.4"], ["battle", "10", "10", "--dise", "minimax"],
    ["battle", "10", "10", "6"], ["battle", "10"],
    ["chain", "20", "3", "--target", "1.5"], ["chain", "20", "3", "0"],
    ["chain", "20", "3", "--garrison", "0"],
    ["chain", "20000", "20000", "20000"],
    ["table", "--max", "1", "--out", "x.csv"], ["table", "--max", "100000", "--out", "x.csv"],
    ["table", "--out", "x.csv"], ["table", "--max", "4", "--out", "x.csv", "--format", "xml"],
    ["plot", "--max", "1", "--out", "x.png"],
    ["cards", "--hand", "iqz"], ["cards", "--hand", "iiiiiiiiii"], ["cards", "--territories", "0"],
    ["cards", "--territories", "50"], ["cards", "--sets-traded", "-1"], ["cards", "--turns", "0"],
    ["cards", "--players", "9"], ["cards", "--conquer-prob", "2"], ["cards", "--hand", "iw"],
    ["cards", "--hand", "ww", "--wild-cards", "1"], ["cards", "foo"],
    ["battle", "5", "3", "-o", "glory=1"], ["battle", "5", "3", "-o", "ties=nobody"],
    ["battle", "5", "3", "-o", "max_attacker_dice=4"], ["battle", "5", "3", "-o", "wild_cards=2"],
    ["battle", "5", "3", "-o", "ties=attacker", "--ties", "attacker"],
    ["cards", "-o", "ties=attacker"], ["cards", "--wild-cards", "50"],
]
if PLOTS:
    BAD.append(["plot", "--max", "5", "--out", "x.xyz"])


def test_a_search_that_cannot_reach_its_target_says_so_in_the_players_language(monkeypatch):
    """Where the most armies that fit in memory do not reach the target (here 200 against
    5,000 defenders, the memory allowed lowered to a tenth of its 10 million states): after
    its progress line, one error line and status 2 (it was refused before searching)."""
    import dicewise.solver.risk.chain as chain

    monkeypatch.setattr(chain, "MAX_STATES", 5002 * 200)
    for lang, said in (("en", "dicewise: error: the search for P(all conquered) >= 0.5 needs "
                               "more memory than allowed (none up to 200 reach it)"),
                       ("ru", "dicewise: ошибка: поиску P(захвата всех) >= 0,5 нужно больше "
                              "памяти, чем допустимо (ни одно A до 200 её не достигает)")):
        result = run(["chain", "2", "5000", "--target", "0.5", "--lang", lang])
        assert result.exit_code == 2 and not result.stdout, result.output
        assert result.stderr.splitlines()[-1] == said, result.stderr


@pytest.mark.parametrize("args", BAD, ids=" ".join)
def test_bad_input_is_refused_in_the_players_language(args, tmp_path, monkeypatch):
    """One line and exit 2 in every language; in Russian and Polish no English word but
    the names typed (options, their values, flags)."""
    monkeypatch.chdir(tmp_path)
    lines = {}
    for lang in ("en", "ru", "pl"):
        result = run([*args, "--lang", lang])
        assert result.exit_code == 2 and not result.stdout, result.output
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith(ERROR_LINE[lang])
        lines[lang] = result.stderr[len(ERROR_LINE[lang]):]
    assert len(set(lines.values())) == 3, lines
    english = re.compile(r"\b(the|is|not|of|for|must|needs?|more|than|allowed|give|one|"
                         r"unknown|option|armies|army|cards?|see|attacker|defender|dice|"
                         r"cannot|image|file)\b")
    for lang in ("ru", "pl"):
        typed = re.sub(r"`[^`]*`|'[^']*'|--[\w-]+|\w+=\w+|[\w ]*\|[\w |-]*|\b\w+_\w+\b|"
                       r"\b(risk|battle|chain|table|cards|ATTACKER|DEFENDER|max|minimax|"
                       r"expected-armies|threshold)\b", "", lines[lang])
        assert not english.search(typed), lines[lang]


#: The solver's refusals as the library raises them, no command in between.
SOLVER_BAD = [
    (lambda: cli_risk.rk.check_chain(40000, [40000], 1),
     "40000 v 40000 has 1,600,000,000 states, more than the 10,000,000 this chain allows in "
     "memory",
     "число состояний цепочки атак 40000 против 40000: 1\u00a0600\u00a0000\u00a0000, а в памяти "
     "она может держать не больше 10\u00a0000\u00a0000"),
    (lambda: cli_risk.rk.RiskRules(max_attacker_dice=4),
     "the attacker rolls at most 1..3 dice, not 4",
     "наибольшее число костей атакующего: от 1 до 3, а не 4"),
    (lambda: cli_risk.rk.Policy(dice="all"), "dice must be one of max | minimax, not 'all'",
     "для dice допустимо только max | minimax, а не 'all'"),
    (lambda: cli_risk.rk.round_counts(3, 2, ties="nobody"),
     "ties must be one of defender | attacker, not 'nobody'",
     "для ties допустимо только defender | attacker, а не 'nobody'"),
]


@pytest.mark.parametrize("call, english, russian", SOLVER_BAD,
                         ids=["chain", "rules", "policy", "rounds"])
def test_the_solvers_refusals_read_as_they_did_in_english(call, english, russian):
    """The solver raises a refusal as a ``Message``: as text (the library, the web server)
    it reads word for word as it always has; said in Russian, its counts are grouped as
    Russian writes them."""
    with pytest.raises(DicewiseError) as refused:
        call()
    assert str(refused.value) == english
    assert i18n.message_of(refused.value).in_language(i18n.translator("ru")) == russian


def _said_whole(node: ast.AST) -> bool:
    """Whether a refusal is a ``Message`` call, or a choice between them (by a condition or
    from a dict), so that it is said in the player's language."""
    if isinstance(node, ast.IfExp):
        return _said_whole(node.body) and _said_whole(node.orelse)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
        return all(_said_whole(value) for value in node.value.values)
    return isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Message"


def test_every_refusal_of_the_solver_is_a_message():
    """No refusal of the Risk solver is English only (a str or an f-string): each one is a
    ``Message`` (the catalogs translate its template, ``test_i18n``), given the fields its
    template names."""
    raised, english_only = 0, []
    for path in sorted(Path(cli_risk.rk.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", "")
            if name == "DicewiseError":
                raised += 1
                if not (len(node.args) == 1 and _said_whole(node.args[0])):
                    english_only.append(f"{path.name}:{node.lineno}")
            elif name == "Message" and all(k.arg for k in node.keywords):  # not **fields
                template = node.args[0].value
                assert {k.arg for k in node.keywords} == {
                    f for _, f, _, _ in string.Formatter().parse(template) if f}, template
    assert raised >= 40 and not english_only


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_every_help_screen_of_risk_is_translated(lang):
    """Every paragraph of the group's and its commands' help, and every option's help."""
    tr = i18n.translator(lang)
    wanted = paragraphs(cli_risk.risk.help)
    for command in cli_risk.risk.commands.values():
        wanted += paragraphs(command.help)
        wanted += [" ".join(p.help.split()) for p in command.params if p.help]
    assert [text for text in wanted if tr(text) == text] == []


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_help_follows_lang_and_the_locale(lang, monkeypatch):
    tr = i18n.translator(lang)
    words = r"\b(the|of|for|and|with|show|this|Usage|Options|Commands|default|required|FLOAT|" \
            r"INTEGER|TEXT|PATH)\b"
    for name in cli_risk.risk.commands:
        result = run([name, "--help", "--lang", lang])
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith(tr("Usage: ") + f"dicewise risk {name} ")
        assert not re.search(words, re.sub(r"`[^`]*`|\[[\w|-]+\]", "", result.stdout)), \
            result.stdout
    assert run(["battle", "--help"]).stdout.startswith("Usage: dicewise risk battle [OPTIONS]")
    monkeypatch.setenv("LANG", f"{lang}_{lang.upper()}.UTF-8")
    listing = run(["--help"]).stdout
    assert listing.startswith(tr("Usage: ")) and tr("Commands") + ":" in listing
    assert run(["plot", "--help"]).stdout.startswith(tr("Usage: ") + "dicewise risk plot ")


@pytest.mark.parametrize("lang, lines", [("en", ["solving ...", "searching ..."]),
                                         ("ru", ["вычисляю ...", "ищу ..."]),
                                         ("pl", ["obliczam ...", "szukam ..."])])
def test_the_progress_lines_speak_the_language(lang, lines, monkeypatch):
    monkeypatch.setattr(reports, "BAR_WORK", 0)  # every solve shows its progress
    result = run(["chain", "20", "3", "5", "2", "--target", "0.8", "--lang", lang])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == lines


def test_a_fraction_is_read_and_quoted_with_the_languages_decimal_comma():
    """A Polish or Russian student types 0,45 as they write it; a value quoted back in a
    refusal, and a default in the help, read with their comma too."""
    comma, point = (said(["battle", "10", "10", "--objective", "threshold", "--threshold", t],
                         "pl") for t in ("0,45", "0.45"))
    assert comma == point and "cel próg 0,45" in comma
    thousand = run(["battle", "10", "10", "--objective", "threshold", "--threshold", "1,000"])
    assert thousand.exit_code == 2 and "--threshold 1,000" in thousand.stderr  # not 1.0
    refused = run(["battle", "5", "5", "--objective", "threshold", "--threshold", "1.5",
                   "--lang", "ru"])
    assert refused.exit_code == 2 and refused.stderr.rstrip().endswith("а не 1,5")
    english = run(["battle", "5", "5", "--objective", "threshold", "--threshold", "1.5"])
    assert english.stderr.rstrip().endswith("not 1.5")
    assert re.search(r"\[domyślnie:\s+0,5\]", said(["battle", "--help"], "pl"))
    assert re.search(r"\[default:\s+0\.5\]", said(["battle", "--help"], "en"))


def test_a_chance_short_of_certain_never_reads_100_percent():
    out = said(["battle", "30", "2"], "en")
    assert "(>99.9999%)" in out and "0.999999954195" in out
    assert "(>99,9999%)" in said(["battle", "30", "2"], "pl")


@pytest.mark.skipif(not PLOTS, reason="plots need matplotlib")
@pytest.mark.parametrize("lang,tick", [("en", "0.2"), ("ru", "0,2"), ("pl", "0,2")])
def test_a_plots_figures_have_the_languages_decimal_mark(lang, tick):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dicewise.cli.format import _ticks_in_language

    fig, ax = plt.subplots()
    im = ax.imshow([[0.0, 1.0]], vmin=0, vmax=1)
    bar = fig.colorbar(im, ax=ax)
    _ticks_in_language(fig, i18n.translator(lang))
    fig.canvas.draw()
    ticks = [t.get_text() for t in bar.ax.get_yticklabels()]
    plt.close(fig)
    assert tick in ticks, ticks
