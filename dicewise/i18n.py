"""The players' language: labels and messages through gettext, box names in every language.

Catalogs live in ``dicewise/locale/<lang>/LC_MESSAGES/dicewise.po`` and are compiled to
``.mo`` files beside them (``compile_catalogs``; ``python tools/compile_catalogs.py``).  The
language is ``--lang en|ru|pl``, else GNU's ``LANGUAGE`` list, else the locale (the first of
``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set), else English; as in gettext, the C
locale is English whatever ``LANGUAGE`` says.  Box names are accepted as the rules name
them, in Russian and Polish, and in the seeds' own abbreviations (``1п``, ``2п``, ``LS``,
``BS``, ``F``, ``C``, ``P``, ``Sh``), whatever the language shown.
"""

from __future__ import annotations

import ast
import contextvars
import copy
import errno
import gettext
import os
import string
import struct
import unicodedata
from functools import lru_cache
from pathlib import Path

from .errors import DicewiseError

LANGUAGES = ("en", "ru", "pl")
LOCALE_DIR = Path(__file__).with_name("locale")
DOMAIN = "dicewise"


def language(lang: str | None = None) -> str:
    """``lang`` checked, else the locale's language if dicewise speaks it, else English.  An
    empty ``lang`` is a language asked for, not "the locale's": refused."""
    if lang is not None:
        code = _code(lang)
        if code not in LANGUAGES:
            raise DicewiseError(Message("unknown language {lang!r} (languages: {languages})",
                                        lang=lang, languages=", ".join(LANGUAGES)))
        return code
    locale = next((os.environ[v] for v in ("LC_ALL", "LC_MESSAGES", "LANG")
                   if os.environ.get(v)), "")  # the first one set, as in POSIX
    if _code(locale) in ("c", "posix"):  # English, whatever LANGUAGE says (as in gettext)
        return "en"
    for value in os.environ.get("LANGUAGE", "").split(":"):  # GNU's preferences come first
        if _code(value) in LANGUAGES:
            return _code(value)
    return _code(locale) if _code(locale) in LANGUAGES else "en"


def _code(locale_name: str) -> str:
    """The language of a locale name: ``ru`` of ``ru_RU.UTF-8``."""
    return locale_name.lower().replace("-", "_").split("_")[0].split(".")[0].split("@")[0]


class Translator:
    """The gettext function of one language, that also says which language it speaks (box
    names are translated by table, not by gettext)."""

    def __init__(self, lang: str):
        self.lang = lang
        catalog = (gettext.NullTranslations() if lang == "en" else
                   gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True))
        self._gettext, self._ngettext = catalog.gettext, catalog.ngettext
        self._pgettext = catalog.pgettext

    def __call__(self, message: str) -> str:
        return self._gettext(message)

    def in_game(self, game: str, message: str) -> str:
        """``message`` as the players of ``game`` say it, where its rules word it their own
        way (a ``msgctxt`` of the game's name: poker-school's rows are «строки», not
        «графы»), else as every game says it."""
        said = self._pgettext(game, message)
        return said if said != message else self(message)

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        """The form of a message that counts something that fits ``count`` in this language
        (its catalog's ``Plural-Forms``): 1 game, 2 games; 2 gry, 5 gier; 21 партия."""
        return self._ngettext(singular, plural, count)

    def number(self, value, spec: str = ",") -> str:
        """``value`` formatted by ``spec``, its decimal mark and thousands as this language
        writes them (``Number``)."""
        return Number(value, spec).in_language(self)


@lru_cache(maxsize=None)
def translator(lang: str = "en") -> Translator:
    """The gettext function of ``lang`` (English, the msgids, where a message is missing)."""
    return Translator(lang)


#: The language of the command being run (English from Python): what the library says on its
#: own while it works, a warning about a table it builds anew, is said in it.
SPOKEN = contextvars.ContextVar("spoken", default=translator("en"))


