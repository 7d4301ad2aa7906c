"""Ooga Booga rules: seats, cards in hand, the chain, who named whom, tokens, rounds and the chief.

Pure and deterministic (standard library only): the game master never sees cards, so the rules keep
only what can be counted from what players say. A `Game` holds a stack of frozen `Position` values;
`push` applies a move and `pop` undoes it exactly. A move is always made by the player whose turn it
is: `Pass` (put a card down, say the chain, "Ha", name the next player), `Finish` (last card, chain,
"Ooga Booga") or `Lose` (the round is lost, with a `Reason`).

Decisions where the rule text is silent (documented here, tested in tests/test_ooga_rules.py):
- "Ooga Booga" said with cards still in hand is a false claim of victory and loses the round
  (`Reason.EARLY_OOGA_BOOGA`), mirroring "Ha" on the last card (`Reason.NO_OOGA_BOOGA`).
- After a won round every player holds exactly the starting count again (+1 with a token); a player
  holding more puts the extra cards aside.
- After a won round the winner starts (or, with `winner_starts=False`, the game's first player).
- The very first chant of a round may name anybody but the speaker (nobody has named them yet).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Iterable, Iterator, Sequence, Union

MIN_PLAYERS = 4
MAX_PLAYERS = 8


class Reason(enum.Enum):
    """Why a round was lost."""

    WRONG_CHAIN = "wrong_chain"
    """The player could not say all the words in order, oldest first."""
    NO_OOGA_BOOGA = "no_ooga_booga"
    """Last card down and chain said, but ended with "Ha" or forgot "Ooga Booga"."""
    EARLY_OOGA_BOOGA = "early_ooga_booga"
    """"Ooga Booga" with cards still in hand: a false claim of victory."""
    HESITATED = "hesitated"
    """The named player did not start (or did not finish naming) in time."""


class Ending(enum.Enum):
    """How a chant must end."""

    HA = "ha"
    """"Ha" and the name of the next player."""
    OOGA_BOOGA = "ooga_booga"
    """"Ooga Booga": the speaker's last card."""


class Refusal(enum.Enum):
    """Why a move is not allowed now (nothing changes; the player tries again)."""

    GAME_OVER = "game_over"
    UNKNOWN_PLAYER = "unknown_player"
    NAMED_SELF = "named_self"
    NAMED_BACK = "named_back"
    WRONG_ENDING = "wrong_ending"
    """A Pass on the last card or a Finish with cards left: these lose, push a `Lose` instead."""
    WRONG_REASON = "wrong_reason"
    """A loss reason that cannot apply to this hand (no Ooga Booga with cards left, ...)."""
    BAD_WORD = "bad_word"


class RulesError(ValueError):
    """Base of the errors raised by the Ooga Booga rules."""


class SetupError(RulesError):
    """The players cannot play (wrong count, duplicate or unspeakable names, unknown starter)."""


class IllegalMoveError(RulesError):
    """The move is not allowed in this position; `refusal` says why."""

    def __init__(self, refusal: Refusal, message: str):
        super().__init__(message)
        self.refusal = refusal


class NotationError(RulesError):
    """A position notation cannot be parsed."""


@dataclass(frozen=True)
class Pass:
    """Put a card with `word` down, say the chain, "Ha", and name the player `to`."""

    word: str
    to: str


@dataclass(frozen=True)
class Finish:
    """Put the last card with `word` down, say the chain and "Ooga Booga"."""

    word: str


@dataclass(frozen=True)
class Lose:
    """The player to move loses the round; `played` says whether they put a card down first."""

    reason: Reason
    played: bool = True


Move = Union[Pass, Finish, Lose]


@dataclass(frozen=True)
class Deal:
    """Cards one player is dealt when a round ends, and the hand they then hold."""

    player: str
    cards: int
    hand: int


