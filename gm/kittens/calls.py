"""The voice protocol of Exploding Kittens: recognized words -> one call, or NotUnderstood.

A call is `[speaker] phrase [player]`: "attack", "targeted attack bo", "bo nope", "favor cy",
"zombie kitten ana", "draw from the bottom". The speaker is optional (default: the player whose turn
it is); a trailing name is the card's target, or for "zombie kitten" the dead player revived. Every
phrase comes from phrases/<lang>/exploding_kittens.toml. Matching is exact over the whole utterance:
anything else is NotUnderstood, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Callable, Iterable, Sequence

from gm.kittens.rules import DEAD_TARGET, LIVING_TARGET
from gm.phrases import PhraseError, Phrases
from gm.speech import Grammar, HeardWord, Phrase, normalize_words

TARGET_REQUIRED = LIVING_TARGET | DEAD_TARGET
TARGET_OPTIONAL = frozenset({"clone", "zombie_kitten"})
"""A Clone takes a name when it copies Favor; a Zombie Kitten names the dead player it revives."""

CALL = "call"
"""The kind of every phrase in the call grammar."""
CALLS = ("nope", "draw", "exploding_kitten", "defuse", "zombie_kitten", "boom", "odds", "whose_turn")
"""Calls that are not a card played: table `[calls]` of the phrase file."""


class CallBookError(ValueError):
    """The calls cannot be told apart (a player's name sounds like a call, two calls read alike)."""


@dataclass(frozen=True)
class Call:
    """One understood call. `action` is a card name ("attack", "pair", ...) or one of CALLS."""

    action: str
    player: str | None = None
    """Who says it, when named; None: the player whose turn it is."""
    target: str | None = None


@dataclass(frozen=True)
class NotUnderstood:
    """Words that are not a whole call. `reason`: "empty", "unknown", or "needs_target" (a card that
    needs a player's name came without one; `action` names it)."""

    words: tuple[str, ...]
    reason: str
    action: str | None = None


class CallBook:
    """Every sentence the table may say in this game, mapped to its call."""

    def __init__(self, phrases: Phrases, players: Sequence[str], cards: Iterable[str]):
        """`cards`: the card and combo names playable in this game (the rules' `playable`)."""
        self.names = {tuple(normalize_words(p)): p for p in players}
        if any(not words for words in self.names):
            raise CallBookError("every player needs a name that can be said")
        card_calls, calls = phrases.table("card_calls"), phrases.table("calls")
        phrasings: dict[str, list[tuple[str, ...]]] = {}
        for action, table in [(c, card_calls) for c in sorted(cards)] + [(c, calls) for c in CALLS]:
            said = table.get(action)
            if not isinstance(said, list) or not said or not all(isinstance(s, str) for s in said):
                raise PhraseError(f"no list of words for {action!r} in the exploding_kittens phrases")
            phrasings[action] = [tuple(normalize_words(s)) for s in said]
        call_words = {w for forms in phrasings.values() for form in forms for w in form}
        for words, name in self.names.items():
            if call_words & set(words):
                raise CallBookError(f"the name {name!r} sounds like a call: choose another name")
        linking = phrases.table("hearing").get("linking", [])
        if not isinstance(linking, list) or not all(isinstance(w, str) for w in linking):
            raise PhraseError("'linking' in [hearing] of the exploding_kittens phrases must be a list of words")
        self.linking = frozenset(w for word in linking for w in normalize_words(word)) - set(
            w for words in self.names for w in words)
        self.words = tuple(sorted(call_words | {w for words in self.names for w in words}))
        self._sentences: dict[tuple[str, ...], Call | NotUnderstood] = {}
        speakers = [((), None)] + [(words, name) for words, name in self.names.items()]
        for action, forms in phrasings.items():
            targets = [((), None)]
            if action in TARGET_REQUIRED | TARGET_OPTIONAL:
                targets += [(words, name) for words, name in self.names.items()]
            for form, (said_by, speaker), (said_to, target) in product(forms, speakers, targets):
                words = said_by + form + said_to
                if action in TARGET_REQUIRED and target is None:
                    self._add(words, NotUnderstood(words, "needs_target", action))
                else:
                    self._add(words, Call(action, speaker, target))
        self._prefixes = {words[:i] for words in self._sentences for i in range(1, len(words))}

    def _add(self, words: tuple[str, ...], meaning: Call | NotUnderstood) -> None:
        known = self._sentences.get(words)
        if known is not None and known != meaning:
            raise CallBookError(f"{' '.join(words)!r} could mean two calls: change a phrase")
        self._sentences[words] = meaning

    def sureness(self, words: Sequence[HeardWord]) -> float:
        """How surely a call was heard: its least sure word, leaving out the linking words ("the",
        "of"), which are heard faintly even when said clearly and tell no call from another."""
        telling = [w for w in words if w.text not in self.linking] or list(words)
        return min((w.confidence for w in telling), default=0.0)

    def parse(self, words: Sequence[str]) -> Call | NotUnderstood:
        """The call these recognized words make (normalized first)."""
        said = tuple(w for word in words for w in normalize_words(word))
        if not said:
            return NotUnderstood((), "empty")
        return self._sentences.get(said) or NotUnderstood(said, "unknown")

    def grammar(self, allowed: Callable[[str], bool] = lambda action: True) -> Grammar:
        """The sentences of the `allowed` calls as phrases of kind "call": the recognizer hears
        whole calls (or nothing), never a stray word of one."""
        return Grammar(tuple(Phrase(tuple((w,) for w in words), CALL) for words, meaning in self._sentences.items()
                             if allowed(meaning.action)), room_sound=True)

    def is_complete(self, words: Sequence[str]) -> bool:
        """A whole call that no longer call can grow out of ("attack", but not "draw",
        which may become "draw from the bottom")."""
        said = tuple(w for word in words for w in normalize_words(word))
        return isinstance(self._sentences.get(said), Call) and said not in self._prefixes
