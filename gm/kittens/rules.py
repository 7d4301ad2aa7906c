"""The rules of Exploding Kittens (base game, Party Pack, Zombie Kittens) as a pure state machine.

The game master never sees a card. It knows what players say (cards played, draws, kittens) and
what it can count: turns owed, the pile size and the kittens in it. So the state is small: seats and
who is alive, whose turn and how many turns are owed, the pile, the top of the discard pile, and the
one card waiting for Nopes. Hands are the players' business.

Standard library only. Moves are frozen values pushed onto a game (`push`/`pop` undo); an illegal move
raises `IllegalMove` with a reason code the narrator turns into a sentence. Editions are subclasses
overriding hooks (who may play what, how the deck is set up, what an exploded player becomes).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator, Sequence, Union

from gm.kittens.deck import KITTEN, Deck

ALIVE, OUT, DEAD = "alive", "out", "dead"

PLAY = "play"
"""The player whose turn it is may play cards and draw."""
NOPE_WINDOW = "nope_window"
"""A card waits for Nopes; `Resolve` applies it (or not, by the Nopes' parity)."""
DRAWING = "drawing"
"""A card (Draw from the Bottom, Dig Deeper) said how the player now draws; only that draw is left."""
EXPLODING = "exploding"
"""The player whose turn it is drew an Exploding Kitten: Defuse / Zombie Kitten, or boom."""
OVER = "over"

NOPE = "nope"

EFFECTS = {
    "attack": "attack",
    "targeted_attack": "attack",
    "attack_of_the_dead": "attack_two",
    "skip": "skip",
    "super_skip": "super_skip",
    "draw_from_the_bottom": "bottom",
    "dig_deeper": "dig",
}
"""What a resolved card changes in the tracked state. Every other card changes nothing the game
master can count (Favor, See the Future, Shuffle, combos...): it is narrated, and may be Noped."""

LIVING_TARGET = frozenset({"targeted_attack", "favor", "pair", "three_of_a_kind"})
"""Cards aimed at another living player (nobody steals from, or attacks, the dead or the out)."""
DEAD_TARGET = frozenset({"feed_the_dead", "grave_robber"})
"""Cards aimed at a dead player."""


class KittensError(ValueError):
    """Base of every error of the Exploding Kittens rules."""


class SetupError(KittensError):
    """The game cannot be set up this way (player count, deck file, pile size)."""


class IllegalMove(KittensError):
    """A move the rules do not allow now. `reason` is a short code (see `REASONS`)."""

    def __init__(self, reason: str, move: "Move"):
        super().__init__(f"{move!r}: {REASONS.get(reason, reason)}")
        self.reason = reason
        self.move = move


REASONS = {
    "game_over": "the game is over",
    "unknown_player": "no such player at this table",
    "not_in_deck": "this card is not in the cards used in this game",
    "out": "the player is out of the game",
    "dead": "a dead player may play only Nope and the special cards",
    "not_your_turn": "only the player whose turn it is may play this card",
    "window_open": "a card is waiting for Nopes; resolve it first",
    "exploding": "a player is exploding: Defuse, Zombie Kitten or boom first",
    "must_draw": "the player must now draw as their card said",
    "no_target": "this card takes no target",
    "needs_target": "this card needs a target player",
    "target_self": "a player cannot target themselves",
    "target_out": "the target is out of the game",
    "target_dead": "nobody may target a dead player with this card",
    "nobody_dead": "nobody is dead",
    "target_not_dead": "the target must be a dead player",
    "clone_nothing": "Clone needs a card under it that it can copy",
    "clairvoyance_nothing": "nobody else has just put a kitten back",
    "nothing_to_nope": "there is no card waiting to be Noped",
    "no_more_nopes": "the deck holds no more Nopes than that",
    "nothing_to_resolve": "there is no card waiting to be resolved",
    "no_kittens": "the pile holds no Exploding Kitten",
    "only_kittens": "the pile holds only Exploding Kittens",
    "not_exploding": "the player has not drawn an Exploding Kitten",
    "must_revive": "a dead player must be revived",
    "revive_not_dead": "only a dead player can be revived",
}


# -- Moves ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Play:
    """A card (or combo) played: the tracked effect waits for Nopes, then `Resolve`."""

    player: str
    card: str
    target: str | None = None


@dataclass(frozen=True)
class Nope:
    """A Nope on the card waiting in the window (a Nope on a Nope, and so on)."""

    player: str


@dataclass(frozen=True)
class Resolve:
    """The Nope window closes: the waiting card happens if it drew an even number of Nopes."""


@dataclass(frozen=True)
class Draw:
    """The player whose turn it is drew a card (a safe one, or an Exploding Kitten)."""

    player: str
    kitten: bool = False


@dataclass(frozen=True)
class Defuse:
    """The exploding player plays Defuse and puts the kitten back; the turn ends."""

    player: str


@dataclass(frozen=True)
class ZombieSave:
    """The exploding player plays a Zombie Kitten, reviving `revive` (a must when anyone is dead)."""

    player: str
    revive: str | None = None


@dataclass(frozen=True)
class Boom:
    """The exploding player does not save themselves: out (or dead, in Zombie Kittens)."""

    player: str


Move = Union[Play, Nope, Resolve, Draw, Defuse, ZombieSave, Boom]


# -- Values -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Setup:
    """How the deck is prepared for this many players."""

    players: int
    use: str
    """Which copies are used: "all", "paw" (only with the paw print), "plain" (only without)."""
    counts: tuple[tuple[str, int], ...] | None
    """Cards in play per name; None when the deck file cannot tell (the table stated the pile)."""
    dealt: int
    """Cards dealt to each player besides their save card."""
    save_card: str
    """"defuse" or "zombie_kitten": one is handed to each player."""
    saves_back: int
    """Save cards shuffled back into the pile."""
    saves_boxed: int
    """Save cards left in the box."""
    kittens: int
    """Exploding Kittens in the pile: players - 1."""
    pile: int
    """Cards in the draw pile when play begins, kittens included."""

    def copies(self, card: str) -> int | None:
        """Copies of `card` in this game; None when unknown."""
        if self.counts is None:
            return None
        return dict(self.counts).get(card, 0)


@dataclass(frozen=True)
class Pending:
    """The card in the Nope window."""

    play: Play
    card: str
    """What it does: the card itself, or for a Clone the card it copies."""
    nopes: int = 0

    @property
    def cancelled(self) -> bool:
        """Each Nope flips the outcome: an odd count cancels the card."""
        return self.nopes % 2 == 1


@dataclass(frozen=True)
class Odds:
    """The chance that the next card from the pile is an Exploding Kitten."""

    pile: int
    kittens: int

    @property
    def chance(self) -> float:
        return self.kittens / self.pile if self.pile else 0.0

    @property
    def percent(self) -> int:
        return round(100 * self.chance)


@dataclass(frozen=True)
class Outcome:
    """The end of a game: the last player standing."""

    winner: str


@dataclass(frozen=True)
class State:
    """Everything the game master tracks, as one value (its repr can be pasted into a test)."""

    players: tuple[str, ...]
    status: tuple[str, ...]
    turn: int
    """Seat of the player whose turn it is."""
    owed: int
    """Turns that player still owes, this one included."""
    attacked: bool
    """Those turns come from an Attack (an Attack now passes them on plus 2)."""
    pile: int
    kittens: int
    draw_from: str = "top"
    """"top", or "bottom" / "dig" after a card said how this turn's draw is made."""
    pending: Pending | None = None
    exploding: bool = False
    discard: str | None = None
    """The top card of the discard pile (what a Clone would copy)."""
    put_back: str | None = None
    """Who has just put a kitten back into the pile (what Clairvoyance reacts to)."""
    winner: str | None = None

    @property
    def phase(self) -> str:
        if self.winner is not None:
            return OVER
        if self.exploding:
            return EXPLODING
        if self.pending is not None:
            return NOPE_WINDOW
        if self.draw_from != "top":
            return DRAWING
        return PLAY

    @property
    def current(self) -> str:
        return self.players[self.turn]

    @property
    def living(self) -> tuple[str, ...]:
        return tuple(p for p, s in zip(self.players, self.status) if s == ALIVE)

    def notation(self) -> str:
        """One line: seats (current starred, out/dead marked), turns owed, pile, phase."""
        seats = " ".join(
            name + ("*" if i == self.turn else "") + ("" if s == ALIVE else f"({s})")
            for i, (name, s) in enumerate(zip(self.players, self.status))
        )
        turn = f"{self.current} owes {self.owed}" + (" (attacked)" if self.attacked else "")
        phase = self.phase
        if self.pending:
            play = self.pending.play
            phase += f" {play.card} by {play.player}" + (f" on {play.target}" if play.target else "")
            phase += f", {self.pending.nopes} nopes"
        elif self.phase == DRAWING:
            phase += f" from {self.draw_from}"
        elif self.winner:
            phase += f", {self.winner} wins"
        return f"{seats} | {turn} | pile {self.pile}, kittens {self.kittens} | {phase}"


# -- The game ---------------------------------------------------------------------------------------

class ExplodingKittens:
    """The base game (seed 000). Editions subclass it and override the hooks below."""

    edition = "exploding-kittens"
    save_card = "defuse"
    exploded = OUT
    """What a player who does not save themselves becomes."""
    combos: tuple[str, ...] = ("pair", "three_of_a_kind")
    anytime: frozenset[str] = frozenset()
    """Cards anyone may play at any moment, even out of turn or dead (besides Nope)."""
    printings: tuple[str, ...] = ("seed", "current")
    dead_may_nope = False

    def __init__(self, deck: Deck, players: Sequence[str], start: str | None = None, *,
                 printing: str = "seed", pile: int | None = None):
        """A game for `players` in seating order (clockwise), `start` playing first (default: the
        first named). `printing` picks the base game's setup; `pile` is the draw pile size counted
        at the table, when the deck file cannot tell it."""
        players = tuple(players)
        if len({p.casefold() for p in players}) != len(players):
            raise SetupError("two players have the same name")
        if not deck.min_players <= len(players) <= deck.max_players:
            raise SetupError(f"{deck.title} is played by {deck.min_players} to {deck.max_players} players")
        if start is not None and start not in players:
            raise SetupError(f"{start!r} is not one of the players")
        self.deck = deck
        self.setup = self.make_setup(deck, len(players), printing, pile)
        self.playable = self._playable_cards()
        self.state = State(players, (ALIVE,) * len(players), players.index(start) if start else 0,
                           1, False, self.setup.pile, self.setup.kittens)
        self._stack: list[tuple[Move, State]] = []

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.state.notation()!r}>"

    # -- hooks --

    def card_use(self, players: int) -> str:
        """Which copies of the cards this many players use."""
        return "all"

    def dealt(self, printing: str) -> int:
        """Cards dealt to each player besides the save card."""
        return 4 if printing == "seed" else 7

    def saves_back(self, spare: int, players: int, printing: str) -> int:
        """How many of the `spare` save cards (those not handed out) go back into the pile."""
        return spare if printing == "seed" else min(2, spare)

    # -- setup --

    def make_setup(self, deck: Deck, players: int, printing: str, pile: int | None) -> Setup:
        if printing not in self.printings:
            raise SetupError(f"{deck.title} has no {printing!r} setup; choose {' or '.join(self.printings)}")
        use = self.card_use(players)
        counts = deck.counts(use)
        dealt = self.dealt(printing)
        kittens = players - 1
        if deck.card(KITTEN).count < kittens:
            raise SetupError(f"the deck holds too few Exploding Kittens for {players} players")
        if counts is None:
            if pile is None:
                raise SetupError(f"the deck file does not say which {deck.title} cards carry the paw "
                                 f"print: count the draw pile after setup and give its size")
            saves, back = players, 0
        else:
            saves = counts.get(self.save_card, 0)
            if saves < players:
                raise SetupError(f"the deck holds too few {self.save_card} cards for {players} players")
            back = self.saves_back(saves - players, players, printing)
            others = sum(counts.values()) - counts[KITTEN] - saves
            if pile is None and others < dealt * players:
                raise SetupError(f"the deck file lists too few cards to deal {dealt} to {players} "
                                 f"players: count the draw pile after setup and give its size")
        if pile is None:
            pile = others - dealt * players + back + kittens
        if pile < kittens:
            raise SetupError(f"a pile of {pile} cannot hold {kittens} Exploding Kittens")
        return Setup(players, use, None if counts is None else tuple(counts.items()), dealt,
                     self.save_card, back, saves - players - back, kittens, pile)

    @property
    def cards(self) -> frozenset[str]:
        """Cards of this edition played with `Play`: all but kittens, saves, Nopes and lone cats."""
        unplayable = {KITTEN, NOPE, "defuse", "zombie_kitten", *self.deck.cats}
        return frozenset({name for name, _ in self.deck.cards if name not in unplayable} | set(self.combos))

    def _playable_cards(self) -> frozenset[str]:
        """The edition's cards that are in use with this many players."""
        return frozenset(card for card in self.cards
                         if card in self.combos or self.setup.copies(card) != 0)

    # -- queries --

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.players

    @property
    def current(self) -> str:
        return self.state.current

    @property
    def phase(self) -> str:
        return self.state.phase

    def status(self, player: str) -> str:
        return self.state.status[self.players.index(player)]

    def living(self) -> tuple[str, ...]:
        return self.state.living

    def dead(self) -> tuple[str, ...]:
        return tuple(p for p, s in zip(self.players, self.state.status) if s == DEAD)

    def odds(self) -> Odds:
        return Odds(self.state.pile, self.state.kittens)

    def outcome(self) -> Outcome | None:
        return Outcome(self.state.winner) if self.state.winner else None

    def is_game_over(self) -> bool:
        return self.state.winner is not None

    def effective_card(self, play: Play) -> str | None:
        """What a play does: the card itself, or for a Clone the card under it (None: nothing)."""
        if play.card != "clone":
            return play.card
        top = self.state.discard
        copyable = self.playable - self.anytime - set(self.combos) - {"clone", NOPE}
        return top if top in copyable else None

    def max_nopes(self) -> int | None:
        copies = self.setup.copies(NOPE)
        return self.deck.card(NOPE).count if copies is None else copies

    # -- legality --

    def check(self, move: Move) -> None:
        """Raise IllegalMove if `move` is not allowed now."""
        reason = self._reason(move)
        if reason:
            raise IllegalMove(reason, move)

    def is_legal(self, move: Move) -> bool:
        return self._reason(move) is None

    def legal_moves(self) -> Iterator[Move]:
        """Every move allowed now (targets over all players; for exhaustive tests and prompts)."""
        targets = (None, *self.players)
        candidates: list[Move] = [Resolve()]
        for player in self.players:
            candidates += [Nope(player), Draw(player, False), Draw(player, True), Defuse(player),
                           Boom(player)]
            candidates += [ZombieSave(player, t) for t in targets]
            candidates += [Play(player, card, t) for card in sorted(self.playable) for t in targets]
        return (move for move in candidates if self.is_legal(move))

    def _reason(self, move: Move) -> str | None:
        state = self.state
        if state.winner is not None:
            return "game_over"
        player = getattr(move, "player", None)
        if player is not None and player not in self.players:
            return "unknown_player"
        if isinstance(move, Resolve):
            return None if state.pending else "nothing_to_resolve"
        if isinstance(move, Nope):
            return self._nope_reason(player)
        if isinstance(move, Play):
            return self._play_reason(move)
        if isinstance(move, (Defuse, ZombieSave)):
            card = "defuse" if isinstance(move, Defuse) else "zombie_kitten"
            if card != self.save_card:
                return "not_in_deck"
        if state.pending:
            return "window_open"
        if isinstance(move, Draw):
            if state.exploding:
                return "exploding"
            if player != state.current:
                return "not_your_turn"
            if move.kitten:
                return None if state.kittens else "no_kittens"
            return None if state.pile > state.kittens else "only_kittens"
        if not state.exploding or player != state.current:
            return "not_exploding"
        if isinstance(move, ZombieSave):
            dead = self.dead()
            if move.revive is None:
                return "must_revive" if dead else None
            return None if move.revive in dead else "revive_not_dead"
        return None

    def _nope_reason(self, player: str) -> str | None:
        pending = self.state.pending
        if pending is None:
            return "nothing_to_nope"
        status = self.status(player)
        if status == OUT or (status == DEAD and not self.dead_may_nope):
            return status
        limit = self.max_nopes()
        return "no_more_nopes" if pending.nopes >= limit else None

    def _play_reason(self, move: Play) -> str | None:
        state = self.state
        if move.card not in self.playable:
            return "not_in_deck"
        if state.exploding:
            return "exploding"
        if state.pending:
            return "window_open"
        status = self.status(move.player)
        if status == OUT:
            return "out"
        if move.card not in self.anytime:
            if status == DEAD:
                return "dead"
            if move.player != state.current:
                return "not_your_turn"
            if state.phase == DRAWING:
                return "must_draw"
        card = self.effective_card(move)
        if card is None:
            return "clone_nothing"
        if card == "clairvoyance" and state.put_back in (None, move.player):
            return "clairvoyance_nothing"
        return self._target_reason(move, card)

    def _target_reason(self, move: Play, card: str) -> str | None:
        target = move.target
        if card in DEAD_TARGET:
            if not self.dead():
                return "nobody_dead"
            if target is None:
                return "needs_target"
            if target not in self.players:
                return "unknown_player"
            return None if self.status(target) == DEAD else "target_not_dead"
        if card not in LIVING_TARGET:
            return None if target is None else "no_target"
        if target is None:
            return "needs_target"
        if target not in self.players:
            return "unknown_player"
        if target == move.player:
            return "target_self"
        status = self.status(target)
        return None if status == ALIVE else ("target_out" if status == OUT else "target_dead")

    # -- moves --

    def push(self, move: Move) -> State:
        """Apply a legal move (IllegalMove otherwise, with nothing changed); returns the new state."""
        self.check(move)
        self._stack.append((move, self.state))
        self.state = self._after(move)
        return self.state

    def pop(self) -> Move:
        """Undo the last move; returns it."""
        if not self._stack:
            raise KittensError("no move to undo")
        move, self.state = self._stack.pop()
        return move

    def peek(self) -> Move | None:
        return self._stack[-1][0] if self._stack else None

    @property
    def moves(self) -> tuple[Move, ...]:
        return tuple(move for move, _ in self._stack)

    def _after(self, move: Move) -> State:
        state = self.state
        keep_put_back = (isinstance(move, Play) and move.card == "clairvoyance") or (
            isinstance(move, (Nope, Resolve)) and state.pending and state.pending.card == "clairvoyance")
        if not keep_put_back:
            state = replace(state, put_back=None)
        if isinstance(move, Play):
            return replace(state, pending=Pending(move, self.effective_card(move) or move.card),
                           discard=move.card)
        if isinstance(move, Nope):
            return replace(state, pending=replace(state.pending, nopes=state.pending.nopes + 1),
                           discard=NOPE)
        if isinstance(move, Resolve):
            pending = state.pending
            state = replace(state, pending=None)
            return state if pending.cancelled else self._effect(state, pending)
        if isinstance(move, Draw):
            state = replace(state, pile=state.pile - 1, draw_from="top")
            if move.kitten:
                return replace(state, kittens=state.kittens - 1, exploding=True)
            return _end_one_turn(state)
        if isinstance(move, (Defuse, ZombieSave)):
            state = replace(state, pile=state.pile + 1, kittens=state.kittens + 1, exploding=False,
                            discard=self.save_card, put_back=move.player)
            if isinstance(move, ZombieSave) and move.revive is not None:
                status = list(state.status)
                status[state.players.index(move.revive)] = ALIVE
                state = replace(state, status=tuple(status), pile=state.pile + 1,
                                kittens=state.kittens + 1)
            return _end_one_turn(state)
        # Boom: the kitten stays with the player (aside, or face up in front of the dead).
        status = list(state.status)
        status[state.turn] = self.exploded
        state = replace(state, status=tuple(status), exploding=False)
        if len(state.living) == 1:
            return replace(state, winner=state.living[0], owed=0, attacked=False)
        return _pass_turn(state, _next_living(state, state.turn), 1, False)

    def _effect(self, state: State, pending: Pending) -> State:
        effect = EFFECTS.get(pending.card)
        if effect == "attack":
            target = pending.play.target
            victim = state.players.index(target) if target else _next_living(state, state.turn)
            owed = state.owed + 2 if state.attacked else 2
            return _pass_turn(state, victim, owed, True)
        if effect == "attack_two":
            return _pass_turn(state, _next_living(state, state.turn), 2, True)
        if effect == "skip":
            return _end_one_turn(state)
        if effect == "super_skip":
            return _pass_turn(state, _next_living(state, state.turn), 1, False)
        if effect in ("bottom", "dig"):
            return replace(state, draw_from=effect)
        return state