class Message(str):
    """An English message that keeps its template and fields, so that the edge that shows
    it to players can say it in their language (``in_language``): what the library says
    while a player waits (a table being built), an advice's headline, why a game ended."""

    def __new__(cls, template: str, **fields):
        message = super().__new__(cls, template.format(**fields))
        message.template, message.fields = template, fields
        return message

    def __getnewargs_ex__(self):  # copies and pickles keep the template and fields
        return (self.template,), self.fields

    #: The game whose players may word it their own way (``in_game``), or None.
    game = None

    def in_game(self, game: str) -> "Message":
        """This message as the players of ``game`` say it (``Translator.in_game``)."""
        said = copy.copy(self)
        said.game = game
        return said

    def in_language(self, tr) -> str:
        """The message through ``tr`` (a ``translator``), its Message fields too."""
        template = in_game(tr, self.game, self.template) if self.game else tr(self.template)
        return template.format(**_fields_in_language(template, self.fields, tr))


class Plural(Message):
    """A ``Message`` that counts something: said in the form that ``count`` takes in the
    players' language (``Translator.ngettext``): 1 game, 2 games; 1 gra, 2 gry, 5 gier,
    22 gry; 1 партия, 2 партии, 5 партий, 21 партия.  English uses ``singular`` for 1 and
    ``plural`` otherwise."""

    def __new__(cls, singular: str, plural: str, count: int, /, **fields):
        count = int(count)
        message = str.__new__(cls, (singular if count == 1 else plural).format(**fields))
        message.template, message.plural, message.count = singular, plural, count
        message.fields = fields
        return message

    def __getnewargs_ex__(self):
        return (self.template, self.plural, self.count), self.fields

    def in_language(self, tr) -> str:
        """The form of ``count`` through ``tr`` (English's where ``tr`` knows no plurals)."""
        ngettext = getattr(tr, "ngettext", None)
        template = (ngettext(self.template, self.plural, self.count) if ngettext else
                    self.template if self.count == 1 else self.plural)
        return template.format(**_fields_in_language(template, self.fields, tr))


def _fields_in_language(template: str, fields: dict, tr) -> dict:
    """A message's fields said through ``tr``; a number it quotes as typed (``{value!r}``, a
    value refused) is left as it came, so that it reads 1.5, not '1,5'."""
    quoted = {name for _, name, _, conversion in string.Formatter().parse(template)
              if conversion == "r"}
    return {k: v if k in quoted and isinstance(v, float) else in_language(v, tr)
            for k, v in fields.items()}


class Number(str):
    """A number as ``spec`` formats it, said as each language writes numbers: 2,000 and 0.25
    in English; in Russian and Polish, whose decimal mark is the comma (2,000 would read as
    two), 2 000 (a no-break space) and 0,25."""

    def __new__(cls, value, spec: str = ","):
        number = super().__new__(cls, format(value, spec))
        number.value, number.spec = value, spec
        return number

    def __getnewargs__(self):
        return self.value, self.spec

    def in_language(self, tr) -> str:
        return figures_in_language(str(self), tr)


#: English's thousands separator and decimal point, as Russian and Polish write them.
_COMMA_DECIMALS = str.maketrans({",": "\u00a0", ".": ","})


def figures_in_language(text: str, tr) -> str:
    """Figures written as English writes them (``2,000.5``; ``text`` holds nothing else),
    written as the language of ``tr`` does: ``2 000,5`` in Russian and Polish."""
    return text if getattr(tr, "lang", "en") == "en" else text.translate(_COMMA_DECIMALS)


def between_figures(tr) -> str:
    """What sets apart entries that end in a figure: a comma in English, a semicolon where
    the decimal mark is the comma (``±6,32; оптимум ...``, not ``±6,32, оптимум``)."""
    return ", " if getattr(tr, "lang", "en") == "en" else "; "


def option_text(value) -> str:
    """A rule option's value as ``--option KEY=VALUE`` takes it (``false``, not ``False``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def options_text(options) -> str:
    """Rule options for people, as ``--option`` pairs: ``joker=free, straight=plain``."""
    return ", ".join(f"{k}={option_text(v)}" for k, v in options.items())


class Box(str):
    """A box of ``ruleset`` by the rules' name, said in the players' language by its table."""

    def __new__(cls, ruleset: str, box: str):
        name = super().__new__(cls, box)
        name.ruleset = ruleset
        return name

    def __getnewargs__(self):
        return self.ruleset, str(self)

    def in_language(self, tr) -> str:
        return box_label(self.ruleset, str(self), getattr(tr, "lang", "en"))


class Listing(str):
    """Items joined by commas (or ``sep``), each said in the players' language."""

    def __new__(cls, items, sep: str = ", "):
        listing = super().__new__(cls, sep.join(items))
        listing.items, listing.sep = tuple(items), sep
        return listing

    def __getnewargs__(self):
        return self.items, self.sep

    def in_language(self, tr) -> str:
        return self.sep.join(in_language(item, tr) for item in self.items)


