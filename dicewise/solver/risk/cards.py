"""Risk reinforcements and cards: set values, armies per turn, and sets in a hand.

Rules from RULES.md section 5.  The card model, stated once here:

* A card shows one of three kinds (infantry, cavalry, artillery), each card drawn
  independently with the three kinds equally likely: the deck's 14/14/14 split, ignoring
  which cards are already out.  With ``wild`` wild cards in the deck (the seed has none)
  a card is wild with probability ``wild / (42 + wild)``, and a wild card with any two
  other cards makes a set.
* The player gets one card in each turn in which it conquers at least one territory
  (probability ``conquer_prob`` per turn), trades a set at the start of a turn whenever
  it holds one (so never five cards), and no other player trades in between: the n-th set
  traded is the player's own.  Territory counts stay as given; no continent bonuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import factorial

from ...errors import DicewiseError
from ...i18n import Message

KINDS = "ica"  # infantry, cavalry, artillery; "w" is a wild card
STARTING_ARMIES = {3: 35, 4: 30, 5: 25, 6: 20}
_SET_VALUES = (4, 6, 8, 10, 12, 15)
_TERRITORY_CARDS = 42


def set_value(n: int) -> int:
    """Armies for the n-th set traded in the game: 4, 6, 8, 10, 12, 15, then +5 each."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise DicewiseError(Message("sets are counted from 1, not {value}", value=repr(n)))
    return _SET_VALUES[n - 1] if n <= 6 else 15 + 5 * (n - 6)