@dataclass(frozen=True)
class RoundEnd:
    """How a round ended: who won or lost (and why), the deals, and whether the game is over."""

    player: str
    reason: Reason | None
    """None when `player` won the round."""
    tokens: int
    """The player's tokens afterwards."""
    deals: tuple[Deal, ...]
    chief: bool
    """The player won while holding a token: the game is over."""

    @property
    def won(self) -> bool:
        return self.reason is None


def start_count(players: int) -> int:
    """Cards dealt to each player at the start: 3 for 4-6 players, 2 for 7-8."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SetupError(f"Ooga Booga needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    return 3 if players <= 6 else 2


def _is_word(text: str) -> bool:
    return bool(text) and all(c.isalnum() or c == "'" for c in text)


@dataclass(frozen=True)
class Position:
    """Everything the game master knows at one moment; `notation()` writes it on one line."""

    players: tuple[str, ...]
    hands: tuple[int, ...]
    tokens: tuple[int, ...]
    chain: tuple[str, ...]
    turn: int
    """Seat index of the player who must chant now."""
    named_by: int | None
    """Seat index of the player who named the player to move (None at the start of a round)."""
    round: int = 1
    dealt: int = 0
    """Cards dealt so far in the whole game."""
    aside: int = 0
    """Cards set aside so far (played chains, cards returned after a won round)."""
    chief: int | None = None
    """Seat index of the game's winner, once there is one."""

    @classmethod
    def start(cls, players: Sequence[str], starter: str | None = None) -> "Position":
        """The first round: everyone dealt the starting count; `starter` (default: first seat) opens."""
        names = tuple(players)
        count = start_count(len(names))
        for name in names:
            if not _is_word(name):
                raise SetupError(f"player name {name!r} must be one word of letters or digits")
        lowered = [n.lower() for n in names]
        if len(set(lowered)) != len(lowered):
            raise SetupError(f"player names must differ: {', '.join(names)}")
        turn = 0 if starter is None else _seat_of(names, starter, SetupError)
        n = len(names)
        return cls(names, (count,) * n, (0,) * n, (), turn, None, 1, count * n, 0, None)

    @property
    def start_count(self) -> int:
        return start_count(len(self.players))

    @property
    def player(self) -> str:
        """The player who must chant now."""
        return self.players[self.turn]

    @property
    def namer(self) -> str | None:
        """The player who named the player to move."""
        return None if self.named_by is None else self.players[self.named_by]

    def hand(self, player: str) -> int:
        return self.hands[self.seat(player)]

    def tokens_of(self, player: str) -> int:
        return self.tokens[self.seat(player)]

    def seat(self, player: str) -> int:
        return _seat_of(self.players, player, IllegalMoveError)

    def expected_ending(self) -> Ending:
        """The only rule on endings: the last card ends with Ooga Booga, any other with Ha."""
        return Ending.OOGA_BOOGA if self.hands[self.turn] == 1 else Ending.HA

    def is_last_card(self) -> bool:
        return self.expected_ending() is Ending.OOGA_BOOGA

    def is_over(self) -> bool:
        return self.chief is not None

    def cards_in_play(self) -> int:
        """Cards in hands and in the chain: with `aside`, always equals `dealt`."""
        return sum(self.hands) + len(self.chain)

    def refusal(self, move: Move) -> Refusal | None:
        """Why `move` is not allowed now, or None when it is."""
        if self.is_over():
            return Refusal.GAME_OVER
        if isinstance(move, Lose):
            wants_last = {Reason.NO_OOGA_BOOGA: True, Reason.EARLY_OOGA_BOOGA: False}.get(move.reason)
            if wants_last is not None and wants_last != self.is_last_card():
                return Refusal.WRONG_REASON
            return None
        if not _is_word(move.word) or move.word != move.word.lower():
            return Refusal.BAD_WORD
        wanted = Ending.HA if isinstance(move, Pass) else Ending.OOGA_BOOGA
        if wanted is not self.expected_ending():
            return Refusal.WRONG_ENDING
        return self.naming_refusal(move.to) if isinstance(move, Pass) else None

    def naming_refusal(self, name: str) -> Refusal | None:
        """Why the player to move may not name `name` (None: they may)."""
        lowered = [p.lower() for p in self.players]
        if name.lower() not in lowered:
            return Refusal.UNKNOWN_PLAYER
        seat = lowered.index(name.lower())
        if seat == self.turn:
            return Refusal.NAMED_SELF
        if seat == self.named_by:
            return Refusal.NAMED_BACK
        return None

    def is_legal(self, move: Move) -> bool:
        return self.refusal(move) is None

    def nameable(self) -> tuple[str, ...]:
        """The players the player to move may name."""
        return tuple(p for p in self.players if self.naming_refusal(p) is None)

    def generate_legal_moves(self, words: Iterable[str]) -> Iterator[Move]:
        """Every legal move with a card from `words` (the deck's words)."""
        if self.is_over():
            return
        words = tuple(words)
        if self.is_last_card():
            yield from (Finish(w) for w in words)
        else:
            yield from (Pass(w, p) for w in words for p in self.nameable())
        for reason in Reason:
            for played in (True, False):
                move = Lose(reason, played)
                if self.is_legal(move):
                    yield move

    def notation(self) -> str:
        """One line: seats (`>` to move, `:cards`, `*tokens`), chain, namer, counters, chief.

        Example: `Ana:3 Bo:2*1 >Cy:3 Dee:1 | pooka ska | by Bo | round 2 dealt 14 aside 3`.
        """
        seats = " ".join(
            (">" if i == self.turn else "") + f"{p}:{h}" + (f"*{t}" if t else "")
            for i, (p, h, t) in enumerate(zip(self.players, self.hands, self.tokens))
        )
        parts = [seats, " ".join(self.chain) or "-", f"by {self.namer or '-'}",
                 f"round {self.round} dealt {self.dealt} aside {self.aside}"]
        if self.chief is not None:
            parts.append(f"chief {self.players[self.chief]}")
        return " | ".join(parts)

    @classmethod
    def from_notation(cls, text: str) -> "Position":
        """Read back what `notation()` wrote."""
        try:
            seats, chain, by, counters, *rest = [part.strip() for part in text.split("|")]
            players, hands, tokens, turn = [], [], [], None
            for i, seat in enumerate(seats.split()):
                if seat.startswith(">"):
                    turn, seat = i, seat[1:]
                name, _, counts = seat.partition(":")
                hand, _, token = counts.partition("*")
                players.append(name)
                hands.append(int(hand))
                tokens.append(int(token or 0))
            words = counters.split()
            if turn is None or by[:3] != "by " or words[0::2] != ["round", "dealt", "aside"] or len(rest) > 1:
                raise ValueError("missing part")
            if rest and not rest[0].startswith("chief "):
                raise ValueError("unknown part")
            namer = by[3:].strip()
            position = cls(tuple(players), tuple(hands), tuple(tokens),
                           tuple(chain.split()) if chain != "-" else (), turn,
                           None if namer == "-" else players.index(namer),
                           int(words[1]), int(words[3]), int(words[5]),
                           players.index(rest[0][6:].strip()) if rest else None)
            start_count(len(players))
        except (ValueError, IndexError):
            raise NotationError(f"cannot read position {text!r}") from None
        return position

    def __repr__(self) -> str:
        return f"Position.from_notation({self.notation()!r})"

    def after(self, move: Move, winner_starts_at: int | None = None) -> tuple["Position", RoundEnd | None]:
        """The position after `move`, and how the round ended if it did.

        `winner_starts_at`: the seat that opens the next round after a win (None: the winner).
        """
        refusal = self.refusal(move)
        if refusal is not None:
            raise IllegalMoveError(refusal, f"{move!r} is not allowed: {refusal.value} in {self.notation()}")
        hands = list(self.hands)
        if isinstance(move, Pass):
            hands[self.turn] -= 1
            return replace(self, hands=tuple(hands), chain=self.chain + (move.word,),
                           turn=self.seat(move.to), named_by=self.turn), None
        if isinstance(move, Finish):
            hands[self.turn] -= 1
            return self._won(hands, self.chain + (move.word,), winner_starts_at)
        if move.played:
            hands[self.turn] -= 1
        return self._lost(hands, len(self.chain) + int(move.played), move.reason)

    def _won(self, hands: list[int], chain: tuple[str, ...], starts_at: int | None) -> tuple["Position", RoundEnd]:
        tokens = list(self.tokens)
        winner = self.turn
        tokens[winner] += 1
        if self.tokens[winner]:
            end = RoundEnd(self.player, None, tokens[winner], (), True)
            return replace(self, hands=tuple(hands), tokens=tuple(tokens), chain=(), named_by=None,
                           aside=self.aside + len(chain), chief=winner), end
        deals, aside = [], self.aside + len(chain)
        for seat, name in enumerate(self.players):
            target = self.start_count + (1 if tokens[seat] else 0)
            deals.append(Deal(name, max(0, target - hands[seat]), target))
            aside += max(0, hands[seat] - target)
            hands[seat] = target
        dealt = self.dealt + sum(d.cards for d in deals)
        position = replace(self, hands=tuple(hands), tokens=tuple(tokens), chain=(),
                           turn=winner if starts_at is None else starts_at, named_by=None,
                           round=self.round + 1, dealt=dealt, aside=aside)
        return position, RoundEnd(self.player, None, tokens[winner], tuple(deals), False)

    def _lost(self, hands: list[int], set_aside: int, reason: Reason) -> tuple["Position", RoundEnd]:
        loser = self.turn
        cards = self.start_count + (1 if self.tokens[loser] else 0)
        hands[loser] += cards
        deal = Deal(self.player, cards, hands[loser])
        position = replace(self, hands=tuple(hands), chain=(), named_by=None, round=self.round + 1,
                           dealt=self.dealt + cards, aside=self.aside + set_aside)
        return position, RoundEnd(self.player, reason, self.tokens[loser], (deal,), False)


