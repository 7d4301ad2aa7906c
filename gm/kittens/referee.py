"""The Exploding Kittens game master at the table: hears calls, keeps the rules state, narrates.

A card that can be Noped opens a Nope window (`nope_seconds`, reopened by each Nope); it resolves
when `tick` finds the time up, or as soon as any other call arrives (the table moved on). Players
say what they draw: "draw" (a safe card) or "exploding kitten". A drawer who said "draw" by mistake
corrects it with "<name> exploding kitten" while nothing else has happened since. A call the rules
do not allow is refused aloud and changes nothing.
"""

from __future__ import annotations

from typing import Sequence

from gm.events import Event
from gm.kittens.calls import Call, CallBook, NotUnderstood
from gm.kittens.deck import Deck, load_deck
from gm.kittens.rules import (
    DEAD, EDITIONS, EXPLODING, NOPE_WINDOW, OUT, REASONS, Boom, Defuse, Draw, IllegalMove, Move, Nope,
    Play, Resolve, SetupError, State, ZombieSave,
)
from gm.phrases import Phrases
from gm.referee import Output, Referee, Say
from gm.speech import FREE, Grammar, Utterance

SENTENCES = (
    "setup_title", "setup_use_all", "setup_use_paw", "setup_use_plain", "setup_deal", "setup_back",
    "setup_back_counted", "setup_boxed", "setup_kittens", "setup_pile_counted", "turn",
    "turns", "odds", "odds_one", "safe", "played", "played_on", "noped", "noped_count",
    "noped_anyone", "noped_anyone_count",
    "cancelled_one", "cancelled", "stands", "exploded", "must_defuse", "must_zombie", "defused",
    "zombie_saved", "revived", "eliminated", "died", "winner", "not_understood", "needs_target",
    *(f"refuse_{reason}" for reason in REASONS),
)


SAVES = frozenset({"defuse", "zombie_kitten", "boom"})
"""How a player ends an explosion."""
ANY_TIME = frozenset({"odds", "whose_turn", "exploding_kitten"})
"""Calls that make sense whatever the moment ("exploding kitten" also corrects a "draw")."""
FREE_GAP = 0.003
"""A call must fit the audio no worse than this below free speech (the engine's rival reading of
kind "free", where it gives one; acoustic score per frame). Measured with PocketSphinx on the
benchmark: calls heard right fit 0.0017 below free speech (median), chatter forced onto a call
0.0033; the limit keeps 49 of 52 calls taken and drops 2 of 10 chatter stretches taken for calls."""
SURE = 0.65
"""The weakest word of a call (linking words aside: `CallBook.sureness`) must be heard at least
this surely, else the call is asked again:
a misheard call would change the game. (PocketSphinx, measured on the benchmark's calls: a clear
"i explode" comes out at 0.66-0.79; above 0.65, two calls in three are heard right.)"""
FINAL = frozenset({"boom"})
"""Calls that cannot be taken back: the player is out of the game."""
SURE_FINAL = 0.9
"""How surely a call that cannot be taken back must be heard. (PocketSphinx on the benchmark: "boom"
said came out at 1.0 three times of three; "defuse" said among table knocks came out as "boom" at
0.86 and put its player out.)"""


