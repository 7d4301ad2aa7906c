"""The interface between the listening pipeline and a game's rules: a referee at the table.

A referee turns utterances into outputs: sentences for the narrator (`Say`) and events for the log
(`Event`). It also tells the pipeline which words to listen for right now and when an utterance is
complete enough to judge, so the verdict can come before the talker falls silent.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Sequence, Union

from gm.events import Event
from gm.speech import Grammar, Utterance


@dataclass(frozen=True)
class Say:
    """A sentence for the narrator."""

    text: str


Output = Union[Say, Event]


class Referee(abc.ABC):
    """One game being refereed: holds the rules state, hears utterances, says what happens."""

    @abc.abstractmethod
    def opening(self) -> list[Output]:
        """Setup narration and the first turn."""

    @abc.abstractmethod
    def vocabulary(self) -> list[str]:
        """Every word that may be said at this moment (the recognizer listens for these only)."""

    def grammar(self) -> Grammar:
        """The phrases that may be said at this moment (default: the vocabulary in any order)."""
        return Grammar.word_loop(self.vocabulary())

    def is_complete(self, words: Sequence[str]) -> bool:
        """True when a partial result already holds a whole utterance (judge it now)."""
        return False

    @abc.abstractmethod
    def hear(self, utterance: Utterance, t: float) -> list[Output]:
        """React to one final utterance heard at `t` seconds."""

    def tick(self, t: float, talking_since: float | None = None) -> list[Output]:
        """Time has reached `t` seconds with no utterance being heard: close windows, call hesitation.
        `talking_since`: when the voice the recognizer hears now began, if it hears one it opened no
        utterance for (speech too quiet beside the room's sound to be made out, talk behind the
        table); None when the room is quiet."""
        return []

    def finish(self, t: float) -> list[Output]:
        """The session ends at `t` seconds: settle anything still pending (an open Nope window)."""
        return []

    @abc.abstractmethod
    def is_over(self) -> bool:
        """The game has ended: nothing more to referee."""