class SheetText(str):
    """A sheet in its notation (``ones=3,straight=25``), its names said in the players'
    language as the notation takes them there (``jedynki=3, strit=25``, as a table shows a
    sheet: longer names, so a line may break between entries)."""

    def __new__(cls, ruleset: str, text: str):
        sheet = super().__new__(cls, text)
        sheet.ruleset = ruleset
        return sheet

    def __getnewargs__(self):
        return self.ruleset, str(self)

    def in_language(self, tr) -> str:
        lang = getattr(tr, "lang", "en")
        if lang == "en":
            return str(self)
        return sheet_in_language(self.ruleset, str(self), lang)  # ", ": lines break there


class ChoiceLabel(str):
    """A choice as the solver labels it, said for people in another language by
    ``choice_text`` (English keeps the solver's own words)."""

    def __new__(cls, ruleset: str, action: dict, detail: dict, text: str):
        label = super().__new__(cls, text)
        label.ruleset, label.action, label.detail = ruleset, action, detail
        return label

    def __getnewargs__(self):
        return self.ruleset, self.action, self.detail, str(self)

    def in_language(self, tr) -> str:
        if getattr(tr, "lang", "en") == "en":
            return str(self)
        return choice_text(self.ruleset, self.action, self.detail, tr) or str(self)


def in_game(tr, game: str, message: str) -> str:
    """``message`` through ``tr`` as the players of ``game`` word it (``Translator.in_game``);
    a plain gettext function says it as every game does."""
    return tr.in_game(game, message) if hasattr(tr, "in_game") else tr(message)


def choice_text(ruleset: str, action: dict, detail: dict, tr) -> str | None:
    """A choice (an agent-protocol ``action`` and the advice's ``detail``) for people in the
    language of ``tr``, box names translated; None for a kind of choice it does not know."""
    lang = getattr(tr, "lang", "en")
    if "keep" in action:
        kept, left = action["keep"], detail.get("rolls_left")
        if len(kept) == 5:
            if left is None or left < 2:
                return tr("keep all five (reroll none), then write")
            return Plural("keep all five (reroll none; {left} roll left)",
                          "keep all five (reroll none; {left} rolls left)", left,
                          left=left).in_language(tr)
        if not kept:  # its own words: "keep nothing" reads wrong in Russian and Polish
            if left is None:
                return tr("keep nothing (reroll all five)")
            return Plural("keep nothing (reroll all five; {left} roll left)",
                          "keep nothing (reroll all five; {left} rolls left)", left,
                          left=left).in_language(tr)
        kept, n = " ".join(map(str, kept)), 5 - len(kept)
        if left is None:
            return tr("keep {kept} (reroll {n})").format(kept=kept, n=n)
        return Plural("keep {kept} (reroll {n}; {left} roll left)",
                      "keep {kept} (reroll {n}; {left} rolls left)", left, kept=kept, n=n,
                      left=left).in_language(tr)
    if "write" in action:
        return in_game(tr, ruleset, "write {box} for {score}").format(
            box=box_label(ruleset, action["write"], lang), score=detail.get("score"))
    if "cross" in action:
        return in_game(tr, ruleset, "cross {box}").format(
            box=box_label(ruleset, action["cross"], lang))
    if "pairs" in action:
        (a, b), (c, d) = action["pairs"]
        fifth = "-" if detail.get("puscioch") else action["fifth"]
        note = (tr(" (puścioch: no fifth-die mark)") if detail.get("puscioch") else
                tr(" (ends the game)") if detail.get("ends_game") else "")
        return tr("split {a}+{b} {c}+{d}, fifth {e}").format(a=a, b=b, c=c, d=d, e=fifth) + note
    return None


def box_listing(ruleset: str, boxes) -> Listing:
    """Box names of ``ruleset`` joined by commas, each said in the players' language."""
    return Listing([Box(ruleset, box) for box in boxes])