class KittensReferee(Referee):
    """Referee for one game of an Exploding Kittens edition.

    `edition`: "exploding-kittens", "party-pack" or "zombie-kittens". `players`: names in seating
    order (clockwise). `start`: who plays first (default: the first named). `odds`: say the chance of
    drawing a kitten at every turn. `printing`: base game setup, "seed" (4 cards + 1 Defuse, all
    spare Defuses back in) or "current" (7 + 1, 2 spare Defuses back, 1 with 5 players). `pile`: the
    draw pile size counted at the table after setup (needed for the Party Pack with 2-7 players).
    `sure`: how sure the recognizer must be of every word of a call before the call is taken (of a
    call that puts a player out, at least `SURE_FINAL`).
    Raises SetupError or PhraseError (both ValueError) with a message for the player.
    """

    def __init__(self, edition: str, players: Sequence[str], *, start: str | None = None,
                 odds: bool = False, printing: str = "seed", pile: int | None = None,
                 nope_seconds: float = 2.0, phrases: Phrases | None = None, deck: Deck | None = None,
                 sure: float = SURE):
        game = EDITIONS.get(edition)
        if game is None:
            raise SetupError(f"unknown edition {edition!r}; expected one of {', '.join(EDITIONS)}")
        self.game = game(deck or load_deck(edition), players, start, printing=printing, pile=pile)
        self.phrases = phrases or Phrases.load("en", "exploding_kittens")
        self.phrases.require(*SENTENCES)
        self.calls = CallBook(self.phrases, players, self.game.cards)
        self._grammars = {exploding: self.calls.grammar(lambda action, e=exploding: (action in SAVES) == e
                                                        or action in ANY_TIME)
                          for exploding in (False, True)}
        self.odds = odds
        self.nope_seconds = nope_seconds
        self.sure = sure
        self._closes: float | None = None

    # -- Referee --

    def opening(self) -> list[Output]:
        setup, game = self.game.setup, self.game
        saves = self._noun(setup.save_card, 2)
        kittens_noun = self._noun("kitten", setup.kittens)
        lines = [
            self._say("setup_title", title=game.deck.title, count=setup.players),
            self._say(f"setup_use_{setup.use}"),
            self._say("setup_deal", saves=saves, save=self._noun(setup.save_card, 1), dealt=setup.dealt),
        ]
        if setup.counts is None:
            lines.append(self._say("setup_back_counted", saves=saves))
        if setup.saves_back:
            lines.append(self._say("setup_back", back=setup.saves_back,
                                   saves_back=self._noun(setup.save_card, setup.saves_back)))
        if setup.saves_boxed:
            lines.append(self._say("setup_boxed", boxed=setup.saves_boxed,
                                   saves_boxed=self._noun(setup.save_card, setup.saves_boxed)))
        pile_key = "setup_kittens" if setup.counts is not None else "setup_pile_counted"
        lines.append(self._say(pile_key, kittens=setup.kittens, kittens_noun=kittens_noun, pile=setup.pile))
        event = Event("setup", {"edition": game.edition, "players": list(game.players),
                                "use": setup.use, "dealt": setup.dealt, "kittens": setup.kittens,
                                "pile": setup.pile})
        return [event, *lines, *self._turn()]

    def vocabulary(self) -> list[str]:
        return list(self.calls.words)

    def grammar(self) -> Grammar:
        """The calls that can make sense now: a player who drew a kitten says how it ends; nobody
        else says defuse, boom or zombie kitten (fewer calls to confuse, fewer misheard ones)."""
        return self._grammars[bool(self.game.state.exploding)]

    def is_complete(self, words: Sequence[str]) -> bool:
        return self.calls.is_complete(words)

    @staticmethod
    def _fits_free_speech_better(utterance: Utterance) -> bool:
        """The audio fits any sounds at all far better than the call heard: table talk forced onto
        the calls (asked only of a sure call: the reading of free speech costs a decode)."""
        free = utterance.rival(FREE)
        return free is not None and utterance.best.score < free.score - FREE_GAP

    def hear(self, utterance: Utterance, t: float) -> list[Output]:
        if utterance.best.unknown:
            # A call said amid talk the engine could not name: most likely the talk itself,
            # squeezed into a call's words.
            return [Event("not_understood", {"words": utterance.text, "reason": "talk"}),
                    self._say("not_understood")]
        sureness = self.calls.sureness(utterance.words)
        call = self.calls.parse(utterance.texts)
        final = isinstance(call, Call) and call.action in FINAL
        bar = max(self.sure, SURE_FINAL) if final else self.sure
        if utterance.words and (sureness < bar or self._fits_free_speech_better(utterance)):
            return [Event("not_understood", {"words": utterance.text, "reason": "unsure",
                                             "confidence": round(sureness, 2)}),
                    self._say("not_understood")]
        if isinstance(call, NotUnderstood):
            event = Event("not_understood", {"words": " ".join(call.words), "reason": call.reason})
            if call.reason == "needs_target":
                return [event, self._say("needs_target", card=self._card(call.action))]
            return [event, self._say("not_understood")]
        if call.action == "odds":
            return self._odds()
        if call.action == "whose_turn":
            return self._turn()
        out: list[Output] = []
        if self.game.state.pending and call.action != "nope":
            out += self._resolve()
        return out + self._act(call, t)

    def tick(self, t: float, talking_since: float | None = None) -> list[Output]:
        if self.game.state.pending and self._closes is not None and t >= self._closes:
            return self._resolve()
        return []

    def finish(self, t: float) -> list[Output]:
        return self._resolve() if self.game.state.pending else []

    def is_over(self) -> bool:
        return self.game.is_game_over()

    # -- calls --

    def _act(self, call: Call, t: float) -> list[Output]:
        player = call.player or self.game.current
        if call.action == "exploding_kitten":
            return self._kitten(call)
        moves = {
            "nope": lambda: Nope(player),
            "draw": lambda: Draw(player, False),
            "defuse": lambda: Defuse(player),
            "zombie_kitten": lambda: ZombieSave(player, call.target),
            "boom": lambda: Boom(player),
        }
        move = moves[call.action]() if call.action in moves else Play(player, call.action, call.target)
        before = self.game.state
        try:
            self.game.push(move)
        except IllegalMove as error:
            return self._refuse(error, call)
        if isinstance(move, (Play, Nope)):
            self._closes = t + self.nope_seconds
        return self._narrate(move, before, named=call.player is not None)

    def _kitten(self, call: Call) -> list[Output]:
        """"exploding kitten": a draw by the player whose turn it is, or, named by the player whose
        safe draw just passed the turn on, that draw corrected."""
        last, before = self.game.peek(), self.game.state
        if (isinstance(last, Draw) and not last.kitten and call.player == last.player
                and before.current != last.player):
            self.game.pop()
            move = Draw(last.player, True)
            try:
                self.game.push(move)
            except IllegalMove as error:
                self.game.push(last)
                return self._refuse(error, call)
            return self._narrate(move, before)
        move = Draw(call.player or before.current, True)
        try:
            self.game.push(move)
        except IllegalMove as error:
            return self._refuse(error, call)
        return self._narrate(move, before)

    def _resolve(self) -> list[Output]:
        before = self.game.state
        pending = before.pending
        self.game.push(Resolve())
        self._closes = None
        card, nopes = pending.play.card, pending.nopes
        out: list[Output] = [Event("resolved", {"card": card, "applied": not pending.cancelled,
                                                "nopes": nopes})]
        if nopes:
            key = "cancelled_one" if nopes == 1 else "cancelled" if pending.cancelled else "stands"
            out.append(self._say(key, count=self._number(nopes), card=self._card(card)))
        if not pending.cancelled:
            fields = {"player": pending.play.player, "target": pending.play.target,
                      "copied": self._card(pending.card), "put_back": before.put_back}
            for effect in ("clone", pending.card) if card == "clone" else (card,):
                if f"effect_{effect}" in self.phrases.table("say"):
                    out.append(self._say(f"effect_{effect}", **fields))
        return out + self._after(before)

    # -- narration --

    def _narrate(self, move: Move, before: State, named: bool = True) -> list[Output]:
        """What `move` changed, said aloud. An unnamed Nope is nobody's in particular: anyone may
        Nope, and the game master cannot tell voices apart."""
        state, player = self.game.state, move.player
        out: list[Output] = []
        if isinstance(move, Play):
            out.append(Event("card", {"player": player, "card": move.card, "target": move.target}))
            key = "played_on" if move.target else "played"
            out.append(self._say(key, player=player, card=self._card(move.card), target=move.target))
        elif isinstance(move, Nope):
            count = state.pending.nopes
            key = ("noped" if named else "noped_anyone") + ("" if count == 1 else "_count")
            out.append(Event("nope", {"player": player if named else None, "count": count}))
            out.append(self._say(key, player=player, count=count))
        elif isinstance(move, Draw):
            out.append(Event("draw", {"player": player, "pile": state.pile, "kittens": state.kittens}))
            if move.kitten:
                must = "must_defuse" if self.game.save_card == "defuse" else "must_zombie"
                out += [Event("exploded", {"player": player}), self._say("exploded", player=player),
                        self._say(must, player=player)]
            else:
                out.append(self._say("safe", pile=state.pile))
        elif isinstance(move, Defuse):
            out += [Event("defused", {"player": player}), self._say("defused", player=player)]
        elif isinstance(move, ZombieSave):
            out += [Event("zombie_saved", {"player": player}), self._say("zombie_saved", player=player)]
            if move.revive:
                out += [Event("revived", {"player": move.revive, "by": player}),
                        self._say("revived", player=move.revive, by=player)]
        elif isinstance(move, Boom):
            status = self.game.status(player)
            name = "eliminated" if status == OUT else "died" if status == DEAD else status
            out += [Event(name, {"player": player}), self._say(name, player=player)]
        return out + self._after(before)

    def _after(self, before: State) -> list[Output]:
        """The winner, or the turn when it changed hands or one of several turns was taken."""
        state = self.game.state
        if state.winner:
            return [Event("winner", {"player": state.winner}), self._say("winner", player=state.winner)]
        if state.phase in (EXPLODING, NOPE_WINDOW):
            return []
        if (state.turn, state.owed, state.status) == (before.turn, before.owed, before.status):
            return []
        return self._turn()

    def _turn(self) -> list[Output]:
        state = self.game.state
        if state.winner:
            return [self._say("winner", player=state.winner)]
        key = "turn" if state.owed == 1 else "turns"
        out: list[Output] = [Event("turn", {"player": state.current, "turns_owed": state.owed}),
                             self._say(key, player=state.current, owed=state.owed)]
        return out + (self._odds() if self.odds else [])

    def _odds(self) -> list[Output]:
        odds = self.game.odds()
        key = "odds_one" if odds.kittens == 1 else "odds"
        return [self._say(key, pile=odds.pile, kittens=odds.kittens, percent=odds.percent)]

    def _refuse(self, error: IllegalMove, call: Call) -> list[Output]:
        move = error.move
        player = getattr(move, "player", None)
        target = call.target
        event = Event("refused", {"player": player, "call": call.action, "target": target,
                                  "reason": error.reason})
        return [event, self._say(f"refuse_{error.reason}", player=player, target=target,
                                 card=self._card(call.action), current=self.game.current)]

    def _say(self, key: str, **values) -> Say:
        return Say(self.phrases.say(key, **values))

    def _card(self, card: str) -> str:
        return self.phrases.table("card_names").get(card, card.replace("_", " "))

    def _number(self, count: int) -> str:
        return self.phrases.table("numbers").get(str(count), str(count))

    def _noun(self, word: str, count: int) -> str:
        nouns = self.phrases.table("nouns")
        key = word if count == 1 else f"{word}s"
        return nouns.get(key, key.replace("_", " "))
