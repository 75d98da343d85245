"""The page's own words, translated through the command line's gettext catalogs.

The page asks ``GET /api/strings?lang=ru`` once and shows every label through the answer;
a word missing from a catalog stays English.
"""

from __future__ import annotations

LANGUAGES = ["en", "ru", "pl"]

#: Every text the page shows that does not come from the game itself.
MESSAGES = (
    "Score sheet", "New game", "Advice for one position", "Resume a saved game", "Game",
    "Options", "Players", "Names", "Player {n}", "Seed (empty: you roll real dice)",
    "Target score (empty: the best mean)", "Language", "Start", "Roll", "Clear",
    "Tap the five dice you rolled", "Let dicewise roll", "Show advice", "Undo", "Save",
    "Choices", "expected", "loss", "P(win)", "P(≥ target)", "the expected-score choice",
    "Sheet", "Dice", "Roll number", "Fifth-die marks", "Opponent's sheet", "To move",
    "Game over", "Result", "Play again", "Building the table of {game} for the first time",
    "Thinking…", "exact", "approximate", "error estimate", "Back", "Choose a file",
    "points", "total", "premium", "roll {n}", "The server cannot follow games yet",
    "Connection lost; try again", "Tap a choice to play it", "Write",
)


def _translator(lang: str | None):
    """The catalog's gettext for ``lang``, or None where there is no catalog to use."""
    if not lang or lang == "en" or lang not in LANGUAGES:
        return None
    try:
        from .. import i18n
    except ImportError:
        return None
    for name in ("translator", "gettext_for", "translation"):
        make = getattr(i18n, name, None)
        if make is None:
            continue
        try:
            found = make(lang)
        except Exception:
            return None
        return getattr(found, "gettext", found) if callable(getattr(found, "gettext", found)) else None
    return None


def catalog(lang: str | None) -> dict:
    """``{"lang", "messages": {english: shown}}`` for the page in ``lang``."""
    lang = lang if lang in LANGUAGES else "en"
    gettext = _translator(lang)
    messages = {m: (gettext(m) if gettext else m) for m in MESSAGES}
    return {"lang": lang, "messages": messages}
