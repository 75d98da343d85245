"""The players' language: catalogs, labels, box names in every language, scratches as x."""

from __future__ import annotations

import ast
import functools
import json
import copy
import pickle
import re
import string
from pathlib import Path

import pytest

import dicewise
from dicewise import i18n
from dicewise.errors import DicewiseError
from dicewise.play import commands
from dicewise.play.session import TableGame
from dicewise.solver.registry import get_game
from lines import ERROR_LINE, joined, unwrapped

pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process

SOURCES = [Path(i18n.__file__).parent / p for p in
           ("play/session.py", "cli/play_along.py", "cli/games.py", "cli/measure.py",
            "cli/risk.py", "cli/serve.py", "i18n.py", "tables/store.py", "tables/two_player.py")]


@functools.lru_cache(maxsize=None)
def package_nodes() -> tuple[ast.AST, ...]:
    """Every syntax node of every module of the package, parsed once for the scans below."""
    return tuple(node for path in sorted(Path(dicewise.__file__).parent.rglob("*.py"))
                 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def messages_made() -> set[str]:
    """Every template given to ``Message`` anywhere in the package: what the library says
    that a player reads later (advice headlines, why a game ended, a table being built)."""
    found = set()
    for node in package_nodes():
        called = getattr(node, "func", None)
        if (isinstance(node, ast.Call)
                and "Message" in (getattr(called, "id", None), getattr(called, "attr", None))
                and node.args and isinstance(node.args[0], ast.Constant)):
            found.add(node.args[0].value)
    return found


def plurals_in_code() -> set[str]:
    """Every message that counts something (``Plural``, ``ngettext``) anywhere in the package,
    keyed as the catalogs key it: singular and plural joined by NUL."""
    found = set()
    for node in package_nodes():
        called = getattr(node, "func", None)
        name = (getattr(called, "id", None), getattr(called, "attr", None))
        if (isinstance(node, ast.Call) and ("Plural" in name or "ngettext" in name)
                and len(node.args) >= 2
                and all(isinstance(a, ast.Constant) for a in node.args[:2])):
            found.add(f"{node.args[0].value}\0{node.args[1].value}")
    return found


@functools.lru_cache(maxsize=None)
def messages_in_code() -> frozenset[str]:
    """Every literal passed to a translator in the code, every ``Message`` template, every
    message that counts something, and the help lines: found once, for every catalog."""
    found = messages_made() | plurals_in_code()
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        found |= {m[1] for m in re.findall(r'tr\((["\'])(.+?)\1\)', text)}
        found |= {m[1] for m in re.findall(r'translator\(\w+\)\((["\'])(.+?)\1\)', text)}
        found |= {m[1] for m in re.findall(r'(?:BUILD_LABEL|build_label) = (["\'])(.+?)\1', text)}
    return frozenset(found | {h for _, h in commands.HELP.values()})


def fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_every_message_is_translated_with_the_same_fields(lang):
    po = i18n.read_po(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "dicewise.po")
    missing = messages_in_code() - set(po)
    assert not missing
    for msgid, msgstr in po.items():
        assert fields(msgid) == fields(msgstr), msgid
        # a message that counts: as many forms as the language has, each with every field
        # of the plural msgid
        if "\0" in msgid:
            assert len(msgstr.split("\0")) == 3, msgid
            assert all(fields(form) == fields(msgid.split("\0")[1])
                       for form in msgstr.split("\0")), msgid


#: The forms of Russian and Polish nouns after a number, as grammars teach them: one
#: (1, 21, ...; Polish 1 only), a few (2-4, 22-24, ...; not 12-14), many (the rest).
COUNTED = {
    "en": {1: "1 game", 2: "2 games", 5: "5 games", 12: "12 games", 21: "21 games",
           22: "22 games", 25: "25 games"},
    "ru": {1: "1 партия", 2: "2 партии", 5: "5 партий", 12: "12 партий", 21: "21 партия",
           22: "22 партии", 25: "25 партий"},
    "pl": {1: "1 gra", 2: "2 gry", 5: "5 gier", 12: "12 gier", 21: "21 gier", 22: "22 gry",
           25: "25 gier"},
}


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_the_catalogs_declare_their_plural_forms(lang):
    po = i18n.read_po(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "dicewise.po")
    assert po.plural_forms.startswith("nplurals=3;")
    assert sum("\0" in msgid for msgid in po) >= 20


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
@pytest.mark.parametrize("n", [1, 2, 5, 12, 21, 22, 25])
def test_a_number_counts_a_noun_in_the_form_its_language_wants(lang, n):
    tr = i18n.translator(lang)
    assert tr.ngettext("{n} game", "{n} games", n).format(n=n) == COUNTED[lang][n]
    counted = i18n.Plural("{n} game", "{n} games", n, n=n)
    assert counted == COUNTED["en"][n] and counted.in_language(tr) == COUNTED[lang][n]
    # said inside another message, copied or pickled, it still counts in the players' language
    line = i18n.Message("{ruleset}: {games}", ruleset="general", games=counted)
    for again in (line, copy.deepcopy(line), pickle.loads(pickle.dumps(line))):
        assert again.in_language(tr) == f"general: {COUNTED[lang][n]}"


@pytest.mark.parametrize("n,ru,pl", [
    (1, "ещё 1 бросок", "został 1 rzut"), (2, "ещё 2 броска", "zostały 2 rzuty"),
    (5, "ещё 5 бросков", "zostało 5 rzutów"), (12, "ещё 12 бросков", "zostało 12 rzutów"),
    (21, "ещё 21 бросок", "zostało 21 rzutów"), (22, "ещё 22 броска", "zostały 22 rzuty"),
    (25, "ещё 25 бросков", "zostało 25 rzutów")])
def test_the_rolls_left_after_a_keep_are_counted(n, ru, pl):
    said = {lang: i18n.choice_text("general", {"keep": [6, 6]}, {"rolls_left": n},
                                   i18n.translator(lang)) for lang in ("en", "ru", "pl")}
    assert said["en"] == f"keep 6 6 (reroll 3; {n} roll{'s' * (n != 1)} left)"
    assert said["ru"] == f"оставить 6 6 (перебросить 3; {ru})"
    assert said["pl"] == f"zostaw 6 6 (przerzuć 3; {pl})"


def test_the_counts_players_read_are_in_the_form_of_their_number(monkeypatch):
    """The lines of the defects: games played, games a second, the games a table needs, the
    values an option takes, the choices not shown."""
    _no_locale(monkeypatch)
    for lang, games, speed in (("pl", "22 gry", r"(gra|gry|gier)/s"),
                               ("ru", "22 партии", r"(партия|партии|партий) в секунду"),
                               ("en", "22 games", r"games?/s")):
        head = _advise("simulate", "general", "--games", "22", "--seed", "1", "--policy",
                       "greedy", "--lang", lang).splitlines()[0]
        found = re.search(r", (\d[\d\u00a0,]*) " + speed, head)
        assert f": {games}, " in head and found, head
        n = int(re.sub(r"\D", "", found[1]))
        form = i18n.translator(lang).ngettext("{n} game/s", "{n} games/s", n).format(n="")
        assert found[0].endswith(form.strip()), head
    for lang, players, refusal in (
            ("pl", 3, "co najmniej 3 partie (po jednej na każde miejsce)"),
            ("ru", 4, "хотя бы 4 партии (по одной на каждое место)"),
            ("en", 3, "3 players need at least 3 games (one per seat)")):
        assert refusal in _refused("duel", "general", "--players", str(players), "--a", "win",
                                   "--b", "optimal", "--games", "2", "--lang", lang)
    for lang, refusal in (("ru", "после --dice нужно указать 5 значений"),
                          ("pl", "opcja --dice przyjmuje 5 wartości"),
                          ("en", "option --dice takes 5 values")):
        assert refusal in _refused("advise", "general", "--roll", "1", "--dice", "1", "2", "3",
                                   "4", "--lang", lang)
    for lang, hidden in (("ru", "... и ещё 32 варианта (--top K"),
                         ("pl", "... i jeszcze 32 ruchy (--top K"),
                         ("en", "... and 32 more choices (--top K")):
        assert hidden in _advise(*ADVISE[:-1], "2", "--lang", lang)


def _refused(*args) -> str:
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    return result.stderr


def test_the_messages_made_in_the_library_are_found():
    made = messages_made()
    assert "a first-roll five of a kind ends the game" in made
    assert "searched one turn deep" in made and len(made) >= 20
    assert "a chain needs at least one defending territory" in made  # the Risk solver's


def test_a_message_says_its_parts_in_the_players_language():
    ru, pl = i18n.translator("ru"), i18n.translator("pl")
    near = i18n.Listing([i18n.Box("poker-school", "fives"), i18n.Message("column{n}", n=2)])
    assert near == "fives, column2"
    assert near.in_language(ru) == "пятерки, столбец 2"
    assert near.in_language(pl) == "piątki, kolumna 2"
    ended = i18n.Message("{points} (ended)", points=40)
    assert i18n.in_language(i18n.Listing([ended, "35"]), ru) == "40 (больше не играет), 35"
    assert i18n.in_language("as it is", ru) == "as it is" and ru.lang == "ru"
    # copied or pickled (a worker's error, a deep copy), a message still knows its parts
    refused = i18n.Message("{verb}: a die shows 1..6, not {word}", verb="dice", word="'{7}'")
    for message in (near, refused, i18n.Listing([ended])):
        for again in (copy.deepcopy(message), pickle.loads(pickle.dumps(message))):
            assert again == message and again.in_language(ru) == message.in_language(ru)


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_the_shipped_catalogs_are_compiled_from_their_po_files(lang, tmp_path):
    folder = i18n.LOCALE_DIR / lang / "LC_MESSAGES"
    i18n.write_mo(i18n.read_po(folder / "dicewise.po"), tmp_path / "x.mo")
    assert (tmp_path / "x.mo").read_bytes() == (folder / "dicewise.mo").read_bytes()


def test_a_catalog_keeps_a_games_own_wording_apart(tmp_path):
    """A ``msgctxt`` entry (a game's own wording) is keyed as gettext keys it, context EOT
    msgid, and neither it nor the plain entry of the same msgid beside it swallows the other."""
    po = tmp_path / "x.po"
    po.write_text('msgid ""\nmsgstr "Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
                  'msgctxt "poker-school"\nmsgid "cross {box}"\nmsgstr "row {box}"\n\n'
                  'msgid "cross {box}"\nmsgstr "box {box}"\n\n'
                  'msgctxt "general"\nmsgid "keep"\nmsgstr ""\n"hold"\n', encoding="utf-8")
    assert dict(i18n.read_po(po)) == {"poker-school\x04cross {box}": "row {box}",
                                      "cross {box}": "box {box}", "general\x04keep": "hold"}


def test_poker_school_says_row_where_every_game_says_box():
    """Its rules call a row «строка»: its writes and crosses say so in Russian (and «wiersz»
    in Polish); General's «графа» and «rubryka», and English, are as before; a Message said
    for the game is worded so too."""
    ru = i18n.translator("ru")
    assert ru.in_game("poker-school", "cross {box}") == "поставить крест в строке «{box}»"
    assert (ru.in_game("poker-school", "write {box} for {score}")
            == "записать в строку «{box}»: {score}")
    assert (ru.in_game("general", "cross {box}") == ru("cross {box}")
            == "поставить крест в графу «{box}»")
    assert ru.in_game("poker-school", "Undo") == ru("Undo")  # no wording of its own: the shared
    pl = i18n.translator("pl")  # «wiersz» for a row, as its sheet's refusals say
    assert pl.in_game("poker-school", "cross {box}") == "postaw krzyżyk w wierszu „{box}”"
    assert (pl.in_game("general", "cross {box}") == pl("cross {box}")
            == "postaw krzyżyk w rubryce „{box}”")
    assert i18n.translator("en").in_game("poker-school", "cross {box}") == "cross {box}"
    write = i18n.choice_text("poker-school", {"write": "twos"}, {"score": 6}, ru)
    assert write == "записать в строку «двойки»: 6"
    refused = i18n.Message("this game has no splits: keep dice or write a box")
    assert refused.in_game("poker-school").in_language(ru).endswith("запишите их в строку")
    assert refused.in_language(ru).endswith("запишите графу") and refused.game is None
    assert copy.deepcopy(refused.in_game("poker-school")).game == "poker-school"


def test_gettext_reads_the_catalogs():
    assert i18n.translator("ru")("Player {n}") == "Игрок {n}"
    assert i18n.translator("pl")("Player {n}") == "Gracz {n}"
    assert i18n.translator("en")("Player {n}") == "Player {n}"


def test_the_language_comes_from_the_option_else_the_locale(monkeypatch):
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    assert i18n.language() == "en"
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    assert i18n.language() == "ru"
    monkeypatch.setenv("LC_ALL", "pl_PL.UTF-8")
    assert i18n.language() == "pl"
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # the C locale is English, whatever LANG says
    assert i18n.language() == "en"
    monkeypatch.delenv("LC_ALL")
    monkeypatch.setenv("LC_MESSAGES", "de_DE.UTF-8")  # a language dicewise does not speak
    assert i18n.language() == "en"
    for var in ("LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var)
    monkeypatch.setenv("LANGUAGE", "de:pl:ru")  # no locale: the first preference it speaks
    assert i18n.language() == "pl"
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")  # GNU's preferences come before the locale
    assert i18n.language() == "pl"
    monkeypatch.setenv("LANG", "C.UTF-8")  # but not before the C locale, as in gettext
    assert i18n.language() == "en"
    assert i18n.language("en") == "en"
    with pytest.raises(DicewiseError, match="unknown language 'de'"):
        i18n.language("de")
    with pytest.raises(DicewiseError, match="unknown language ''"):  # asked for, not the locale
        i18n.language("")


def test_box_names_in_every_language_name_one_box_each():
    for ruleset, boxes in i18n.BOX_NAMES.items():
        names = get_game(ruleset).describe(get_game(ruleset).rules({}))
        names = names.get("categories") or names.get("rows")
        assert set(boxes) <= set(names), ruleset
        seen = {}
        for box, aliases in boxes.items():
            for alias in aliases:
                assert i18n.box_name(ruleset, names, alias) == box, (ruleset, alias)
                key = i18n._key(alias)
                assert seen.setdefault(key, box) == box, (ruleset, alias)


def test_polish_names_typed_without_polish_letters():
    """On a keyboard without them: ``szostki`` is ``szóstki``, ``mały strit`` any way."""
    for ruleset, boxes in i18n.BOX_NAMES.items():
        names = list(boxes)
        for box, aliases in boxes.items():
            polish = aliases[i18n.LANGUAGES.index("pl") - 1]
            plain = polish.translate(str.maketrans("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ", "acelnoszzACELNOSZZ"))
            assert i18n.box_name(ruleset, names, plain) == box, (ruleset, polish, plain)
    assert i18n.box_name("general", ["sixes"], "SZOSTKI") == "sixes"
    assert i18n._key("й") != i18n._key("и")  # a letter of its own in Russian, not a mark


@pytest.mark.parametrize("typed,box", [
    ("единицы", "ones"), ("Единицы", "ones"), ("1п", "pair"), ("2п", "two_pairs"),
    ("LS", "small_straight"), ("BS", "big_straight"), ("F", "full"), ("C", "four"),
    ("С", "four"), ("P", "poker"), ("Р", "poker"), ("Sh", "chance"), ("шанс", "chance"),
    ("малый стрит", "small_straight"), ("small straight", "small_straight"),
    ("четвёрки", "fours"), ("фулл", "full"), ("Фулл", "full")])
def test_the_seeds_names_and_abbreviations_of_poker_programs(typed, box):
    names = get_game("poker-programs").rules({}).category_names
    assert i18n.box_name("poker-programs", names, typed) == box


def test_an_unknown_box_is_named_in_the_players_language():
    names = get_game("general").rules({}).category_names
    with pytest.raises(DicewiseError, match="нет графы 'каре2'.*единицы"):
        i18n.box_name("general", names, "каре2", "ru")


def test_a_scratch_is_x_in_every_game_with_scratches():
    from dicewise.solver.rulesets import category_game
    from dicewise.solver.sheet import parse_sheet

    for name, text, box in (("poker-programs", "ones=0,twos=0,threes=0,fours=0,fives=0,sixes=0,"
                             "poker=x", "poker"), ("yatzy", "yatzy=x", "yatzy"),
                            ("yahtzee", "full_house=x", "full_house")):
        assert dict(parse_sheet(category_game(name), text).scores)[box] == 0
    # a scratch is 0 where the dice do not qualify: any dice make a chance (Yatzy scratches
    # any category, RULES.md)
    assert dict(parse_sheet(category_game("yatzy"), "chance=x").scores)["chance"] == 0
    for name, text in (("yahtzee", "chance=x"), ("poker-programs", "ones=0,twos=0,threes=0,"
                                                 "fours=0,fives=0,sixes=0,chance=x")):
        with pytest.raises(DicewiseError, match="no dice score 0 in chance"):
            parse_sheet(category_game(name), text)
    b = dicewise.advise("general", dice=[1, 2, 3, 4, 5], roll=2, sheet="general=x")
    assert b.position["sheet"]["general"] == 0


@pytest.mark.parametrize("lang,player,label", [("ru", "Игрок 1", "оставить"),
                                               ("pl", "Gracz 1", "zostaw")])
def test_a_game_in_russian_and_polish(lang, player, label):
    from dicewise.cli.play_along import _label

    game = TableGame.new("general", players=2, objective="score", lang=lang, seed=1)
    assert game.state()["players"][0]["name"] == player
    answer = game.apply("dice 2 2 4 6 6")
    assert any(_label(game, c).startswith(label) for c in game.advice().choices)
    assert not game.apply("keep 1")["ok"]
    assert game.apply("write " + ("шестерки" if lang == "ru" else "szóstki"))["ok"]
    assert answer["ok"]


@pytest.mark.parametrize("lang,label", [("ru", "вычисляю general ..."),
                                        ("pl", "obliczam general ..."), ("en", "solving general ...")])
def test_a_table_built_at_the_table_says_so_in_the_players_language(lang, label, empty_cache):
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    result = CliRunner().invoke(cli, ["play", "general", "--players", "2", "--objective", "score",
                                      "--lang", lang, "--seed", "1"], input="roll\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert label in result.stderr.splitlines()
    assert "two players" in i18n.Message("solving {game} for two players", game="general")
    assert i18n.Message("solving {game}", game="yatzy").in_language(i18n.translator("ru")) == "вычисляю yatzy"


def test_sheets_take_the_seeds_names_and_abbreviations():
    from dicewise.solver.poker_school.rules import PokerSchoolRules
    from dicewise.solver.rulesets import category_game
    from dicewise.solver.sheet import parse_sheet

    pp = parse_sheet(category_game("poker-programs"),
                     "единицы=0,двойки=2,тройки=0,четверки=4,пятерки=-5,шестерки=6,1п=24,Sh=17,"
                     "LS=30,F=x")
    assert dict(pp.scores) == {"ones": 0, "twos": 2, "threes": 0, "fours": 4, "fives": -5,
                               "sixes": 6, "pair": 24, "chance": 17, "small_straight": 30,
                               "full": 0}
    general = parse_sheet(category_game("general"), "генерал=x,полный дом=30,стрит=25")
    assert dict(general.scores) == {"general": 0, "full_house": 30, "straight": 25}
    school = PokerSchoolRules().parse_sheet("пятерки=15/15,пара=12/x,шанс=44")
    assert school.filled[4] == 2 and school.filled[6] == 2 and school.points == 30 + 12 + 44
    with pytest.raises(DicewiseError, match="unknown category 'каре2'"):
        parse_sheet(category_game("general"), "каре2=40")


def test_how_sure_the_values_are_in_the_players_language():
    from dicewise.cli.games import quality

    ru, pl = i18n.translator("ru"), i18n.translator("pl")
    assert quality(True, 41.07, 1099.812, ru) == \
        "приближённо; оценка ошибки ±41,1; оптимум всей игры ≤ 1099,81 (доказано)"
    assert quality(True, 6.354, None, pl) == "w przybliżeniu; szacowany błąd ±6,35"
    assert quality(False, tr=ru) == "точно"
    assert quality(True, 6.354, 1099.812) == \
        "approximate, error estimate ±6.35, a whole game's optimum ≤ 1099.81 (proven)"


ADVISE = ["advise", "general", "--roll", "2", "--dice", "1", "1", "2", "5", "6", "--top", "3"]
#: English words of the advice's own text; none may be left in another language.
ENGLISH = re.compile(r"\b(roll|dice|expected|points|keep|reroll|choices?|values|loss|more|turn|"
                     r"exact|game|over|first|five)\b")


def _advise(*args, env=None):
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    result = CliRunner().invoke(cli, list(args), env=env)
    assert result.exit_code == 0, result.stderr
    return joined(result.stdout)  # each line whole, as before its 80-column breaks


def _no_locale(monkeypatch):
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize("lang,words", [
    ("ru", ["general: бросок 2 из 3, кости 1 1 2 5 6; записано 0 очков, ожидание в начале хода",
            "значения: точно", "ожидание", "потеря", "ход", "оставить 1 1 (перебросить 3; ещё 1 бросок)",
            "... и ещё 31 вариант (--top K покажет K лучших)",
            "игра окончена: пять одинаковых с первого броска заканчивают игру"]),
    ("pl", ["general: rzut 2 z 3, kości 1 1 2 5 6; zapisano 0 punktów, wartość oczekiwana na początku tury",
            "wartości: dokładnie", "oczekiwane", "strata", "ruch", "zostaw 1 1 (przerzuć 3; został 1 rzut)",
            "... i jeszcze 31 ruchów (--top K pokazuje K najlepszych)",
            "gra skończona: pięć jednakowych w pierwszym rzucie kończy grę"])])
def test_advise_speaks_the_players_language(lang, words, monkeypatch):
    """Every line a player reads: the position, how sure the values are, the column heads,
    the choices, what was left out, and why a game is already over."""
    _no_locale(monkeypatch)
    out = _advise(*ADVISE, "--lang", lang) + _advise(
        "advise", "general", "--roll", "1", "--dice", "6", "6", "6", "6", "6", "--lang", lang)
    for text in words:
        assert text in out
    assert not ENGLISH.search(out.replace("general", "")), out
    monkeypatch.setenv("LANG", f"{lang}_{lang.upper()}.UTF-8")  # the locale, without --lang
    assert _advise(*ADVISE) == _advise(*ADVISE, "--lang", lang)


def test_advise_in_english_and_json_are_as_before(monkeypatch):
    """English is the solver's own text; JSON stays in English whatever the language."""
    import json

    import dicewise

    _no_locale(monkeypatch)
    out = _advise(*ADVISE)
    assert out == _advise(*ADVISE, "--lang", "en")
    advice = dicewise.advise("general", dice=[1, 1, 2, 5, 6], roll=2)
    lines = out.splitlines()
    assert lines[0] == advice.headline and lines[1] == "values: exact"
    assert lines[3].endswith(f"  {advice.best.label}") and ENGLISH.search(out)
    as_json = json.loads(_advise(*ADVISE, "--json", "--lang", "ru"))
    assert as_json == json.loads(_advise(*ADVISE, "--json"))
    assert as_json["best"]["label"] == advice.best.label


LATE = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,straight=20"
CHANCE = ["chance", "general", "--players", "2", "--sheet", LATE, "--opponent-sheet", LATE]


@pytest.mark.parametrize("lang,words", [
    ("ru", ["general, два игрока, ходит первый игрок, у него 83, у соперника 83: P(победы) + "
            "½P(ничьей) = 0,497839 (P(победы) 0,408355, P(ничьей) 0,178968); по решённой "
            "подыгре"]),
    pytest.param("pl", ["general, dwóch graczy, kolej pierwszego gracza, ma 83 pkt, rywal 83: "
                        "P(wygranej) + ½P(remisu) = 0,497839 (P(wygranej) 0,408355, P(remisu) "
                        "0,178968); z rozwiązanej podgry"], marks=pytest.mark.slow)])
def test_chance_speaks_the_players_language(lang, words, monkeypatch):
    _no_locale(monkeypatch)
    out = _advise(*CHANCE, "--lang", lang)
    assert out.splitlines() == words
    assert _advise(*CHANCE) == _advise(*CHANCE, "--lang", "en") == (
        "general, two players, the first player to move with 83 against 83: P(win) + ½P(draw) = "
        "0.497839 (P(win) 0.408355, P(draw) 0.178968); from the sub-game\n")


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_the_chance_of_a_target_in_the_players_language(lang, monkeypatch):
    _no_locale(monkeypatch)
    english = _advise("chance", "general", "--target", "150")
    out = _advise("chance", "general", "--target", "150", "--lang", lang)
    numbers = re.findall(r"\d+\.\d+", english)
    assert len(numbers) == 2 and re.findall(r"\d+,\d+", out) == [
        n.replace(".", ",") for n in numbers]
    assert not ENGLISH.search(out.replace("general", "")) and "P(" in out


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_every_refused_line_is_said_in_the_players_language(lang):
    """A mistyped command, a die of 7, a split in a game without splits: the line that
    refuses it is in the game's language (English: as the messages are written)."""
    def refusals(tr):
        return {"": tr("an empty line: type a command (help lists them)"),
                "frobnicate": tr("unknown command {word} (commands: {commands})").format(
                    word="'frobnicate'", commands=", ".join(  # General's own
                        v for v in commands.HELP if v not in ("cross", "split"))),
                "dice 1 2 3 4 7": tr("{verb}: a die shows 1..6, not {word}").format(
                    verb="dice", word="'7'"),
                "write": tr("write: name the box, as write sixes"),
                "undo now": tr("{verb} takes no arguments").format(verb="undo"),
                "split 1+2 3+4 5": tr("this game has no splits: keep dice or write a box"),
                "cross ones": tr("this game has no crosses: write the box (0 where the dice "
                                 "do not fit)"),
                "keep 6": tr("give the dice first (dice D D D D D, or roll)")}

    game = TableGame.new("general", players=2, lang=lang, advice=False, seed=1)
    shown, english = refusals(i18n.translator(lang)), refusals(i18n.translator("en"))
    for line, error in shown.items():
        answer = game.apply(line)
        assert not answer["ok"] and answer["error"] == error, line
        assert (error == english[line]) == (lang == "en"), line
    assert english["dice 1 2 3 4 7"] == "dice: a die shows 1..6, not '7'"
    # with the dice shown, the same cross is refused by the game's rule
    assert game.apply("dice 1 2 3 4 6")["ok"]
    answer = game.apply("cross ones")
    assert answer["error"] == i18n.translator(lang)(
        "this game has no crosses: write the box (0 where the dice do not fit)")


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
@pytest.mark.parametrize("ruleset, line, refusal", [
    ("ryzykant", "write", "this game takes splits only, as split 3+4 5+6 2"),
    ("ryzykant", "cross", "this game takes splits only, as split 3+4 5+6 2"),
    ("general", "cross", "this game has no crosses: write the box (0 where the dice do not fit)"),
    ("general", "write", "write: name the box, as write sixes"),
    ("poker-school", "cross", "cross: name the row, as cross sixes"),
])
def test_a_write_or_cross_without_a_box_is_refused_by_what_the_game_takes(ruleset, line,
                                                                          refusal, lang):
    """``write`` or ``cross`` with no box named: in a game without boxes or crosses it says
    so, as the same move with a box does, instead of asking to name a box it cannot take."""
    game = TableGame.new(ruleset, players=2, lang=lang, advice=False, seed=1)
    for dice in (None, "dice 1 2 3 4 6"):
        if dice:
            assert game.apply(dice)["ok"]
        answer = game.apply(line)
        assert not answer["ok"] and answer["error"] == i18n.translator(lang)(refusal), dice


def test_a_sheet_is_shown_with_every_name_in_the_players_language():
    sheet = "ones=3,fives=15/15/x,pair=12,taken=pair/chance/column2"
    assert i18n.sheet_in_language("poker-school", sheet) == sheet.replace(",", ", ")
    assert i18n.sheet_in_language("poker-school", sheet, "ru") == (
        "единицы=3, пятерки=15/15/x, пара=12, взяли соперники=пара/шанс/столбец 2")
    assert i18n.sheet_in_language("poker-school", sheet, "pl") == (
        "jedynki=3, piątki=15/15/x, para=12, zajęte przez rywali=para/szansa/kolumna 2")
    assert i18n.sheet_in_language("general", "sixes=24,general=x", "ru") == (
        "шестерки=24, генерал=x")
    assert i18n.sheet_in_language("general", "", "ru") == ""


GENERAL_BAD = [("--sheet", "ones"), ("--sheet", "ones=a"), ("--sheet", "foo=3"),
               ("--sheet", "ones=3,ones=3"), ("--sheet", "ones=7"), ("--roll", "4"),
               ("--dice", "1", "2", "3", "4", "7"),
               ("--sheet", "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,straight=x,"
                           "full_house=x,four=x,general=x")]
SCHOOL_BAD = ["pair", "foo=1", "pair=12,pair=12", "pair=12//12", "pair=12/", "pair=12/12/12/12/12",
              "ones=a", "ones=7", "twos=3", "ones=1", "pair=3", "pair=12/12/x/12", "pair=12/12/12/x",
              "pair=12/12/12/a", "pair=12/12/12/13", "taken=column4", "taken=foo",
              "pair=12/12/12/12,taken=pair", "pair=12/12/12/x,taken=fives"]
RYZYKANT_BAD = [("--sheet", "7"), ("--sheet", "13=1"), ("--sheet", "7=-1"), ("--sheet", "7=1,7=2"),
                ("--fifth", "1=1,2=1,3=1,4=1"), ("--fifth", "1=10"), ("--sheet", "7=1"),
                ("--sheet", "7=2", "--fifth", "1=1,2=1"), ("--sheet", "7=4", "--fifth", "1=1"),
                ("-o", "puscioch=reroll", "--sheet", "7=8", "--fifth", "1=1,2=1,3=1")]
BAD_INPUT = ([["general", "--roll", "1", "--dice", "1", "2", "3", "4", "5", *bad]
              for bad in GENERAL_BAD]
             + [["yahtzee", "--roll", "1", "--dice", "1", "2", "3", "4", "5", "--sheet", sheet]
                for sheet in ("yahtzee_bonus=1,yahtzee_bonus=2", "yahtzee_bonus=-1")]
             + [["poker-programs", "--roll", "1", "--dice", "1", "2", "3", "4", "5", "--sheet",
                 "poker=x"]]
             + [["poker-school", "--roll", "1", "--dice", "1", "2", "3", "4", "5", "--sheet", sheet]
                for sheet in SCHOOL_BAD]
             + [["ryzykant", "--dice", "1", "2", "3", "4", "5", *bad] for bad in RYZYKANT_BAD])


@pytest.mark.parametrize("args", BAD_INPUT, ids=lambda a: " ".join(a[:1] + a[-2:]))
def test_bad_input_is_refused_in_the_players_language(args, monkeypatch):
    """Impossible dice and sheets of every game: one error line and exit 2 in any language,
    said in Russian or Polish with the box names of that language."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    _no_locale(monkeypatch)
    said = {}
    for lang in ("en", "ru", "pl"):
        result = CliRunner().invoke(cli, ["advise", *args, "--lang", lang])
        assert result.exit_code == 2 and not result.stdout, result.output
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(ERROR_LINE[lang]), result.stderr
        said[lang] = lines[0]
    assert said["ru"] != said["en"] and said["pl"] != said["en"] and said["ru"] != said["pl"]
    assert not re.search(r"\b(the|is|not|of|cell|row|sheet entry)\b", said["ru"]), said["ru"]


DICE = ["--roll", "1", "--dice", "1", "2", "3", "4", "5"]
SETUP_BAD = [
    ["advise", "generl", *DICE], ["advise", "general", *DICE, "-o", "straight=foo"],
    ["advise", "general", *DICE, "-o", "foo=1"], ["advise", "general", *DICE, "-o", "straight"],
    ["advise", "general", *DICE, "-o", "straight=plain", "-o", "straight=plain"],
    ["advise", "poker-school", *DICE, "-o", "columns=7"],
    ["advise", "poker-school", *DICE, "-o", "columns=two"],
    ["advise", "poker-school", *DICE, "-o", "school_cross_erases=maybe"],
    ["advise", "risk", *DICE], ["advise", "general", *DICE, "--fifth", "1=1"],
    ["advise", "general", *DICE, "--players", "3", "--opponent-sheet", "ones=1"],
    ["advise", "general", "--dice", "1", "2", "3", "4", "5", "--players", "2"],
    ["advise", "general", *DICE, "--opponent-sheet", "ones=1"],
    ["chance", "general", "--target", "300", "--players", "2"], ["chance", "general"],
    ["play", "general", "--names", "Ann,Ann"], ["play", "general", "--players", "3",
                                               "--names", "Ann,Bob"],
    ["play", "general", "-o", "foo=1"], ["play"], ["play", "general", "--resume", "x.json"],
    ["table", "general", "--json", "--format", "csv"], ["table", "general", "--plot", "x.png"],
    ["table", "general", "--what", "opening", "--out", "."], ["rules", "generl"],
    ["table", "general", "--out", ""],
    ["table", "general", "--what", "nope"],
    ["advise", "general", "--dice", "1", "2", "3", "4", "5"],  # no --roll
    ["advise", "poker-school", "--dice", "1", "2", "3", "4", "5"],
    # refused by the command line's parser, before the command runs
    ["advise"], ["advize"], ["advise", "general", "--rol", "1"],
    ["advise", "general", "--roll", "1.5", "--dice", "1", "2", "3", "4", "5"],
    ["advise", "general", *DICE, "6"], ["advise", "general", "--dice", "1", "2"],
    ["advise", "general", "--roll", "1", "--dice", "2", "2", "4", "6", "--json"],
    ["play", "general", "--players", "abc"], ["play", "general", "--players", "9"],
    ["table", "general", "--format", "xml"], ["rules", "general", "--json=3"],
]


@pytest.mark.parametrize("args", SETUP_BAD, ids=" ".join)
def test_bad_settings_are_refused_in_the_players_language(args, monkeypatch):
    """Unknown games and options, bad option values, player counts and names, flags that do
    not go together: one error line and exit 2, in the language the command speaks."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    _no_locale(monkeypatch)
    said = {}
    for lang in ("en", "ru", "pl"):
        result = CliRunner().invoke(cli, [*args, "--lang", lang])
        assert result.exit_code == 2 and not result.stdout, result.output
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(ERROR_LINE[lang]), result.stderr
        said[lang] = lines[0]
    assert said["ru"] != said["en"] and said["pl"] != said["en"] and said["ru"] != said["pl"]
    english = r"\b(the|is|not|of|for|give|takes|unknown|option|names?|see|need)\b"
    assert not re.search(english, said["ru"]), said["ru"]
    assert not re.search(english, said["pl"].replace("--", "")), said["pl"]


_PRIZE = i18n.Message("a prize taken twice: {prizes} is earned on two sheets (the first to earn "
                      "it takes it; the others' sheets say taken=)",
                      prizes=i18n.Listing([i18n.Box("poker-school", "pair")]))


def _with_help(message, command: str) -> i18n.Message:
    """Arguments that do not go together, refused as click refuses a command line: with the
    help to read (the test runner names the program ``cli``)."""
    return i18n.Message("{error} (see `{command} --help`)", error=message,
                        command=f"cli {command}")


def _stages(one: str, many: str, **fields) -> i18n.Plural:
    """The refusal of sheets from different stages of a game, the mover's count ``k`` of
    boxes or cells said as it counts (1 box, 2 boxes)."""
    text = ("sheets from different stages of a game: the mover has {k} %s, the rivals "
            "{counts}; in seat order a rival has {k} (it moves later this round) or {next} (it "
            "moved)")
    return i18n.Plural(text % one, text % many, fields["k"], **fields)


#: Refusals a player reaches from the command line, each with the message it must say (in
#: English exactly as before, in Russian and Polish through the catalogs).
REFUSED = {
    "general-table-stages": (
        ["advise", "general", *DICE, "--players", "3", "--opponent-sheet", "ones=1",
         "--opponent-sheet", "ones=1,twos=2,threes=3"],
        _stages("box filled", "boxes filled", k=0, counts="1, 3", next=1)),
    "general-table-stages-chance": (
        ["chance", "general", "--players", "3", "--games", "10", "--opponent-sheet", "ones=1",
         "--opponent-sheet", "ones=1,twos=2,threes=3"],
        _stages("box filled", "boxes filled", k=0, counts="1, 3", next=1)),
    "poker-school-table-stages": (
        ["advise", "poker-school", *DICE, "--players", "3", "--sheet", "threes=9",
         "--opponent-sheet", "ones=3/3/3", "--opponent-sheet", "twos=6"],
        _stages("cell written", "cells written", k=1, counts="3, 1", next=2)),
    "poker-school-prize-twice": (
        ["advise", "poker-school", *DICE, "--players", "2", "--sheet", "pair=12/12/12",
         "--opponent-sheet", "pair=12/12/12"], _PRIZE),
    "ryzykant-table-stages": (
        ["advise", "ryzykant", "--dice", "1", "2", "3", "4", "5", "--players", "2",
         "--opponent-sheet", "7=4", "--opponent-fifth", "1=1,2=1"],
        i18n.Message("sheets from different stages of a game: the mover has split {mine} rolls, "
                     "a rival {theirs}; on shared rolls a rival still playing has split {mine} "
                     "(or {next}: this roll too), one whose game ended no more",
                     mine=0, theirs=2, next=1)),
    "ryzykant-rival-past-the-end": (
        ["advise", "ryzykant", "--dice", "1", "2", "3", "4", "5", "--players", "2", "-o",
         "end_marks=1", "--opponent-sheet", "7=4", "--opponent-fifth", "1=2"],
        i18n.Message("rival sheet {number}: {why}", number=1, why=i18n.Message(
            "a rival's fifth {fifth!r} goes past the end of a game (end_marks={end_marks})",
            fifth="1=2", end_marks=1))),
    "ryzykant-puscioch-reroll": (
        ["advise", "ryzykant", "--dice", "4", "4", "5", "5", "6", "-o", "puscioch=reroll",
         "--sheet", "8=6", "--fifth", "1=1,2=1,3=1"],
        i18n.Message("with puscioch=reroll this roll (none of the three chosen faces) is "
                     "thrown again")),
    "table-plot-format": (
        ["table", "general", "--what", "target", "--plot", "x.xyz"],
        i18n.Message("cannot draw a .{format} image (name a .png, .svg, .pdf... file)",
                     format="xyz")),
    "two-players-not-solved": (
        ["chance", "poker-school", "--players", "2"],
        i18n.Message("{game} is not solved for two players", game="poker-school")),
    "target-policy-not-a-number": (
        ["simulate", "general", "--policy", "target:abc", "--games", "10"],
        i18n.Message("a target policy is target:T with T a whole number of at "
                     "least 0, not {policy!r}",
                     policy="target:abc")),
    "duel-too-few-games": (
        ["duel", "general", "--players", "5", "--games", "3", "--a", "optimal", "--b",
         "optimal"],
        i18n.Plural("{players} player needs at least {players} game (one per seat)",
                    "{players} players need at least {players} games (one per seat)", 5,
                    players=5)),
    "duel-seats": (
        ["duel", "poker-school", "--players", "5"],
        i18n.Message("a table of {game} seats {seats} players, not {players}",
                     game="poker-school", seats="2, 3, 4", players=5)),
    "chance-games-of-two": (  # --games and --seed play out tables of three or more only
        ["chance", "general", "--players", "2", "--games", "10"],
        _with_help(i18n.Message("--games and --seed are for --players N (3 or more)"),
                   "chance")),
    "chance-table-of-three": (
        ["chance", "general", "--players", "3", "--table", "/no such table.dwt"],
        _with_help(i18n.Message("--table is for one or two players"), "chance")),
    "ryzykant-sheet-entry": (  # the sheet and its notation's words said in the language too
        ["advise", "ryzykant", "--dice", "3", "4", "4", "5", "6", "--sheet", "6-4"],
        i18n.Message("{what} entry {entry} is not of the form {form}=MARKS",
                     what=i18n.Message("sheet"), entry="'6-4'", form=i18n.Message("SUM"))),
    "chance-table-size": (  # the table's size first: no duel to point to at five
        ["chance", "poker-school", "--players", "5"],
        i18n.Message("a table of {game} seats {seats} players, not {players}",
                     game="poker-school", seats="2, 3, 4", players=5)),
    "resume-missing-file": (  # the system's reason said in the player's language too
        ["play", "general", "--resume", "/no such game.json"],
        i18n.Message("cannot read {path}: {why}", path="/no such game.json",
                     why=i18n.Message("No such file or directory"))),
    "out-in-a-folder-that-takes-no-files": (  # its lock failed with a traceback
        ["solve", "general", "--out", "/proc/table.dwt"],
        i18n.Message("cannot write {path}: {why}", path="/proc/table.dwt",
                     why=i18n.Message("No such file or directory"))),
    "seat-policy": (  # refused before poker-school's table is built (minutes)
        ["duel", "poker-school", "--players", "3", "--a", "search", "--b", "greedy"],
        i18n.Message("a table of {game} seats the policies {policies}, not {policy!r}",
                     game="poker-school", policies="win, optimal, greedy, random",
                     policy="search")),
    "table-path-a-folder": (
        ["advise", "general", *DICE, "--table", "/"],
        i18n.Message("{path} is not a regular file", path="/")),
    "table-path-no-folder": (
        ["advise", "general", *DICE, "--table", "/no such folder/t.dwt"],
        i18n.Message("folder {folder} does not exist", folder="/no such folder")),
    "duel-one-game": (
        ["duel", "general", "--players", "2", "--games", "1"],
        i18n.Message("a duel needs at least 2 games (one per seat)")),
    "duel-exact-pair": (
        ["duel", "general", "--players", "2", "--a", "win", "--b", "win", "--exact"],
        _with_help(i18n.Message("--exact compares win against optimal (expected-score) play"),
                   "duel")),
    "two-player-policy": (
        ["duel", "general", "--players", "2", "--a", "greedy"],
        i18n.Message("unknown two-player policy {name!r} (policies: {policies})", name="greedy",
                     policies="win, optimal")),
    "two-players-sheets-out-of-turn": (
        ["advise", "general", *DICE, "--players", "2", "--sheet", "ones=3,twos=6",
         "--opponent-sheet", ""],
        i18n.Message("boxes filled: {mover} by the player to move, {other} by the opponent; "
                     "turns alternate, so the mover has as many boxes as the opponent (first "
                     "player) or one fewer (second player)", mover=2, other=0)),
    "yahtzee-bonus-not-armed": (
        ["advise", "yahtzee", *DICE, "--sheet", "yahtzee=0,ones=3,yahtzee_bonus=1"],
        i18n.Message("yahtzee_bonus needs yahtzee=50 (and a joker rule other than off)")),
    "yahtzee-bonus-too-many": (
        ["chance", "yahtzee", "--target", "200", "--sheet", "yahtzee=50,yahtzee_bonus=1"],
        i18n.Message("yahtzee_bonus={bonus}: each bonus Yahtzee fills another box, and only "
                     "{filled} are filled", bonus=1, filled=0)),
    "table-file-missing": (
        ["advise", "general", *DICE, "--table", "/no such table.dwt"],
        i18n.Message("table file {path} does not exist", path="/no such table.dwt")),
    "table-file-not-a-table": (  # no rebuild offered over a file that is none of ours
        ["advise", "general", *DICE, "--table", __file__],
        i18n.Message("{why}; give a table file, or build one in another file: {command} "
                     "--out FILE (with these --option flags)", command="dicewise solve general",
                     why=i18n.Message("{path} is not a dicewise table file, or it is truncated",
                                      path=__file__))),
}


#: The optional extra a case needs to be refused for its own reason.
NEEDS = {"table-plot-format": "matplotlib"}


@pytest.mark.parametrize("lang", ["ru", "pl"])
@pytest.mark.parametrize("case", REFUSED)
def test_a_refusal_once_left_in_english_is_said_in_the_players_language(case, lang,
                                                                         monkeypatch):
    """Impossible tables of several players (General, poker-school, Ryzykant), a prize on two
    sheets, a re-thrown puścioch, a plot of an unknown kind, a duel that cannot be played
    (refused before its two-player table is built): one line, exit 2, in the language asked;
    English word for word as before."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    if case in NEEDS:
        pytest.importorskip(NEEDS[case], reason=f"the extra with {NEEDS[case]} is not installed")
    _no_locale(monkeypatch)
    args, message = REFUSED[case]
    said = {}
    for language in ("en", lang):
        result = CliRunner().invoke(cli, [*args, "--lang", language])
        assert result.exit_code == 2 and not result.stdout, result.output
        said[language] = result.stderr
    assert said["en"] == f"dicewise: error: {message}\n"
    shown = message.in_language(i18n.translator(lang))
    assert said[lang] == f"{ERROR_LINE[lang]}{shown}\n" and shown != str(message)


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_an_unknown_scheduler_and_language_are_refused_in_the_players_language(lang,
                                                                               monkeypatch):
    """``solve --scheduler`` that names none (refused before the solve says it starts), and
    a ``--lang`` dicewise does not speak (said in the locale's)."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    _no_locale(monkeypatch)
    tr = i18n.translator(lang)
    result = CliRunner().invoke(cli, ["solve", "general", "--players", "2", "--scheduler", "mpi",
                                      "--lang", lang])
    message = i18n.Message("unknown scheduler {scheduler!r} (processes, threads, dask-threads, "
                           "local, or a dask.distributed address such as tcp://host:8786)",
                           scheduler="mpi")
    assert result.exit_code == 2 and not result.stdout, result.output
    shown = message.in_language(tr)
    assert result.stderr == f"{ERROR_LINE[lang]}{shown}\n" and shown != message
    monkeypatch.setenv("LANG", f"{lang}_{lang.upper()}.UTF-8")
    result = CliRunner().invoke(cli, ["advise", "general", *DICE, "--lang", "de"])
    message = i18n.Message("unknown language {lang!r} (languages: {languages})", lang="de",
                           languages="en, ru, pl")
    assert result.exit_code == 2 and result.stderr == (
        f"{ERROR_LINE[lang]}{message.in_language(tr)}\n")
    assert message.in_language(tr) != message


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_a_missing_matplotlib_is_said_in_the_players_language(lang, monkeypatch):
    import sys

    from click.testing import CliRunner

    from dicewise.cli.main import cli

    _no_locale(monkeypatch)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    result = CliRunner().invoke(cli, ["table", "general", "--what", "target", "--plot", "x.png",
                                      "--lang", lang])
    message = i18n.Message("plots need matplotlib: pip install 'dicewise[plot]'")
    assert result.exit_code == 2 and result.stderr == (
        f"{ERROR_LINE[lang]}{message.in_language(i18n.translator(lang))}\n")
    assert "matplotlib" in result.stderr and "need" not in result.stderr


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_a_symbolic_link_loop_is_said_in_the_players_language(lang, tmp_path, monkeypatch):
    """A saved game behind a loop of symbolic links: the system's reason in the player's
    language too, as for a missing file."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    _no_locale(monkeypatch)
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    path = str(tmp_path / "a.json")
    result = CliRunner().invoke(cli, ["play", "general", "--resume", path, "--lang", lang])
    message = i18n.Message("cannot read {path}: {why}", path=path,
                           why=i18n.Message("Too many levels of symbolic links"))
    shown = message.in_language(i18n.translator(lang))
    assert result.exit_code == 2 and result.stderr == f"{ERROR_LINE[lang]}{shown}\n"
    assert "Too many levels" not in shown


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_the_pages_game_refusals_are_said_in_the_players_language(lang, tmp_path, monkeypatch):
    """``serve``: a name too long for the page, a full server, a game that cannot be saved."""
    import os

    pytest.importorskip("starlette")
    from dicewise.web import games

    tr = i18n.translator(lang)
    store = games.GameStore(tmp_path)
    with pytest.raises(DicewiseError) as refused:
        store.new({"ruleset": "general", "players": 2, "names": ["A" * 41, "B"], "lang": lang})
    assert str(refused.value) == tr("names must be a list of texts of 1 to 40 characters")
    new = {"ruleset": "general", "players": 1, "lang": lang, "advice": False, "seed": 1}
    game_id = store.new(new)["game"]
    store.apply(game_id, "roll")
    monkeypatch.setattr(games, "MAX_GAMES", 1)
    with pytest.raises(DicewiseError) as refused:
        store.new(new)
    assert str(refused.value) == tr.ngettext(
        "this server already keeps {n} game; remove old ones from {folder}",
        "this server already keeps {n} games; remove old ones from {folder}", 1).format(
        n=1, folder=tmp_path)
    monkeypatch.setattr(games, "MAX_GAMES", 100)

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(games.NotSaved) as refused:
        store.new(new)
    full = tr("No space left on device")  # the system's reason, in the player's words too
    assert full != "No space left on device"
    assert str(refused.value) == tr("cannot save the game ({why})").format(why=full)
    with pytest.raises(games.NotSaved) as refused:
        store.apply(game_id, "write ones")
    assert str(refused.value) == tr("cannot save the game ({why}); the last move is not "
                                    "kept").format(why=full)
    assert str(refused.value) != i18n.translator("en")(
        "cannot save the game ({why}); the last move is not kept").format(
        why="No space left on device")


def test_a_refused_command_line_names_what_is_wrong(monkeypatch):
    """The parser's refusals name the option and what it takes; they follow ``--lang`` or
    the locale where the command speaks one, else (and for a language dicewise does not
    speak) they stay English."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    def refused(*args):
        result = CliRunner().invoke(cli, list(args), prog_name="dicewise")
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
        line = result.stderr.rstrip("\n")
        start = next(s for s in ERROR_LINE.values() if line.startswith(s))
        return line.removeprefix(start)

    _no_locale(monkeypatch)
    assert refused("advise") == "missing argument RULESET (see `dicewise advise --help`)"
    assert refused("play", "general", "--players", "abc").startswith(
        "--players abc: give a whole number from 1 to 6 (see")
    assert refused("advise", "general", "--roll", "1", "--dice", "1", "2", "x", "4",
                   "5").startswith("--dice 1 2 x 4 5: give a whole number (see")
    assert refused("advise", "general", "--rol", "1").startswith(
        "no such option --rol (did you mean --roll")
    assert refused("advise", "general", "--dice", "1", "2").startswith(
        "option --dice takes 5 values")
    assert refused("advise", "general", *DICE, "6", "6").startswith("unexpected arguments: 6 6")
    assert refused("advise", "general", "--roll", "x", "--lang", "de").startswith(
        "--roll x: give a whole number")
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    assert refused("advise").startswith(i18n.translator("ru")("missing argument {name}").format(
        name="RULESET"))
    assert refused("bench-agent", "general", "--games", "0").startswith(  # speaks no language
        "--games 0: give a whole number from 1 to")
    assert refused("simulate", "general", "--games", "0").startswith("--games 0: " + i18n.translator(
        "ru")("give a whole number from {low} to {high}").format(low=1, high=10**8))


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_a_saved_game_is_refused_in_the_players_language(lang, tmp_path, monkeypatch):
    """``play --resume`` of a file that is no saved game, and ``save`` into a folder."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli
    from dicewise.play.session import TableGame

    _no_locale(monkeypatch)
    for text in ("not json", '{"format": "something else"}'):
        (tmp_path / "game.json").write_text(text)
        result = CliRunner().invoke(cli, ["play", "--resume", str(tmp_path / "game.json"),
                                          "--lang", lang])
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
        english = CliRunner().invoke(cli, ["play", "--resume", str(tmp_path / "game.json"),
                                           "--lang", "en"])
        assert result.stderr != english.stderr and "dicewise" in result.stderr
    game = TableGame.new("general", players=2, lang=lang, advice=False)
    saved = {**game.to_json(), "lang": "en", "events": [{"dice": [9, 9, 9, 9, 9]}]}
    (tmp_path / "game.json").write_text(json.dumps(saved))  # an English game that cannot replay
    result = CliRunner().invoke(cli, ["play", "--resume", str(tmp_path / "game.json"),
                                      "--lang", lang])
    tr = i18n.translator(lang)
    assert result.exit_code == 2 and result.stderr == ERROR_LINE[lang] + tr(
        "the saved game does not replay: {why}").format(why=tr("event {number}, {event}: {why}")
        .format(number=1, event='{"dice": [9, 9, 9, 9, 9]}', why=tr("a die shows 1..6"))) + "\n"
    answer = game.apply(f"save {tmp_path}")
    assert not answer["ok"] and answer["error"] == i18n.translator(lang)(
        "{path} is a directory; give a file name").format(path=tmp_path)


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_a_damaged_save_is_refused_in_one_line_of_the_players_language(lang, tmp_path,
                                                                         monkeypatch):
    """``play --resume`` of a file whose fields a hand broke: ``dicewise: error:`` and one
    line in ``--lang``, never Python's own words, status 2."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli
    from dicewise.play.session import TableGame

    _no_locale(monkeypatch)
    saved = TableGame.new("general", players=2, seed=5, advice=False).to_json()
    tr = i18n.translator(lang)
    for broken, expected in [
            ({"options": 5}, tr("the saved game is damaged: its options are not an object of "
                                "names and values but {value}").format(value=5)),
            ({"events": "abc"}, tr("the saved game is damaged: its events are not a list but "
                                   "{value}").format(value='"abc"')),
            ({"events": [{"dice": [1, 2, 3, 4, 5]}, {"action": 5}]},
             tr("the saved game does not replay: {why}").format(
                 why=tr("event {number}, {event}: {why}").format(
                     number=2, event='{"action": 5}',
                     why=tr("not an event of a game: {event}").format(event='{"action": 5}'))))]:
        (tmp_path / "game.json").write_text(json.dumps({**saved, **broken}))
        result = CliRunner().invoke(cli, ["play", "--resume", str(tmp_path / "game.json"),
                                          "--lang", lang])
        assert result.exit_code == 2 and result.stderr == f"{ERROR_LINE[lang]}{expected}\n", (
            broken, result.stderr)
    # held to a new game's checks: a name too long for a sheet, as play --names refuses it
    (tmp_path / "game.json").write_text(json.dumps({**saved, "names": ["A" * 5000, "B"]}))
    resumed = CliRunner().invoke(cli, ["play", "--resume", str(tmp_path / "game.json"),
                                       "--lang", lang])
    new = CliRunner().invoke(cli, ["play", "general", "--names", "A" * 41 + ",B", "--lang", lang])
    assert resumed.exit_code == new.exit_code == 2 and resumed.stderr == new.stderr == (
        ERROR_LINE[lang] + tr("names must be a list of texts of 1 to 40 characters") + "\n")
    # a game with no table play, refused as such before its options are read
    (tmp_path / "game.json").write_text(json.dumps({**saved, "ruleset": "risk"}))
    result = CliRunner().invoke(cli, ["play", "--resume", str(tmp_path / "game.json"),
                                      "--lang", lang])
    assert result.exit_code == 2 and result.stderr == ERROR_LINE[lang] + tr(
        "{game} has no `{command}` (see `dicewise {group} --help`)").format(
            game="risk", command="play", group="risk") + "\n"
    missing = {k: v for k, v in saved.items() if k != "events"}
    (tmp_path / "game.json").write_text(json.dumps(missing))
    result = CliRunner().invoke(cli, ["play", "--resume", str(tmp_path / "game.json"),
                                      "--lang", lang])
    assert result.exit_code == 2 and result.stderr == ERROR_LINE[lang] + tr(
        "the saved game is damaged: it has no {field}").format(field="events") + "\n"


def table_columns() -> set[str]:
    """The column names of every strategy table in the package (``header = [...]`` and the
    headers given to ``StrategyTable``)."""
    found = set()
    for node in package_nodes():
        lists = []
        target = getattr(node.targets[0], "id", "") if isinstance(node, ast.Assign) else ""
        if target == "header" or target.endswith("_COLUMNS"):  # protocol.OPENING_COLUMNS
            lists.append(node.value)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "StrategyTable":
            lists.extend(a for a in node.args if isinstance(a, ast.List))
        for value in lists:
            if isinstance(value, (ast.List, ast.Tuple)):
                found |= {e.value for e in value.elts if isinstance(e, ast.Constant)}
    return found


# Polish walks the same tables as Russian, in its own catalog: CI's second step runs it
@pytest.mark.parametrize("lang", ["ru", pytest.param("pl", marks=pytest.mark.slow)])
def test_every_table_column_has_a_name_for_people(lang):
    columns = table_columns()
    assert {"runner_up_expected", "expected_remaining_points", "premium_rate", "share_of_score",
            "probability_expected_score_policy"} <= columns  # the scan finds them
    tr = i18n.translator(lang)
    assert not {c for c in columns if tr(c) == c}


@pytest.mark.slow  # strategy tables in three languages
def test_a_strategy_table_for_people_in_their_language(monkeypatch):
    """``table --format text --lang ru|pl``: column names, choices, boxes and why a roll ends
    the game said in the language; csv and json the same in every language."""
    from click.testing import CliRunner

    from dicewise import api
    from dicewise.cli.main import cli
    from dicewise.cli.measure import _text_table

    _no_locale(monkeypatch)
    tables = {}
    for what in ("opening", "states", "categories"):
        table = tables[what] = api.strategy_table("general", what, games=300)
        text = {lang: _text_table(table.header, table.rows, i18n.translator(lang))
                for lang in ("en", "ru", "pl")}
        assert len({len(t.splitlines()) for t in text.values()}) == 1
        assert not re.search("[A-Za-z]", text["ru"]), text["ru"][:1000]
        assert text["pl"] != text["en"] and not re.search(r"\b(keep|write|ones|best)\b", text["pl"])
        assert text["en"].split("\n", 1)[0].split() == table.header

    def run(*args):
        result = CliRunner().invoke(cli, ["table", "general", "--what", "opening", *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    opening = run("--format", "text", "--lang", "ru").splitlines()
    assert opening[0].split()[:3] == ["бросок", "кости", "лучший"]
    kept = r"оставить 1 1 1 1 \(перебросить 1; ещё (1 бросок|2 броска)\)"
    assert any(re.search(kept, line) for line in opening)
    assert any("записать в графу «полный дом»: 35" in line for line in opening)
    assert "пять одинаковых с первого броска заканчивают игру" in opening[1]
    table = tables["opening"]
    csv_lines = run("--format", "csv", "--lang", "ru").splitlines()  # for programs: English
    assert csv_lines[0] == ",".join(table.header) and len(csv_lines) == len(table.rows) + 1
    row = next(i for i, r in enumerate(table.rows) if r[:2] == [1, "1 1 1 2 2"])
    assert csv_lines[row + 1].split(",")[2:5:2] == [table.rows[row][2], table.rows[row][4]] == [
        "write full_house (35)", "keep 1 1 1"]


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_every_ruleset_is_described_in_the_players_language(lang, monkeypatch):
    """``rules --lang``: every game's title, sheet notation, option help and command note has
    a translation, and ``rules`` says them (names typed on the command line stay as typed)."""
    from click.testing import CliRunner

    from dicewise import api
    from dicewise.cli.main import cli
    from dicewise.solver.registry import GAMES

    _no_locale(monkeypatch)
    tr = i18n.translator(lang)
    for name in GAMES:
        info = api.describe(name)
        sheet = info["sheet"]
        texts = [info["title"], *(o["help"] for o in info["options"]),
                 *info["command_notes"].values()]
        assert isinstance(sheet, i18n.Message) or not sheet, name  # said by its template
        texts += [sheet.template] if sheet else []
        assert not [t for t in texts if tr(t) == t], name
        said = CliRunner().invoke(cli, ["rules", name, "--lang", lang])
        english = CliRunner().invoke(cli, ["rules", name])
        assert said.exit_code == english.exit_code == 0
        assert len(unwrapped(said.stdout)) == len(unwrapped(english.stdout))
        assert tr(info["title"]) in unwrapped(said.stdout)[0]
        assert not set(unwrapped(said.stdout)) & set(unwrapped(english.stdout))
        for o in info["options"]:
            assert tr(o["help"]) in joined(said.stdout)
    listing = unwrapped(CliRunner().invoke(cli, ["rules", "--lang", lang]).stdout)
    assert len(listing) == len(GAMES) and all(tr(api.describe(n)["title"]) in line
                                              for n, line in zip(GAMES, listing))
    general = CliRunner().invoke(cli, ["rules", "general", "--lang", "ru"]).stdout
    assert "графы: единицы (ones), двойки (twos)" in general
    assert CliRunner().invoke(cli, ["rules", "general", "--json", "--lang", lang]).stdout == \
        CliRunner().invoke(cli, ["rules", "general", "--json"]).stdout


def test_a_table_being_built_is_said_in_the_players_language(monkeypatch, empty_cache):
    """The progress line of a first solve speaks the command's language."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    _no_locale(monkeypatch)
    result = CliRunner().invoke(cli, ["advise", "general", *DICE, "--lang", "pl"])
    assert result.exit_code == 0, result.output
    assert i18n.translator("pl")("solving {game}").format(game="general") + " ..." in (
        result.stderr.splitlines())


def _commands():
    """Every command of the top group, by name, and whether it speaks ``--lang``."""
    from dicewise.cli.main import cli

    ctx = cli.make_context("dicewise", ["rules"])
    commands = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    return cli, {name: (command, any(p.name == "lang" for p in command.params))
                 for name, command in commands.items()}


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_every_help_screen_a_player_reads_is_translated(lang):
    """The commands that speak ``--lang``: every paragraph of their help and every option's
    help; every command's first sentence in the list; the group's own help."""
    from dicewise.cli.helptext import paragraphs

    cli, commands = _commands()
    tr = i18n.translator(lang)
    wanted = paragraphs(cli.help) + [p.help for p in cli.params if p.help]
    for command, speaks in commands.values():
        wanted += paragraphs(command.help) if speaks else paragraphs(command.help)[:1]
        if speaks:
            wanted += [" ".join(p.help.split()) for p in command.params if p.help]
    wanted += ["Usage: ", "Options", "Commands", "default: ", "required",
               "Show this message and exit."]
    assert [text for text in wanted if tr(text) == text] == []


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_help_follows_lang_and_the_locale(lang, monkeypatch):
    """``--help`` of a command that speaks, with ``--lang`` or the locale; the command list
    in the locale's language; English as click renders it; a command that speaks no
    language keeps its English help."""
    from click.testing import CliRunner

    from dicewise.cli.helptext import paragraphs

    cli, commands = _commands()

    def helped(*args):
        result = CliRunner().invoke(cli, list(args), prog_name="dicewise")
        assert result.exit_code == 0, result.output
        return result.stdout

    _no_locale(monkeypatch)
    english = helped("advise", "--help")
    assert english.startswith("Usage: dicewise advise [OPTIONS] RULESET")
    assert "[default: 1; 1<=x<=6]" in english and "Show this message and exit." in english
    words = r"\b(the|of|for|and|with|show|this|Usage|Options|Commands|default|required)\b"
    tr = i18n.translator(lang)
    for name, (command, speaks) in commands.items():
        if speaks:
            said = helped(name, "--help", "--lang", lang)
            assert said.startswith(tr("Usage: ") + f"dicewise {name} ") and said == helped(
                name, "--lang", lang, "--help")
            assert not re.search(words, re.sub(r"`[^`]*`|\"[^\"]*\"", "", said)), said
    monkeypatch.setenv("LANG", f"{lang}_{lang.upper()}.UTF-8")
    listing = helped("--help")
    assert listing.startswith(tr("Usage: ")) and tr("Commands") + ":" in listing
    for name, (command, _) in commands.items():  # each command's first words, in the language
        first = tr(paragraphs(command.help)[0]).split()[:2]
        assert re.search(rf"\n  {name} +{re.escape(' '.join(first))}", listing), (name, listing)
    assert helped("advise", "--help") == helped("advise", "--help", "--lang", lang)
    # a language dicewise does not speak: the locale's, in which its refusal is said too
    assert helped("advise", "--lang", "xx", "--help") == helped("advise", "--help")
    assert helped("bench-agent", "--help").startswith("Usage: dicewise bench-agent")


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_a_groups_lang_says_its_help_and_is_its_commands_language(lang, monkeypatch):
    """``dicewise --lang ru`` (and ``dicewise risk --lang pl``): the group's help in that
    language, on either side of ``--help``, and the language of the commands after it,
    their refusals included, unless they are given their own."""
    from click.testing import CliRunner

    cli, _ = _commands()

    def run(*args):
        return CliRunner().invoke(cli, list(args), prog_name="dicewise")

    _no_locale(monkeypatch)
    tr = i18n.translator(lang)
    for group in ([], ["risk"]):
        said = run(*group, "--help", "--lang", lang)
        assert said.exit_code == 0 and said.stdout.startswith(tr("Usage: ") + "dicewise")
        assert said.stdout == run(*group, "--lang", lang, "--help").stdout
        assert said.stdout != run(*group, "--help").stdout
    assert run("--lang", lang, "rules").stdout == run("rules", "--lang", lang).stdout
    assert run("--lang", lang, "risk", "battle", "3", "2").stdout == run(
        "risk", "battle", "3", "2", "--lang", lang).stdout == run(
        "risk", "--lang", lang, "battle", "3", "2").stdout
    assert run("--lang", "ru", "rules", "--lang", "en").stdout == run("rules").stdout
    refused = run("--lang", lang, "advise", "general", "--roll", "1", "--dice", *"12349")
    assert refused.exit_code == 2 and re.fullmatch(
        ERROR_LINE[lang] + r"\S.*9.*\n", refused.stderr), refused.stderr
    missing = run("--lang", lang)
    assert missing.exit_code == 2 and missing.stderr.startswith(ERROR_LINE[lang]) and tr(
        "missing command (the commands: {commands})").split(" (")[0] in missing.stderr
    unknown = run("--lang", "xx", "rules")
    assert unknown.exit_code == 2 and "unknown language 'xx'" in unknown.stderr
    for empty in (["--lang", "", "rules"], ["rules", "--lang", ""],
                  ["table", "general", "--lang", ""]):  # an empty language is not the locale's
        refused = run(*empty)
        assert refused.exit_code == 2 and refused.stderr == (
            "dicewise: error: unknown language '' (languages: en, ru, pl)\n"), refused.stderr
    assert run("--lang", "xx", "--help").stdout == run("--help").stdout


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_a_help_screen_says_clicks_placeholders_in_the_players_language(lang, monkeypatch):
    """The usage line's [OPTIONS] and the options' values (TEXT, INTEGER RANGE, PATH) are
    said in the language of the help around them; English keeps click's words."""
    from click.testing import CliRunner

    cli, commands = _commands()

    def helped(*args):
        return CliRunner().invoke(cli, list(args), prog_name="dicewise").stdout

    _no_locale(monkeypatch)
    clicks = re.compile(r"\[OPTIONS\]|COMMAND \[ARGS\]|\b(TEXT|INTEGER|PATH)\b")
    assert clicks.search(helped("advise", "--help"))
    said = [helped(name, "--help", "--lang", lang)
            for name, (_, speaks) in commands.items() if speaks]
    monkeypatch.setenv("LANG", f"{lang}_{lang.upper()}.UTF-8")
    said.append(helped("--help"))
    assert [text for text in said if clicks.search(text)] == []


def test_a_duel_that_cannot_be_played_is_refused_before_any_table_is_built(tmp_path,
                                                                           monkeypatch):
    """An unknown policy, one game, or --exact on another pair: refused at once, not after
    minutes of building the two-player table."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path))
    for case in ("two-player-policy", "duel-one-game", "duel-exact-pair"):
        result = CliRunner().invoke(cli, REFUSED[case][0])
        assert result.exit_code == 2, result.output
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("lang,games,speed", [("en", "2,048", r"[\d,]+"),
                                              ("ru", "2\u00a0048", "[\\d\u00a0]+"),
                                              ("pl", "2\u00a0048", "[\\d\u00a0]+")])
def test_thousands_are_grouped_as_the_language_writes_them(lang, games, speed, monkeypatch):
    """Russian and Polish write 2,048 as 2 048: their decimal mark is the comma, so the
    English grouping would read as two point nought four eight."""
    _no_locale(monkeypatch)
    first = _advise("simulate", "poker-programs", "--games", "2048", "--policy", "greedy",
                    "--lang", lang).splitlines()[0]
    assert games in first and re.search(speed + "( |$)", first), first
    assert bool(re.search(r"\d,\d", first)) == (lang == "en")
    assert i18n.Number(1234567.891, ",.2f").in_language(i18n.translator("pl")) == \
        "1\u00a0234\u00a0567,89"
    assert pickle.loads(pickle.dumps(i18n.Number(10**6))).in_language(i18n.translator("ru")) == \
        "1\u00a0000\u00a0000"


# Polish takes Russian's path with another catalog: CI's second step runs it
@pytest.mark.parametrize("lang", ["ru", pytest.param("pl", marks=pytest.mark.slow)])
@pytest.mark.parametrize("command", [
    ADVISE, ["simulate", "general", "--games", "300", "--seed", "3"],
    ["duel", "general", "--games", "40", "--a", "optimal", "--b", "greedy"],
    ["table", "general", "--what", "categories", "--games", "200", "--format", "text"],
    ["risk", "battle", "5", "3"], ["risk", "cards", "--turns", "2"]])
def test_russian_and_polish_write_decimals_with_a_comma(command, lang, monkeypatch):
    """What a player reads has the decimal comma of the language (0,25), every figure of it,
    while English and --json keep the point."""
    _no_locale(monkeypatch)
    said = _advise(*command, "--lang", lang)
    assert re.search(r"\d,\d", said) and not re.search(r"\d\.\d", said), said
    assert re.search(r"\d\.\d", _advise(*command, "--lang", "en"))


def test_keeping_nothing_has_its_own_words():
    """"Keep nothing" said as "keep {kept}" with "nothing" reads wrong in Russian and Polish."""
    said = {lang: i18n.choice_text("general", {"keep": []}, {"rolls_left": 2},
                                   i18n.translator(lang)) for lang in ("en", "ru", "pl")}
    assert said == {"en": "keep nothing (reroll all five; 2 rolls left)",
                    "ru": "ничего не оставлять (перебросить все пять; ещё 2 броска)",
                    "pl": "nic nie zostawiaj (przerzuć wszystkie pięć; zostały 2 rzuty)"}


@pytest.mark.parametrize("n, form", [(0, "0 points"), (1, "1 point"), (2, "2 points"),
                                     (-1, "-1 points")])
def test_a_plural_through_a_function_that_knows_no_plurals_takes_englishs_form(n, form):
    """A ``tr`` without ``ngettext`` (any str -> str function) gets English's rule: the
    singular for exactly 1, the plural otherwise, as the message itself says it."""
    from dicewise import i18n

    said = i18n.Plural("{n} point", "{n} points", n, n=n)
    assert str(said) == form
    assert said.in_language(lambda text: text) == form


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_the_headings_of_the_advice_stand_apart_in_every_language(lang, monkeypatch):
    """Each heading at least two spaces from the next: Polish "strata" (loss) one space from
    "oczekiwane" (expected) read as one heading, "expected loss"."""
    _no_locale(monkeypatch)
    tr = i18n.translator(lang)
    out = _advise("advise", "general", "--roll", "1", "--dice", "6", "6", "6", "6", "5",
                  "--players", "2", "--sheet", LATE + ",four=40", "--opponent-sheet",
                  LATE + ",four=40,general=0", "--top", "1", "--lang", lang)
    head = next(line for line in out.splitlines() if tr("choice") in line.split())
    assert re.split(r"\s{2,}", head.strip()) == [tr("P(win)+½P(draw)"), tr("loss"),
                                                tr("expected"), tr("choice")]


@pytest.mark.parametrize("lang,said", [
    ("ru", "* Игрок 1: счёт -1600 (пятая кость 5=1; бросков: 1) — 3=1, 7=1"),
    ("pl", "* Gracz 1: -1600 pkt (piąta kość 5=1; rzutów: 1) — 3=1, 7=1"),
    ("en", "* Player 1: -1600 points (fifth 5=1; rolls 1) — 3=1, 7=1")])
def test_the_rolls_on_a_ryzykant_sheet_are_a_label_and_its_count(lang, said):
    """"бросков 1", "rzutów 1" read as "1 rolls": the count is set off as a label's value."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    result = CliRunner().invoke(cli, ["play", "ryzykant", "--players", "1", "--no-advice",
                                      "--lang", lang],
                                input="dice 1 2 3 4 5\nsplit 1+2 3+4 5\nquit\n")
    assert result.exit_code == 0 and said in result.output.splitlines()


@pytest.mark.parametrize("lang,words", [
    ("ru", ["после keep: все пять или только переброшенные",
            "бросок, где нет ни одной из трёх выбранных граней",
            "цель — не больше 1\u00a0000\u00a0000\u00a0000 очков"]),
    ("pl", ["po zostawieniu: wszystkie pięć albo tylko rzucone",
            "rzut bez żadnego z trzech wybranych oczek",
            "cel to co najwyżej 1\u00a0000\u00a0000\u00a0000 punktów"]),
    ("en", ["after a keep: all five, or only the ones rolled",
            "a roll with none of the three chosen faces",
            "a target is at most 1,000,000,000 points"])])
def test_lines_once_misread_say_what_the_english_says(lang, words, monkeypatch):
    """The help of ``dice`` (a keep, not "the dice set aside"), Ryzykant's puścioch option
    (none of the three faces, not "without three faces") and the largest target, its
    thousands grouped as the language writes them."""
    _no_locale(monkeypatch)
    from dicewise.play.session import TableGame

    help_line = TableGame.new("general", players=1, lang=lang, advice=False).apply("help")
    assert words[0] in help_line["help"]["dice"]
    # keep with nothing rerolls all five (not "all five" left ambiguous: kept or rolled?)
    assert help_line["help"]["keep"].endswith({"en": "(keep nothing: roll all five)",
                                              "ru": "(keep ничего: перебросить все пять)",
                                              "pl": "(keep nic: przerzuć wszystkie pięć)"}[lang])
    assert words[1] in _advise("rules", "ryzykant", "--lang", lang)
    assert words[2] in _refused("chance", "general", "--target", str(10**10), "--lang", lang)


@pytest.mark.parametrize("lang, entry, said", [
    ("ru", "взяли соперники=столбец 4", "взяли соперники: 'столбец 4' — не строка и не столбец 1..3"),
    ("pl", "zajęte przez rywali=kolumna 4", "zajęte przez rywali: 'kolumna 4' to ani wiersz, ani "
                                            "kolumna 1..3")])
def test_a_wrong_taken_entry_is_refused_in_the_words_the_player_typed(lang, entry, said,
                                                                      monkeypatch):
    """The entry was named by its notation's English (``taken: ... column1..3``) in a line
    otherwise Russian or Polish."""
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    _no_locale(monkeypatch)
    result = CliRunner().invoke(cli, ["advise", "poker-school", "--roll", "3", "--dice", "1", "2",
                                      "3", "4", "6", "--sheet", f"pair=12/10/12,{entry}",
                                      "--lang", lang])
    assert result.exit_code == 2 and result.stderr.startswith(ERROR_LINE[lang] + said)


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_a_sheets_example_names_its_boxes_as_the_language_types_them(lang):
    """The help's example sheet of every category game (``rules``, the page's hint) is in
    the players' words, and reads back as the English example's sheet."""
    from dicewise.solver.rulesets import category_game
    from dicewise.solver.rulesets.game import read_sheet

    tr = i18n.translator(lang)
    for name in ("general", "poker-programs", "yahtzee", "yatzy"):
        help_ = dicewise.api.describe(name)["sheet"]
        english, said = (re.search(r'"([^"]+)"', text).group(1)
                         for text in (str(help_), i18n.in_language(help_, tr)))
        assert said.partition("=")[0] != english.partition("=")[0], said  # "ones" said
        rules = category_game(name)
        assert read_sheet(rules, said) == read_sheet(rules, english), (name, said)


def test_a_message_says_a_fraction_with_the_languages_mark_but_quotes_a_refused_value_as_is():
    """A fraction a message states reads 1,5 in Russian and Polish; one it quotes as given
    (``{value!r}``, the value refused) reads as before, 2.5 and never '2,5' in quotes."""
    stated = i18n.Message("threshold must be between 0 and 1, not {value}", value=1.5)
    quoted = i18n.Message("a target is a whole number of points, at least 0, not {target!r}",
                          target=2.5)
    en, pl = i18n.translator("en"), i18n.translator("pl")
    assert stated.in_language(en) == str(stated) == "threshold must be between 0 and 1, not 1.5"
    assert stated.in_language(pl).endswith("nie 1,5")
    assert quoted.in_language(en) == str(quoted) and quoted.in_language(en).endswith("not 2.5")
    assert quoted.in_language(pl).endswith(" 2.5"), quoted.in_language(pl)
