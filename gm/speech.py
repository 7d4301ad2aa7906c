"""What a recognizer hears: value types shared by every engine, and the interface they implement.

Data flows one way: audio chunks go into a `Recognizer`; `Utterance` values come out (partial ones
while someone is still speaking, a final one when they stop). Everything downstream (matching, the
games' judges) reads only these types, never an engine's own result format.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

SAMPLE_RATE = 16000
"""Hertz. Every recognizer takes 16 kHz mono signed 16-bit little-endian PCM."""


FREE = "free"
"""The kind of a rival reading of free speech: any sounds of the language, in any order."""


@dataclass(frozen=True)
class HeardWord:
    """One recognized word."""

    text: str
    confidence: float
    """0.0 (a guess) to 1.0 (certain), as far as the engine can tell."""
    start: float
    """Seconds since the start of the audio stream."""
    end: float
    """Seconds since the start of the audio stream."""

    def __repr__(self) -> str:
        return f"HeardWord({self.text!r}, {self.confidence:.2f}, {self.start:.2f}, {self.end:.2f})"


@dataclass(frozen=True)
class Hypothesis:
    """One reading of an utterance: its words and the engine's score for it (higher is better)."""

    words: tuple[HeardWord, ...]
    score: float = 0.0
    kind: str = ""
    """Which kind of phrase of the grammar this reading is (see `Grammar`); "" when untold."""
    unknown: int = 0
    """How many stretches of speech the engine heard but could not name (talk around the game's
    words); they are not in `words`."""

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(w.text for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(self.texts)


@dataclass(frozen=True)
class Utterance:
    """Everything an engine says about one stretch of speech.

    `alternatives` holds the n-best readings, best first; it always contains at least the best one.
    A partial utterance (`final=False`) is the engine's running guess while speech goes on.
    """

    alternatives: tuple[Hypothesis, ...]
    final: bool = True
    engine: str = ""
    rivals: tuple[Hypothesis, ...] = ()
    """Where the engine can tell: the best reading of each other kind of phrase in the grammar,
    heard from the same audio, scored on the best reading's scale (how well the audio fits it);
    for a grammar with no word loop, also a reading of free speech (kind `FREE`, no words: how well
    the audio fits any sounds at all). A judge weighs the best reading against them: a mistake that
    fits barely better than the right chant is no proof, a call that fits far worse than free
    speech was probably not said. Ask with `rival(kind)`: an engine may make them on demand."""
    reread: Callable[[str], Hypothesis | None] | None = field(default=None, compare=False, repr=False)
    """Where the engine makes rival readings on demand: the reading of a kind, decoded when first
    asked for (each costs a decode of the whole utterance, so only a judge in doubt pays for it).
    It gives None once the engine has moved on to the next utterance."""

    @classmethod
    def from_text(cls, text: str, at: float = 0.0, engine: str = "transcript") -> "Utterance":
        """A certain utterance from typed words: how a transcript enters the pipeline."""
        words = tuple(
            HeardWord(word, 1.0, at + i * 0.3, at + i * 0.3 + 0.25)
            for i, word in enumerate(normalize_words(text))
        )
        return cls((Hypothesis(words, 0.0),), True, engine)

    @property
    def best(self) -> Hypothesis:
        return self.alternatives[0] if self.alternatives else Hypothesis(())

    @property
    def words(self) -> tuple[HeardWord, ...]:
        return self.best.words

    @property
    def texts(self) -> tuple[str, ...]:
        return self.best.texts

    @property
    def text(self) -> str:
        return self.best.text

    @property
    def start(self) -> float:
        return self.words[0].start if self.words else 0.0

    @property
    def end(self) -> float:
        return self.words[-1].end if self.words else 0.0

    def rival(self, kind: str) -> Hypothesis | None:
        """The rival reading of this kind, if the engine gives one (see `rivals`)."""
        given = next((r for r in self.rivals if r.kind == kind), None)
        if given is None and self.reread is not None:
            return self.reread(kind)
        return given

    @property
    def confidence(self) -> float:
        """The weakest word's confidence: an utterance is as sure as its least sure word."""
        return min((w.confidence for w in self.words), default=0.0)


def normalize_words(text: str) -> list[str]:
    """Lower-case words without punctuation: the one spelling recognizers, phrase files and
    transcripts share ("Ooga-Booga!" -> ["ooga", "booga"])."""
    cleaned = "".join(c.lower() if c.isalnum() or c == "'" else " " for c in text)
    return cleaned.split()


class RecognizerError(Exception):
    """A recognizer cannot be built or used; the message says what to do."""


@dataclass(frozen=True)
class Vocabulary:
    """The words a recognizer listens for, and those it could not take."""

    words: tuple[str, ...]
    missing: tuple[str, ...] = field(default=())
    """Words the engine cannot recognize (not in its model and no pronunciation could be made)."""


@dataclass(frozen=True)
class Phrase:
    """A pattern of words that may be said: each slot lists the words that may stand there.

    A slot holding "" may be left out. `kind` says what saying the phrase would mean (a right
    chant, a mistake, a card call); `weight` is how likely it is said, relative to other phrases."""

    slots: tuple[tuple[str, ...], ...]
    kind: str = ""
    weight: float = 1.0

    @classmethod
    def of(cls, text: str, kind: str = "", weight: float = 1.0) -> "Phrase":
        """A fixed phrase: one word per slot."""
        return cls(tuple((w,) for w in normalize_words(text)), kind, weight)

    def words(self) -> set[str]:
        return {w for slot in self.slots for w in slot if w}

    def matches(self, words: Sequence[str]) -> bool:
        """True when `words` is one way of saying this phrase."""
        reachable = {0}
        for slot in self.slots:
            reachable = {i + 1 for i in reachable if i < len(words) and words[i] in slot} | (
                reachable if "" in slot else set())
            if not reachable:
                return False
        return len(words) in reachable


@dataclass(frozen=True)
class Grammar:
    """What may be said at this moment: phrases, plus a loop of words said in any order.

    The loop (kind "loop") gives speech that fits no phrase somewhere to go; a recognizer reports
    the best reading of each kind it was given, with its score, so a judge can weigh a right
    phrase against a mistake or against free speech instead of trusting one transcript."""

    phrases: tuple[Phrase, ...] = ()
    loop: tuple[str, ...] = ()
    loop_weight: float = 1.0
    room_sound: bool = False
    """The phrases are short (a call, an answer), so the room sound around them weighs as much as
    they do: a recognizer that can gives that sound a place of its own before and after the phrase
    instead of hearing it as a word. Long phrases (chants) are judged on fine differences between
    readings, which that place unsettles."""

    @classmethod
    def word_loop(cls, words: Iterable[str]) -> "Grammar":
        return cls((), tuple(dict.fromkeys(w for w in words if w)))

    def words(self) -> tuple[str, ...]:
        """Every word the grammar can produce, each once, in a stable order."""
        found = [w for phrase in self.phrases for slot in phrase.slots for w in slot if w]
        return tuple(dict.fromkeys([*found, *self.loop]))

    def kind_of(self, words: Sequence[str]) -> str:
        """The kind of the most likely phrase these words say: "loop" when only the loop can say
        them, "" when nothing in the grammar can."""
        fitting = [p for p in self.phrases if p.matches(words)]
        if fitting:
            return max(fitting, key=lambda p: p.weight).kind
        return "loop" if words and all(w in self.loop for w in words) else ""

    def kinds(self) -> tuple[str, ...]:
        found = [phrase.kind for phrase in self.phrases]
        return tuple(dict.fromkeys([*found, *(["loop"] if self.loop else [])]))

    def only(self, kind: str) -> "Grammar":
        """The part of this grammar that says phrases of `kind` ("loop": the word loop alone)."""
        if kind == "loop":
            return Grammar((), self.loop, room_sound=self.room_sound)
        return Grammar(tuple(p for p in self.phrases if p.kind == kind), room_sound=self.room_sound)


class Recognizer(abc.ABC):
    """Streaming speech recognition restricted to a vocabulary.

    Feed 16 kHz mono 16-bit PCM chunks; get partial and final utterances back. The engine finds
    utterance ends itself (silence); the caller may also close an utterance early with
    `end_utterance()`, for instance the moment a closing word shows up in a partial result.
    """

    name: str = "recognizer"

    @abc.abstractmethod
    def set_vocabulary(self, words: Iterable[str]) -> Vocabulary:
        """Listen only for these words from now on. Reports words that cannot be heard."""

    def set_grammar(self, grammar: Grammar) -> Vocabulary:
        """Listen for these phrases from now on. Engines that cannot follow phrase structure
        listen for the grammar's words in any order (kinds are then not reported)."""
        return self.set_vocabulary(grammar.words())

    @abc.abstractmethod
    def feed(self, pcm: bytes, start: float) -> Iterator[Utterance]:
        """Take audio that begins `start` seconds into the stream; yield what it completes."""

    @abc.abstractmethod
    def end_utterance(self, skip_rest: bool = False) -> Utterance | None:
        """Close the current utterance now and return its final result (None if nothing heard).

        `skip_rest`: the talker may still be speaking (the utterance was closed on a partial
        result); what remains of their speech opens no new utterance."""

    @property
    def hearing(self) -> bool:
        """True while someone is speaking (an utterance is open), even before any word is made out:
        time does not run out on a player who has started."""
        return False

    @property
    def talking_since(self) -> float | None:
        """When the voice heard now began (stream seconds), if the engine hears a voice it has opened
        no utterance for: speech too quiet beside the room's sound to be made out, or talk behind
        the table. None when the room is quiet or the engine cannot tell. A player may be chanting
        unheard in it: time must not run out on them."""
        return None

    def voicing(self, seconds: float) -> float:
        """The share of the last `seconds` of the open utterance in which the talker made a sound
        (0.0 when no utterance is open or the engine cannot tell). A result that looks whole while
        the talker goes on talking is table talk squeezed into the game's words."""
        return 0.0

    def close(self) -> None:
        """Release the engine's resources."""
