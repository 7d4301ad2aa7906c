"""The session loop: audio -> recognizer -> referee -> narrator and event log.

A session can be entered at two stages: from audio (a microphone or a WAV file, through a recognizer)
or from a transcript (typed utterances, skipping recognition). Both drive the same referee, so the
rules behave identically whichever way words arrive.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, TextIO

from gm.audio import BYTES_PER_SECOND, CHUNK_SECONDS, AudioChunk, AudioError, chunks_of
from gm.events import Event, EventLog
from gm.narration import DEAF_TAIL, Narrator
from gm.referee import Output, Referee, Say
from gm.speech import Grammar, Recognizer, Utterance

STABLE = 0.2
"""Seconds a complete partial result must stand before the utterance is closed on it."""
VOICED = 0.5
"""The most of that time the talker may have gone on making sounds: talk going on past a whole call
is table talk the engine squeezed into the game's words (it is then heard to its end)."""
TRANSCRIPT_STEP = 1.0
"""Seconds between transcript lines that give no time of their own."""


@dataclass
class Session:
    """One refereed game: where outputs go and what the narrator's voice has made the microphone miss."""

    referee: Referee
    narrator: Narrator
    events: EventLog
    out: TextIO = field(default_factory=lambda: sys.stdout)
    deaf_until: float = 0.0
    """Stream time (seconds) until which microphone audio is discarded: the narrator is talking."""
    _grammar: Grammar | None = None

    def emit(self, outputs: Iterable[Output], t: float) -> None:
        """Send sentences to the narrator and events to the log, in order."""
        for output in outputs:
            if isinstance(output, Say):
                begin = max(t, self.deaf_until)
                talking = self.narrator.say(output.text, t)
                if talking > 0:
                    self.deaf_until = begin + talking + DEAF_TAIL
            elif isinstance(output, Event):
                self.events.write(output, t)

    def hear(self, utterance: Utterance, t: float) -> None:
        if not utterance.words:
            return
        print(f"[{t:7.2f}] heard: {utterance.text} ({utterance.confidence:.2f})", file=self.out, flush=True)
        self.emit(self.referee.hear(utterance, t), t)

    def tune(self, recognizer: Recognizer) -> None:
        """Give the recognizer what the referee expects now (only when it changes)."""
        grammar = self.referee.grammar()
        if grammar != self._grammar:
            self._grammar = grammar
            vocabulary = recognizer.set_grammar(grammar)
            if vocabulary.missing:
                print(f"gm: cannot hear these words with {recognizer.name}: {', '.join(vocabulary.missing)}",
                      file=sys.stderr, flush=True)


def run_audio(session: Session, recognizer: Recognizer, chunks: Iterator[AudioChunk]) -> None:
    """Referee a stream of audio until it ends or the game is over.

    Audio heard while the narrator talks is replaced by silence, so stream times stay true. When a
    partial result has held a complete utterance for `STABLE` seconds, mostly in silence (`VOICED`),
    it is closed and judged: no waiting for the end of speech (a partial that is complete for an
    instant, like "skip" on the way to "exploding kitten", is not). A partial with speech the engine
    could not name is never complete. Time passes for the referee (tick) while no utterance is
    heard, and it is told of a voice the recognizer hears without making an utterance of it.
    """
    session.emit(session.referee.opening(), 0.0)
    session.tune(recognizer)
    speaking = False
    complete: tuple[tuple[str, ...], float] | None = None
    """A complete partial result, and since when it has stood."""
    t = 0.0
    for chunk in chunks:
        t = chunk.end
        finals = []
        for utterance in recognizer.feed(_mute_while_narrating(chunk, session.deaf_until), chunk.start):
            if utterance.final:
                finals.append(utterance)
                continue
            speaking = bool(utterance.words)
            if speaking and not utterance.best.unknown and session.referee.is_complete(utterance.texts):
                if complete is None or complete[0] != utterance.texts:
                    complete = (utterance.texts, chunk.start)
            else:
                complete = None
        settled = complete is not None and t - complete[1] >= STABLE and recognizer.voicing(STABLE) <= VOICED
        if not finals and settled:
            closed = recognizer.end_utterance(skip_rest=True)
            finals = [closed] if closed is not None else []
        for utterance in finals:
            speaking, complete = False, None
            session.hear(utterance, t)
            session.tune(recognizer)
        if not (speaking or recognizer.hearing):
            session.emit(session.referee.tick(t, recognizer.talking_since), t)
        if session.referee.is_over():
            break
    else:
        last = recognizer.end_utterance()
        if last is not None:
            session.hear(last, t)
    session.emit(session.referee.finish(t), t)


def _mute_while_narrating(chunk: AudioChunk, deaf_until: float) -> bytes:
    if chunk.start >= deaf_until:
        return chunk.pcm
    cut = min(len(chunk.pcm), int((deaf_until - chunk.start) * BYTES_PER_SECOND) // 2 * 2)
    return bytes(cut) + chunk.pcm[cut:]


def read_transcript(path: Path | str) -> Iterator[tuple[float, str]]:
    """Lines of `words` or `SECONDS<TAB>words`; blank lines and #comments are skipped."""
    t = 0.0
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise AudioError(f"cannot read transcript {path}: {error}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "\t" in line:
            stamp, line = line.split("\t", 1)
            try:
                t = float(stamp)
            except ValueError:
                raise AudioError(f"{path}:{number}: '{stamp}' is not a time in seconds") from None
        else:
            t += TRANSCRIPT_STEP
        yield t, line


def run_transcript(session: Session, lines: Iterable[tuple[float, str]]) -> None:
    """Referee typed utterances, each at its time."""
    session.emit(session.referee.opening(), 0.0)
    t = 0.0
    for t, text in lines:
        session.emit(session.referee.tick(t), t)
        if session.referee.is_over():
            break
        session.hear(Utterance.from_text(text, at=t), t)
        if session.referee.is_over():
            break
    session.emit(session.referee.finish(t), t)


def transcribe(recognizer: Recognizer, chunks: Iterable[AudioChunk], partials: bool = False) -> Iterator[Utterance]:
    """Every utterance in a stream of audio, final ones (and partial ones if asked)."""
    for chunk in chunks:
        for utterance in recognizer.feed(chunk.pcm, chunk.start):
            if utterance.final or partials:
                yield utterance
    last = recognizer.end_utterance()
    if last is not None and last.words:
        yield last


def recognize(recognizer: Recognizer, pcm: bytes, start: float = 0.0,
              chunk_seconds: float = CHUNK_SECONDS) -> list[Utterance]:
    """Everything `recognizer` says about a whole recording fed in live-sized chunks, then closed:
    the partial and final utterances in order. For tests and benchmarks."""
    return list(transcribe(recognizer, chunks_of(pcm, start, chunk_seconds), partials=True))