def reinforcements(territories: int) -> int:
    """Armies at the start of a turn from territories held: max(3, territories div 3)."""
    if isinstance(territories, bool) or not isinstance(territories, int) or territories < 1:
        raise DicewiseError(Message("a player in the game holds at least 1 territory, not "
                                    "{value}", value=repr(territories)))
    if territories > 42:
        raise DicewiseError(Message("the board has 42 territories, not {value}",
                                    value=territories))
    return max(3, territories // 3)


def starting_armies(players: int) -> int:
    """Armies each player starts with: 35/30/25/20 for 3/4/5/6 players (the seed)."""
    if players not in STARTING_ARMIES:
        raise DicewiseError(Message("the game is for 3 to 6 players, not {value}",
                                    value=repr(players)))
    return STARTING_ARMIES[players]


def _wild_p(wild: int) -> Fraction:
    if isinstance(wild, bool) or not isinstance(wild, int) or not 0 <= wild <= 42:
        raise DicewiseError(Message("wild cards in the deck must be 0..42, not {value}",
                                    value=repr(wild)))
    return Fraction(wild, _TERRITORY_CARDS + wild)


def has_set(hand: tuple[int, int, int, int]) -> bool:
    """Whether a hand (infantry, cavalry, artillery, wild counts) holds a set."""
    i, c, a, w = hand
    return max(i, c, a) >= 3 or min(i, c, a) >= 1 or (w >= 1 and i + c + a + w >= 3)


def _draws(k: int, wild: int):
    """Every hand of k independent cards, as counts, with its probability."""
    pw = _wild_p(wild)
    pk = (1 - pw) / 3
    for i in range(k + 1):
        for c in range(k + 1 - i):
            for a in range(k + 1 - i - c):
                w = k - i - c - a
                if w and not pw:
                    continue
                ways = factorial(k) // (factorial(i) * factorial(c) * factorial(a) * factorial(w))
                yield (i, c, a, w), ways * pk ** (i + c + a) * pw ** w


def p_set_after(k: int, wild: int = 0) -> Fraction:
    """Exact P(k cards drawn as the module says hold a set); 1 from five cards on."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise DicewiseError(Message("the number of cards must be a whole number >= 0, not "
                                    "{value}", value=repr(k)))
    if k >= 5:
        return Fraction(1)
    return sum((p for h, p in _draws(k, wild) if has_set(h)), Fraction(0))


def parse_hand(text: str) -> tuple[int, int, int, int]:
    """A hand written as letters: i (infantry), c (cavalry), a (artillery), w (wild)."""
    text = text.strip().lower()
    bad = set(text) - set(KINDS + "w")
    if bad:
        raise DicewiseError(Message("a hand is written with the letters i, c, a, w (infantry, "
                                    "cavalry, artillery, wild), not {letters}",
                                    letters=repr("".join(sorted(bad)))))
    if len(text) > 9:
        raise DicewiseError(Message("a hand of {n} cards is impossible (sets are traded by "
                                    "five)", n=len(text)))
    return tuple(text.count(x) for x in KINDS + "w")


def _trade(hand):
    """The hand after trading one set, preferring sets that keep the wild cards: one of
    each kind, else three of the most plentiful kind, else wild cards with the rest."""
    i, c, a, w = hand
    kinds = [i, c, a]
    if min(kinds) >= 1:
        return (i - 1, c - 1, a - 1, w)
    top = max(range(3), key=lambda x: kinds[x])
    if kinds[top] >= 3:
        kinds[top] -= 3
        return (*kinds, w)
    need = 3
    for x in sorted(range(3), key=lambda x: -kinds[x]):
        take = min(kinds[x], need - 1, 2)
        kinds[x] -= take
        need -= take
        if need == 1:
            break
    return (*kinds, w - need)


@dataclass(frozen=True)
class CardOutlook:
    """Expected armies from cards in each of the next turns, for one player (see module)."""

    sets_traded: int
    hand: tuple[int, int, int, int]
    conquer_prob: float
    wild: int
    per_turn: tuple[float, ...]
    p_trade: tuple[float, ...]

    @property
    def total(self) -> float:
        return sum(self.per_turn)


def card_outlook(turns: int, sets_traded: int = 0, hand: tuple[int, int, int, int] = (0, 0, 0, 0),
                 conquer_prob: float = 1.0, wild: int = 0) -> CardOutlook:
    """Expected armies from traded sets at the start of each of the next ``turns`` turns.

    Exact: a Markov chain over (hand, own sets traded), the hand drawn as the module says.
    """
    if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= 100:
        raise DicewiseError(Message("turns must be 1..100, not {value}", value=repr(turns)))
    if (isinstance(sets_traded, bool) or not isinstance(sets_traded, int)
            or not 0 <= sets_traded <= 1000):
        raise DicewiseError(Message("sets already traded must be 0..1000, not {value}",
                                    value=repr(sets_traded)))
    if not 0.0 <= conquer_prob <= 1.0:
        raise DicewiseError(Message("the probability of conquering in a turn must be 0..1, "
                                    "not {value}", value=conquer_prob))
    pw = float(_wild_p(wild))
    if hand[3] > wild:
        raise DicewiseError(
            Message("a hand with 1 wild card needs as many in the deck, which has {wild} "
                    "(--wild-cards)", wild=wild) if hand[3] == 1 else
            Message("a hand with {n} wild cards needs as many in the deck, which has {wild} "
                    "(--wild-cards)", n=hand[3], wild=wild))
    card = [((1, 0, 0, 0), (1 - pw) / 3), ((0, 1, 0, 0), (1 - pw) / 3),
            ((0, 0, 1, 0), (1 - pw) / 3), ((0, 0, 0, 1), pw)]
    dist = {(tuple(hand), 0): 1.0}
    per_turn, p_trade = [], []
    for _ in range(turns):
        got = traded = 0.0
        after = {}
        for (h, own), p in dist.items():
            if has_set(h):
                got += p * set_value(sets_traded + own + 1)
                traded += p
                h, own = _trade(h), own + 1
            after[(h, own)] = after.get((h, own), 0.0) + p
        per_turn.append(got)
        p_trade.append(traded)
        dist = {}
        for (h, own), p in after.items():
            if conquer_prob < 1.0:
                dist[(h, own)] = dist.get((h, own), 0.0) + p * (1 - conquer_prob)
            for add, q in card:
                if q == 0.0 or conquer_prob == 0.0:
                    continue
                h2 = tuple(x + y for x, y in zip(h, add))
                dist[(h2, own)] = dist.get((h2, own), 0.0) + p * conquer_prob * q
    return CardOutlook(sets_traded=sets_traded, hand=tuple(hand), conquer_prob=conquer_prob,
                       wild=wild, per_turn=tuple(per_turn), p_trade=tuple(p_trade))


@dataclass(frozen=True)
class CardReport:
    """What a player asks of cards before a turn: the next sets' worth, the chance of a set
    after k cards, the armies cards bring in the next turns and, where asked, from the
    territories held (a turn each) and at the start for a number of players."""

    next_set_values: tuple[int, ...]
    p_set_after: tuple[Fraction, ...]
    outlook: CardOutlook
    territories: int | None = None
    reinforcements: int | None = None
    players: int | None = None
    starting_armies: int | None = None

    @property
    def expected_armies_total(self) -> float | None:
        """Armies from territories and cards over the turns looked at (None without
        territories)."""
        if self.reinforcements is None:
            return None
        return self.reinforcements * len(self.outlook.per_turn) + self.outlook.total


def card_report(turns: int, sets_traded: int = 0, hand: str = "", conquer_prob: float = 1.0,
                wild: int = 0, territories: int | None = None,
                players: int | None = None) -> CardReport:
    """Everything ``dicewise risk cards`` prints, for a hand given as letters (``iic``)."""
    outlook = card_outlook(turns, sets_traded, parse_hand(hand) if hand else (0, 0, 0, 0),
                           conquer_prob, wild)
    return CardReport(
        next_set_values=tuple(set_value(sets_traded + k) for k in (1, 2, 3)),
        p_set_after=tuple(p_set_after(k, wild) for k in range(6)), outlook=outlook,
        territories=territories,
        reinforcements=reinforcements(territories) if territories is not None else None,
        players=players,
        starting_armies=starting_armies(players) if players is not None else None)