def _next_living(state: State, seat: int) -> int:
    n = len(state.players)
    for step in range(1, n + 1):
        if state.status[(seat + step) % n] == ALIVE:
            return (seat + step) % n
    return seat


def _pass_turn(state: State, seat: int, owed: int, attacked: bool) -> State:
    return replace(state, turn=seat, owed=owed, attacked=attacked, draw_from="top")


def _end_one_turn(state: State) -> State:
    """A turn is done (drawn, skipped, defused): the next one is owed by the same or next player."""
    if state.owed > 1:
        return replace(state, owed=state.owed - 1, draw_from="top")
    return _pass_turn(state, _next_living(state, state.turn), 1, False)


class PartyPack(ExplodingKittens):
    """Party Pack (seed 001): cards chosen by paw print, 7 + 1 Defuse each, Five Different Cards."""

    edition = "party-pack"
    combos = ("pair", "three_of_a_kind", "five_different")
    printings = ("seed",)

    def card_use(self, players: int) -> str:
        return "paw" if players <= 3 else "plain" if players <= 7 else "all"

    def dealt(self, printing: str) -> int:
        return 7

    def saves_back(self, spare: int, players: int, printing: str) -> int:
        return spare


class ZombieKittens(PartyPack):
    """Zombie Kittens (seed 003): the exploded die but keep playing Nope and the special cards; a
    Zombie Kitten saves its player and revives a dead one."""

    edition = "zombie-kittens"
    save_card = "zombie_kitten"
    exploded = DEAD
    combos = ("pair", "three_of_a_kind")
    anytime = frozenset({"shuffle", "feed_the_dead", "clairvoyance"})
    dead_may_nope = True

    def card_use(self, players: int) -> str:
        return "paw" if players == 2 else "plain" if players == 3 else "all"



EDITIONS: dict[str, type[ExplodingKittens]] = {
    game.edition: game for game in (ExplodingKittens, PartyPack, ZombieKittens)
}