#: The system's reasons a player meets reading or writing a file (or starting ``serve`` on an
#: address), in the system's English (``strerror``): said in the player's language too.
_OS_REASONS = {errno.ENOENT: "No such file or directory", errno.EACCES: "Permission denied",
               errno.EPERM: "Operation not permitted", errno.EISDIR: "Is a directory",
               errno.ENOTDIR: "Not a directory", errno.ENOSPC: "No space left on device",
               errno.EROFS: "Read-only file system", errno.EIO: "Input/output error",
               errno.ENAMETOOLONG: "File name too long",
               errno.ELOOP: "Too many levels of symbolic links",
               errno.EDQUOT: "Disk quota exceeded", errno.EFBIG: "File too large",
               errno.EBUSY: "Device or resource busy", errno.ETXTBSY: "Text file busy",
               errno.EADDRINUSE: "Address already in use",
               errno.EADDRNOTAVAIL: "Cannot assign requested address"}


def os_reason(error: OSError) -> "Message | str":
    """Why a file could not be read or written, translatable where it is a common reason."""
    reason = _OS_REASONS.get(error.errno)
    return Message(reason) if reason else (error.strerror or str(error))


def said(error: Exception, tr) -> str:
    """An error's message through ``tr``: translated where it was raised with a ``Message``."""
    return in_language(message_of(error), tr)


def message_of(error: Exception):
    """An error's message as raised: a ``Message`` kept whole (to be said in the players'
    language, or inside another), else its text."""
    return error.args[0] if len(error.args) == 1 else str(error)


def in_language(text, tr) -> str:
    """``text`` through ``tr`` where it is a ``Message``, ``Box`` or ``Listing``, a fraction
    with the language's decimal mark (a value a message quotes: ``nie 1,5``); other text as it
    is (a name, a whole number)."""
    if isinstance(text, float):
        return Number(text, "").in_language(tr)
    return text.in_language(tr) if hasattr(text, "in_language") else text


# -- box names ---------------------------------------------------------------------------

_UPPER_RU = ("единицы", "двойки", "тройки", "четверки", "пятерки", "шестерки")
_UPPER_PL = ("jedynki", "dwójki", "trójki", "czwórki", "piątki", "szóstki")
_UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


def _upper() -> dict[str, tuple[str, ...]]:
    return {en: (ru, pl) for en, ru, pl in zip(_UPPER, _UPPER_RU, _UPPER_PL)}


#: ruleset -> box -> (Russian name, Polish name, other accepted names and abbreviations...).
#: The first two are what the box is called in that language's labels.
BOX_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "general": {**_upper(),
                "straight": ("стрит", "strit"),
                "full_house": ("полный дом", "full", "2+3", "фул", "фулл"),
                "four": ("четыре", "kareta", "каре"),
                "general": ("генерал", "generał", "general")},
    "poker-programs": {**_upper(),
                       "pair": ("одна пара", "para", "пара", "1п", "1 п", "1n"),
                       "two_pairs": ("две пары", "dwie pary", "2п", "2 п", "2n"),
                       "three": ("любая тройка", "trójka", "тройка", "3"),
                       "small_straight": ("малый стрит", "mały strit", "ls"),
                       "big_straight": ("большой стрит", "duży strit", "bs"),
                       "full": ("фул", "full", "f", "фулл"),
                       "four": ("каре", "kareta", "c", "с"),
                       "poker": ("покер", "poker", "p", "р"),
                       "chance": ("шанс", "szansa", "sh")},
    "poker-school": {**{en: (ru, pl, f"{i} класс") for i, (en, (ru, pl))
                        in enumerate(_upper().items(), 1)},
                     "pair": ("пара", "para"),
                     "two_pairs": ("две пары", "dwie pary"),
                     "triplet": ("триплет", "trójka", "треугольник"),
                     "small_straight": ("малый стрит", "mały strit"),
                     "big_straight": ("большой стрит", "duży strit"),
                     "full_house": ("фул-хаус", "full", "фул", "фулл", "фулл-хаус"),
                     "four": ("каре", "kareta"),
                     "poker": ("покер", "poker"),
                     "chance": ("шанс", "szansa")},
    "yahtzee": {**_upper(),
                "three_of_a_kind": ("тройка", "trójka"),
                "four_of_a_kind": ("каре", "kareta"),
                "full_house": ("фул-хаус", "full", "фулл-хаус"),
                "small_straight": ("малый стрит", "mały strit"),
                "large_straight": ("большой стрит", "duży strit"),
                "yahtzee": ("покер", "generał", "yahtzee"),
                "chance": ("шанс", "szansa")},
    "yatzy": {**_upper(),
              "one_pair": ("пара", "para"),
              "two_pairs": ("две пары", "dwie pary"),
              "three_of_a_kind": ("тройка", "trójka"),
              "four_of_a_kind": ("каре", "kareta"),
              "small_straight": ("малый стрит", "mały strit"),
              "large_straight": ("большой стрит", "duży strit"),
              "full_house": ("фул-хаус", "full", "фулл-хаус"),
              "chance": ("шанс", "szansa"),
              "yatzy": ("покер", "generał", "yatzy")},
}


