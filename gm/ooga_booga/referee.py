"""The Ooga Booga referee: hears chants, judges them, keeps the game, narrates.

Joins the rules (gm.ooga_booga.rules), the judge (gm.ooga_booga.judge) and the sentences of
phrases/<lang>/ooga_booga.toml. An unsure verdict never costs a round: the player is asked to say it
again (at most twice), then the table decides by voice ("right" / "wrong").
"""

from __future__ import annotations

import enum
from typing import Iterable, Sequence

from gm.events import Event
from gm.matching import best_match
from gm.ooga_booga.judge import Chant, Doubt, Right, Thresholds, Unsure, Wrong, judge
from gm.ooga_booga.rules import Ending, Finish, Game, Lose, Pass, Reason, Refusal, RoundEnd
from gm.phrases import Phrases
from gm.referee import Output, Referee, Say
from gm.speech import Grammar, Phrase, Utterance, normalize_words

SAY_AGAIN_LIMIT = 2
"""How many times a player is asked to repeat an unclear chant before the table decides."""

SENTENCES = (
    "opening", "hesitation_rule", "round_start", "turn", "name_next", "named_back", "named_self",
    "unknown_player", "say_again", "not_heard", "ask_table", "ask_table_again", "table_right",
    "table_wrong", "mistake_skipped", "mistake_swapped", "mistake_wrong_word", "mistake_extra_word",
    "mistake_no_new_word", "mistake_ha_on_last_card", "mistake_no_ooga_booga", "mistake_early_ooga_booga",
    "chain_was", "hesitated", "round_lost", "round_won", "chief", "deal_loser", "deal_all", "deal_token",
    "list_and",
)


ANSWER = "answer"
"""The kind of phrase that answers the game master's question."""


class Phase(enum.Enum):
    CHANT = "chant"
    """Waiting for the player to move to chant."""
    NAME = "name"
    """The chant was right but named nobody allowed: waiting for a name."""
    TABLE = "table"
    """The table is deciding whether the last chant was right."""
    OVER = "over"


