"""The page's own words, translated through the command line's gettext catalogs.

The page asks ``GET /api/strings?lang=ru`` once and shows every label through the answer;
a word missing from a catalog stays English.
"""

from __future__ import annotations

from functools import lru_cache

from .. import i18n
from ..errors import DicewiseError

#: Every text the page shows that does not come from the game itself.
MESSAGES = (
    "Score sheet", "New game", "Advice for one position", "Resume a saved game", "Game",
    "Options", "Players", "Player {n}", "Seed (empty: you roll real dice)",
    "Target score (empty: the best mean)", "Start", "Clear", "Tap the five dice you rolled",
    "Let dicewise roll", "Show advice", "Undo", "Save", "Choices", "expected", "loss",
    "P(win)+½P(draw)", "share of win", "race value",
    "P(≥ target)", "the expected-score choice", "Sheet", "Roll number", "Fifth-die marks",
    "To move", "Game over", "Play again", "Building the table of {game} for the first time",
    "{seconds} s",
    "Thinking…", "exact", "approximate", "error estimate",
    "a whole game's optimum ≤ {bound} (proven)", "close call", "worse than {choice}, by the rules",
    "Choose a file", "points", "premium", "premiums", "column_bonuses",
    "roll {n}", "Connection lost; try again", "{path} is not a saved dicewise game (not JSON)",
    "Tap a choice to play it", "Target", "Play for",
    "Two players: the win where it is solved, else the best mean", "The best mean score",
    "To win: the best chance to finish first (approximate beyond two players of General)",
    "Show the best choices (off: keep the score only)", "keep", "rolls",
    "bonus",
    # the choices of the advice, as the command line says them
    "keep all five (reroll none), then write", "keep all five (reroll none; rolls left: {left})",
    "keep {kept} (reroll {n})", "keep {kept} (reroll {n}; rolls left: {left})",
    "keep nothing (reroll all five)", "keep nothing (reroll all five; rolls left: {left})",
    "write {box} for {score}", "write {box}", "cross {box}", "split {a}+{b} {c}+{d}, fifth {e}",
    " (puścioch: no fifth-die mark)", " (ends the game)",
    "{name} wins at once", "Winner: {names}", "A draw: {names}", "The win is shared: {names}",
    "settlement {amount}", "crossed", "taken by a rival", "won before the rivals",
    "{name} scored {score}",
    # where the target can no longer move the choice (the advice's ``settled``)
    "the target {target} can no longer be reached from here: the choices are ranked by "
    "expected score",
    "the target {target} is certain from here: the choices that keep it certain are ranked by "
    "expected score",
)


#: The gettext domain of the page's words, beside the command line's ``dicewise`` catalogs.
DOMAIN = "dicewise-web"


def _translator(lang: str):
    """gettext for the page in ``lang``: its own catalog first, then the command line's."""
    if lang == "en":
        return None
    import gettext

    page = gettext.translation(DOMAIN, i18n.LOCALE_DIR, languages=[lang], fallback=True)
    cli = i18n.translator(lang)

    def translate(message: str) -> str:
        shown = page.gettext(message)
        return shown if shown != message else cli(message)

    return translate


def _box_labels(ruleset: str | None, lang: str) -> dict:
    """The boxes of ``ruleset`` as players of ``lang`` call them (empty if unknown)."""
    from ..api import describe

    if not ruleset:
        return {}
    try:
        info = describe(ruleset)
    except DicewiseError:  # an unknown ruleset has no labels; the page says nothing of it
        return {}
    boxes = (info.get("categories") or info.get("rows") or []) + info.get("sheet_counters", [])
    return {box: i18n.sheet_word(info["name"], box, lang) for box in boxes}


@lru_cache(maxsize=None)
def _game_texts(lang: str) -> dict:
    """Every game's title, option help and sheet notation as the page shows them in
    ``lang`` (English text -> shown; empty in English)."""
    if lang == "en":
        return {}
    from ..api import describe, make_rules
    from ..solver.registry import GAMES

    tr = i18n.translator(lang)
    texts = {}
    for name in GAMES:
        info = describe(name)
        for text in (info["title"], *(o["help"] for o in info["options"])):
            texts[text] = tr(text)
        if info["sheet"]:
            texts[str(info["sheet"])] = i18n.in_language(info["sheet"], tr)
        game, rules = make_rules(name)
        if "play" in game.commands:  # what ends its game at once, where something does
            why = game.player_sheet(rules).at_once_reason()
            if why:
                texts[str(why)] = i18n.in_language(why, tr)
    return texts


def _game_phrases(ruleset: str | None, lang: str) -> dict:
    """The page's words that ``ruleset``'s players say their own way in ``lang`` (a
    poker-school row is «строка»), beside the words every game shares."""
    if not ruleset or lang == "en":
        return {}
    tr = i18n.translator(lang)
    said = {m: tr.in_game(ruleset, m) for m in MESSAGES}
    return {m: s for m, s in said.items() if s != tr(m)}


def catalog(lang: str | None, ruleset: str | None = None) -> dict:
    """``{"lang", "messages": {english: shown}, "boxes": {box: shown}, "phrases": {english:
    shown}}`` for the page: its own words, the games' titles, options and sheet notations,
    and with a ``ruleset`` its boxes and the words its players say their own way."""
    try:  # RU, ru-RU: read as a game reads them; a language dicewise does not speak: English
        lang = i18n.language(lang) if lang else "en"
    except DicewiseError:
        lang = "en"
    gettext = _translator(lang)
    messages = {**_game_texts(lang), **{m: (gettext(m) if gettext else m) for m in MESSAGES}}
    return {"lang": lang, "messages": messages, "boxes": _box_labels(ruleset, lang),
            "phrases": _game_phrases(ruleset, lang)}