#: ruleset -> the other names a sheet's notation uses -> (Russian, Polish): poker-school's
#: ``taken=`` entry, the premiums and column 60s rivals took first, and its columns.
SHEET_NAMES: dict[str, dict[str, tuple[str, str]]] = {
    "yahtzee": {"yahtzee_bonus": ("бонусные покеры", "dodatkowe generały")},
    "poker-school": {"taken": ("взяли соперники", "zajęte przez rywali"),
                     **{f"column{j}": (f"столбец {j}", f"kolumna {j}") for j in (1, 2, 3)}},
}


def sheet_in_language(ruleset: str, sheet: str, lang: str = "en") -> str:
    """A sheet in its notation (``fives=15/15,taken=pair/column2``) with its names in
    ``lang``: boxes, and the notation's other names; scores and crosses as they are."""
    entries = []
    for entry in filter(None, sheet.split(",")):
        key, _, value = entry.partition("=")
        words = "/".join(sheet_word(ruleset, v, lang) for v in value.split("/"))
        entries.append(f"{sheet_word(ruleset, key, lang)}={words}")
    return ", ".join(entries)


def sheet_word(ruleset: str, word: str, lang: str = "en") -> str:
    """A name of a sheet's notation in ``lang``: a box, a counter (``yahtzee_bonus``) or a
    word of the notation (``taken``); anything else as it is."""
    other = SHEET_NAMES.get(ruleset, {}).get(word)
    if lang == "en" or not other:
        return box_label(ruleset, word, lang)
    return other[LANGUAGES.index(lang) - 1]


def notation_word(ruleset: str, text: str) -> str | None:
    """The notation's own name (``taken``, ``column2``, ``yahtzee_bonus``) of a word typed
    in any language, as ``sheet_in_language`` shows it (``взяли соперники``, ``kolumna 2``),
    or None."""
    key = _key(text)
    for word, names in SHEET_NAMES.get(ruleset, {}).items():
        if key == _key(word) or any(key == _key(n) for n in names):
            return word
    return None


@lru_cache(maxsize=4096)  # every sheet entry compares its word with every name of the game
def _key(text: str) -> str:
    """A typed name as compared: lower case, ё as е, spaces and hyphens as underscores, and
    Polish letters as their base letters (``szostki`` is ``szóstki``, typed without them)."""
    text = text.strip().lower().replace("ё", "е").replace("ł", "l").replace("-", " ")
    text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)
                   or c == "\u0306")  # й keeps its breve: и is another letter
    return "_".join(unicodedata.normalize("NFC", text).split())


def box_label(ruleset: str, box: str, lang: str = "en") -> str:
    """What ``box`` is called in ``lang`` (the rules' name in English)."""
    names = BOX_NAMES.get(ruleset, {}).get(box)
    if lang == "en" or not names:
        return box
    return names[LANGUAGES.index(lang) - 1]


def canonical_box(ruleset: str, boxes, text: str) -> str | None:
    """The rules' name of the box typed as ``text`` in any language, or None."""
    key = _key(text)
    for box in boxes:
        if key == _key(box):
            return box
    for box, names in BOX_NAMES.get(ruleset, {}).items():
        if box in boxes and any(key == _key(n) for n in names):
            return box
    return None