class OogaBoogaReferee(Referee):
    """Referees one game of Ooga Booga."""

    def __init__(self, players: Sequence[str], phrases: Phrases, start: str | None = None,
                 extra_words: Iterable[str] = (), hesitation: float | None = None,
                 winner_starts: bool = True, thresholds: Thresholds = Thresholds()):
        """`players` in seat order (4-8 one-word names); `phrases` loaded with the "ooga_booga" file;
        `start` opens the game (default: the first player); `extra_words` are the card words of the
        table's own deck, added to those in the phrase file; `hesitation` is how many seconds of quiet
        a named player may wait before starting (None: no limit; see `tick`); `winner_starts` False
        makes the game's first player open every round after a won one (a lost round is always
        opened by its loser)."""
        phrases.require(*SENTENCES)
        self.phrases = phrases
        self.game = Game(players, start, winner_starts)
        words = phrases.table("words")
        deck = [w for edition in phrases.table("deck").values() for w in edition]
        deck += [w for text in extra_words for w in normalize_words(text)]
        self.deck = tuple(dict.fromkeys(w.lower() for w in deck))
        self.ha = tuple(words.get("ha", ("ha",)))
        self.closing = tuple(words.get("closing", ("ooga", "booga")))
        self.right_words = tuple(words.get("right", ("right",)))
        self.wrong_words = tuple(words.get("wrong", ("wrong",)))
        self.hesitation = hesitation
        self.thresholds = thresholds
        self.phase = Phase.CHANT
        self.pending_word: str | None = None
        self.attempts = 0
        self.clock: float | None = None
        """Where the hesitation limit counts from (`_count_from`)."""
        self.voiced = False
        """A voice began in the player's time since then and gave no utterance: the player may have
        chanted unheard (in loud noise), and must not be called too slow."""
        self.talk: float | None = None
        """When the voice heard since the last quiet moment began, if one is heard."""
        self.unsure: Unsure | None = None

    # What the pipeline asks

    def opening(self) -> list[Output]:
        position = self.game.position
        out: list[Output] = [Say(self._say("opening", players=self._list(position.players),
                                           cards=position.start_count))]
        out += [Event("deal", {"player": p, "cards": position.start_count, "hand": position.start_count})
                for p in position.players]
        if self.hesitation is not None:
            out.append(Say(self._say("hesitation_rule", seconds=f"{self.hesitation:g}")))
        return out + self._round_start()

    def vocabulary(self) -> list[str]:
        words = [*self.deck, *self.ha, *self.closing, *self._names()]
        if self.phase is Phase.TABLE:
            words += [*self.right_words, *self.wrong_words]
        return list(dict.fromkeys(words))

    def grammar(self) -> Grammar:
        """A whole chant while a chant is due; only the answers that fit when the game master has
        asked a question (the table's "right"/"wrong", or the next player's name)."""
        if self.phase is Phase.TABLE:
            return Grammar(tuple(Phrase(((w,),), ANSWER) for w in (*self.right_words, *self.wrong_words)),
                           room_sound=True)
        if self.phase is Phase.NAME:
            return Grammar((Phrase(((*self.ha, ""), self._names()), ANSWER),), room_sound=True)
        return self.chant().grammar()

    def is_complete(self, words: Sequence[str]) -> bool:
        words = [w.lower() for w in words]
        if self.phase is Phase.TABLE:
            # Never closed on a partial: the start of "wrong" can stand as "right" for a moment.
            return False
        if self.phase is Phase.NAME:
            return bool(words) and words[-1] in self._names()
        size = len(self.game.position.chain) + 1
        closing, ha = list(self.closing), list(self.ha)
        if len(words) >= size + len(closing) and words[-len(closing):] == closing:
            return True
        if not words or words[-1] not in self._names():
            return False
        if words[-1 - len(ha):-1] == ha:
            return len(words) >= size + len(ha) + 1
        # After a chain "Ha" may be left out (the recognizer often misses it), as the judge allows.
        return size > 1 and len(words) >= size + 1

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def tick(self, t: float, talking_since: float | None = None) -> list[Output]:
        """The hesitation limit counts quiet time only: while a voice goes on that the recognizer
        could not make out (table talk, laughter, or the player chanting in loud noise), the count
        stands still, and it starts again when the table falls quiet. If the limit is reached after
        a voice that began in the player's time, the player is asked again rather than called too
        slow: their chant (or the name that ends it) may have been lost in the room's noise."""
        if self.phase not in (Phase.CHANT, Phase.NAME) or self.hesitation is None:
            return []
        if self.clock is None:
            self._count_from(t)
        if talking_since is not None:
            self.talk = talking_since
            return []
        if self.talk is not None:  # the table fell quiet: the count starts again, remembering the voice
            self.clock, self.voiced, self.talk = t, self.voiced or self.talk >= self.clock, None
        if t - self.clock > self.hesitation:
            return self._ask_again(t) if self.voiced else self._hesitated(t)
        return []

    def hear(self, utterance: Utterance, t: float) -> list[Output]:
        if self.phase is Phase.OVER:
            return []
        talked, self.talk = self.talk is not None, None
        if self.phase is Phase.TABLE:
            return self._decide(utterance, t)
        if not utterance.words:
            return self._not_heard(Doubt.NOTHING_HEARD, t)
        # A first word heard late is no hesitation if a voice went on before it: the start of the
        # chant was lost in the room's noise.
        late = self.clock is not None and self.hesitation is not None and not talked
        if late and utterance.start - self.clock > self.hesitation:
            return self._hesitated(utterance.start)
        if self.phase is Phase.NAME:
            return self._hear_name(utterance, t)
        return self._hear_chant(utterance, t)

    # Chants

    def chant(self) -> Chant:
        """What the player to move must say now."""
        position = self.game.position
        return Chant(position.chain, self.deck, self._names(), position.expected_ending(), self.ha, self.closing)

    def _hear_chant(self, utterance: Utterance, t: float) -> list[Output]:
        player = self.game.position.player
        verdict = judge(utterance, self.chant(), self.thresholds)
        if isinstance(verdict, Right):
            return self._right(verdict.word, verdict.ending, verdict.named, t)
        if isinstance(verdict, Wrong):
            return self._wrong(verdict, t)
        if verdict.doubt in (Doubt.NOTHING_HEARD, Doubt.NOT_A_CHANT):
            return self._not_heard(verdict.doubt, t)
        self.attempts += 1
        why = {"player": player, "why": verdict.doubt.value, "evidence": verdict.evidence.summary()}
        if self.attempts <= SAY_AGAIN_LIMIT:
            self._count_from(t)
            return [Say(self._say("say_again", player=player)), Event("say_again", why)]
        self.phase, self.unsure = Phase.TABLE, verdict
        return [Say(self._say("ask_table", player=player)), Event("table_asked", why)]

    def _not_heard(self, doubt: Doubt, t: float) -> list[Output]:
        """Ask for the chant again; the hesitation limit counts from this question, not from the turn."""
        player = self.game.position.player
        self._count_from(t)
        return [Say(self._say("not_heard", player=player)), Event("say_again", {"player": player, "why": doubt.value})]

    def _count_from(self, t: float | None) -> None:
        """The hesitation limit counts from `t` (a turn, a question, the table falling quiet)."""
        self.clock, self.voiced = t, False

    def _right(self, word: str, ending: Ending | None, named: str | None, t: float) -> list[Output]:
        position = self.game.position
        if position.is_last_card():
            chain = [*position.chain, word]
            end = self.game.push(Finish(word))
            return [Event("chant_ok", {"player": position.player, "chain": chain}), *self._round_end(end, t)]
        self.phase, self.pending_word = Phase.NAME, word
        self._count_from(t)
        if named is None:
            return [Say(self._say("name_next", player=position.player)),
                    Event("name_asked", {"player": position.player})]
        return self._name(named, t)

    def _hear_name(self, utterance: Utterance, t: float) -> list[Output]:
        words = [w for w in utterance.texts if w not in self.ha]
        if len(words) == 1:
            match = best_match(words[0], self._names())
            if match.score >= self.thresholds.match and utterance.confidence >= self.thresholds.accept:
                return self._name(match.candidate, t)
        if len(words) > 1:
            self.phase = Phase.CHANT
            return self._hear_chant(utterance, t)
        return self._ask_again(t)

    def _ask_again(self, t: float) -> list[Output]:
        """Ask again for what is due: the chant, or the name that ends it."""
        if self.phase is not Phase.NAME:
            return self._not_heard(Doubt.NOTHING_HEARD, t)
        player = self.game.position.player
        self._count_from(t)
        return [Say(self._say("name_next", player=player)), Event("name_asked", {"player": player})]

    def _name(self, named: str, t: float) -> list[Output]:
        position = self.game.position
        refusal = position.naming_refusal(named)
        if refusal is not None:
            key = {Refusal.NAMED_BACK: "named_back", Refusal.NAMED_SELF: "named_self"}.get(refusal, "unknown_player")
            shown = position.players[position.seat(named)] if refusal is not Refusal.UNKNOWN_PLAYER else named
            return [Say(self._say(key, player=position.player, named=shown)),
                    Event("refused", {"player": position.player, "named": shown, "why": refusal.value})]
        word = self.pending_word
        self.game.push(Pass(word, named))
        self.phase, self.pending_word, self.attempts = Phase.CHANT, None, 0
        self._count_from(t)
        after = self.game.position
        return [Event("chant_ok", {"player": position.player, "chain": list(after.chain)}),
                Event("turn", {"player": after.player}), Say(self._say("turn", player=after.player))]

    def _wrong(self, verdict: Wrong, t: float) -> list[Output]:
        position = self.game.position
        mistake = verdict.mistake
        first, second = (verdict.expected + ("", ""))[:2]
        sentence = self._say(f"mistake_{mistake.value}", player=position.player,
                             expected=" ".join(verdict.expected), heard=" ".join(verdict.heard),
                             first=first, second=second, cards=position.hands[position.turn])
        out: list[Output] = [
            Event("chant_wrong", {"player": position.player, "expected": list(verdict.evidence.expected),
                                  "heard": verdict.evidence.heard_text, "mistake": mistake.value,
                                  "at": verdict.at, "evidence": verdict.evidence.summary()}),
            Say(sentence),
        ]
        if position.chain:
            out.append(Say(self._say("chain_was", chain=" ".join(position.chain))))
        return out + self._round_end(self.game.push(Lose(mistake.reason)), t)

    # The table decides

    def _decide(self, utterance: Utterance, t: float) -> list[Output]:
        said = {w for h in utterance.alternatives[:1] for w in h.texts}
        right, wrong = bool(said & set(self.right_words)), bool(said & set(self.wrong_words))
        if right == wrong:
            return [Say(self._say("ask_table_again")),
                    Event("table_asked", {"player": self.game.position.player, "why": "no_answer"})]
        unsure, self.unsure = self.unsure, None
        reading = unsure.reading if unsure else None
        self.phase, self.attempts = Phase.CHANT, 0
        out: list[Output] = [Event("table_decided", {"player": self.game.position.player,
                                                     "right": right})]
        if not right:
            out.append(Say(self._say("table_wrong")))
            return out + self._round_end(self.game.push(Lose(Reason.WRONG_CHAIN)), t)
        out.append(Say(self._say("table_right")))
        if reading is None or reading.word is None:
            self._count_from(t)
            player = self.game.position.player
            return out + [Say(self._say("say_again", player=player)),
                          Event("say_again", {"player": player, "why": "table_right_word_unclear"})]
        return out + self._right(reading.word, reading.ending, reading.named, t)

    # Round ends

    def _hesitated(self, t: float) -> list[Output]:
        player = self.game.position.player
        played = self.phase is Phase.NAME
        end = self.game.push(Lose(Reason.HESITATED, played))
        return [Say(self._say("hesitated", player=player)), *self._round_end(end, t)]

    def _round_end(self, end: RoundEnd, t: float | None) -> list[Output]:
        self.phase, self.pending_word, self.attempts, self.unsure = Phase.CHANT, None, 0, None
        self._count_from(t)
        out: list[Output] = []
        if end.won:
            out += [Event("round_won", {"player": end.player}), Say(self._say("round_won", player=end.player)),
                    Event("token", {"player": end.player, "tokens": end.tokens})]
        else:
            out += [Event("round_lost", {"player": end.player, "reason": end.reason.value}),
                    Say(self._say("round_lost", player=end.player))]
        if end.chief:
            self.phase = Phase.OVER
            return out + [Event("chief", {"player": end.player}), Say(self._say("chief", player=end.player))]
        out += [Event("deal", {"player": d.player, "cards": d.cards, "hand": d.hand}) for d in end.deals]
        if end.won:
            start = self.game.position.start_count
            out.append(Say(self._say("deal_all", cards=start)))
            out += [Say(self._say("deal_token", player=d.player, cards=d.hand)) for d in end.deals if d.hand > start]
        else:
            out.append(Say(self._say("deal_loser", player=end.player, cards=end.deals[0].cards)))
        return out + self._round_start()

    def _round_start(self) -> list[Output]:
        position = self.game.position
        return [Event("turn", {"player": position.player}),
                Say(self._say("round_start", round=position.round, player=position.player))]

    # Helpers

    def _names(self) -> tuple[str, ...]:
        return tuple(p.lower() for p in self.game.position.players)

    def _say(self, key: str, **values) -> str:
        return self.phrases.say(key, **values)

    def _list(self, items: Sequence[str]) -> str:
        if len(items) < 2:
            return "".join(items)
        return self._say("list_and", most=", ".join(items[:-1]), last=items[-1])
