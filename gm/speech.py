"""What a recognizer hears: value types shared by every engine, and the interface they implement.

Data flows one way: audio chunks go into a `Recognizer`; `Utterance` values come out (partial ones
while someone is still speaking, a final one when they stop). Everything downstream (matching, the
games' judges) reads only these types, never an engine's own result format.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Iterable, Iterator

SAMPLE_RATE = 16000
"""Hertz. Every recognizer takes 16 kHz mono signed 16-bit little-endian PCM."""


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
    unknown: int = 0
    """How many stretches of speech the engine heard but could not name; they are not in `words`."""

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

    @abc.abstractmethod
    def feed(self, pcm: bytes, start: float) -> Iterator[Utterance]:
        """Take audio that begins `start` seconds into the stream; yield what it completes."""

    @abc.abstractmethod
    def end_utterance(self) -> Utterance | None:
        """Close the current utterance now and return its final result (None if nothing heard)."""

    def close(self) -> None:
        """Release the engine's resources."""