def _seat_of(players: Sequence[str], name: str, error: type[RulesError]) -> int:
    lowered = [p.lower() for p in players]
    if name.lower() not in lowered:
        message = f"{name!r} is not playing (players: {', '.join(players)})"
        raise error(Refusal.UNKNOWN_PLAYER, message) if error is IllegalMoveError else error(message)
    return lowered.index(name.lower())


@dataclass(frozen=True)
class Outcome:
    """The end of the game: the chief and the round it was decided in."""

    chief: str
    rounds: int


class Game:
    """A game in progress: the current position on a stack that `push` grows and `pop` undoes."""

    def __init__(self, players: Sequence[str], starter: str | None = None, winner_starts: bool = True,
                 position: Position | None = None):
        """`starter` opens the game (default: the first player); after a won round the winner opens
        the next one, or the game's first player when `winner_starts` is False."""
        self.first = position or Position.start(players, starter)
        self.winner_starts = winner_starts
        self._stack: list[Position] = [self.first]
        self.moves: list[Move] = []

    @property
    def position(self) -> Position:
        return self._stack[-1]

    def push(self, move: Move) -> RoundEnd | None:
        """Apply `move` (raises IllegalMoveError and changes nothing if it is not allowed)."""
        starts_at = None if self.winner_starts else self.first.turn
        position, end = self.position.after(move, starts_at)
        self._stack.append(position)
        self.moves.append(move)
        return end

    def pop(self) -> Move:
        """Undo the last move, restoring the exact position before it."""
        if not self.moves:
            raise IndexError("no move to undo")
        self._stack.pop()
        return self.moves.pop()

    def is_over(self) -> bool:
        return self.position.is_over()

    def outcome(self) -> Outcome | None:
        chief = self.position.chief
        return None if chief is None else Outcome(self.position.players[chief], self.position.round)

    def __repr__(self) -> str:
        return f"<Game {self.position.notation()}>"