def box_name(ruleset: str, boxes, text: str, lang: str = "en", rows: bool = False) -> str:
    """The rules' name of the box typed as ``text`` in any language (DicewiseError if none);
    ``rows``: a game whose rules call its boxes rows (the error says so)."""
    box = canonical_box(ruleset, boxes, text)
    if box is not None:
        return box
    shown = ", ".join(box_label(ruleset, b, lang) for b in boxes)
    msg = translator(lang)("unknown row {box!r} (rows: {boxes})" if rows
                           else "unknown box {box!r} (boxes: {boxes})")
    raise DicewiseError(msg.format(box=text, boxes=shown))


# -- catalogs ------------------------------------------------------------------------------

class Catalog(dict):
    """A ``.po`` file's translated messages (msgid -> msgstr), with its ``Plural-Forms``
    header (None where it declares none).  A message with plural forms is keyed as a
    ``.mo`` file keys it: the singular and plural msgids joined by NUL, its forms too."""

    plural_forms: str | None = None


def read_po(path) -> Catalog:
    """The translated messages of a ``.po`` file (msgid -> msgstr; untranslated left out),
    plural forms included (``Catalog``)."""
    messages = Catalog()
    entry: dict = {}
    part = None

    def flush():
        ids, forms = entry.get("msgid"), entry.get("msgstr", {})
        if "msgctxt" in entry:
            ids = entry["msgctxt"] + "\x04" + ids
        if ids == "":  # the header: only its Plural-Forms matters to a catalog
            header = dict(line.partition(": ")[::2] for line in forms.get(0, "").splitlines())
            messages.plural_forms = header.get("Plural-Forms")
        elif ids and forms and all(forms.values()):
            if "msgid_plural" in entry:
                ids += "\0" + entry["msgid_plural"]
            messages[ids] = "\0".join(forms[i] for i in sorted(forms))

    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        keyword, _, text = line.partition(" ")
        if keyword == "msgctxt":  # a game's own wording: gettext keys it context EOT msgid
            flush()
            entry, part = {"msgctxt": ast.literal_eval(text)}, ("msgctxt",)
        elif keyword == "msgid":
            if "msgid" in entry or "msgctxt" not in entry:  # else it follows its msgctxt
                flush()
                entry = {}
            entry["msgid"], part = ast.literal_eval(text), ("msgid",)
        elif keyword == "msgid_plural":
            entry["msgid_plural"], part = ast.literal_eval(text), ("msgid_plural",)
        elif keyword == "msgstr" or keyword.startswith("msgstr["):
            index = 0 if keyword == "msgstr" else int(keyword[7:-1])
            entry.setdefault("msgstr", {})[index] = ast.literal_eval(text)
            part = ("msgstr", index)
        elif line.startswith('"') and part:
            if part[0] == "msgstr":
                entry["msgstr"][part[1]] += ast.literal_eval(line)
            else:
                entry[part[0]] += ast.literal_eval(line)
        elif not line:
            part = None
    flush()
    return messages


def write_mo(messages: dict[str, str], path) -> None:
    """Write ``messages`` as a GNU ``.mo`` catalog (what gettext reads), with the
    ``Plural-Forms`` of a ``Catalog`` that has them."""
    meta = "Content-Type: text/plain; charset=UTF-8\n"
    if getattr(messages, "plural_forms", None):
        meta += f"Plural-Forms: {messages.plural_forms}\n"
    items = sorted({"": meta, **messages}.items())
    ids = [k.encode("utf-8") for k, _ in items]
    strs = [v.encode("utf-8") for _, v in items]
    n = len(items)
    start = 7 * 4
    ids_table, strs_table = start, start + 8 * n
    data_start = strs_table + 8 * n
    offsets, blob = [], b""
    for s in ids + strs:
        offsets.append((len(s), data_start + len(blob)))
        blob += s + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, n, ids_table, strs_table, 0, 0)
    table = b"".join(struct.pack("<2I", *o) for o in offsets)
    Path(path).write_bytes(header + table + blob)


def compile_catalogs(root=LOCALE_DIR) -> list[Path]:
    """Compile every ``.po`` under ``root`` to the ``.mo`` beside it; returns the ``.mo`` paths."""
    out = []
    for po in sorted(Path(root).glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        write_mo(read_po(po), mo)
        out.append(mo)
    return out
