"""A table of synthetic players who answer the game master, for audio tests of whole sessions.

Each player says their scripted line when it is their turn and says it again when the game master
asks; when the game master asks the table to decide, the table answers with the truth. The session
runs through the real pipeline (recognizer, referee) while the recording grows, so the recording can
afterwards be replayed with `gm play --input` and must give the very same events.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gm import synth
from gm.audio import BYTES_PER_SECOND, AudioChunk, to_pcm16
from gm.events import Event
from gm.narration import Narrator
from gm.pipeline import Session, run_audio
from gm.speech import SAMPLE_RATE, Recognizer
from gm.referee import Referee

CHUNK = 0.1
"""Seconds per chunk, as `gm.audio.wav_chunks` reads a file (so a replay sees the same chunks)."""
LEAD_IN = 1.0
WAIT = 3.0
"""Seconds of room sound after a line before the table gives up waiting for the game master."""
REPLY = 1.2
"""Seconds of room sound after the game master's answer before the next player speaks (with the
narrator muted, the table still takes a breath)."""
ASKED_AGAIN = {"say_again", "not_understood"}
PATIENCE = 8
"""How often a player says a line the game master did not take before going on with the next."""
ASKED_TABLE = "table_asked"


@dataclass(frozen=True)
class Line:
    player: str
    text: str
    right: bool = True
    """For a chant: is it right? (The table's answer when the game master asks it to decide.)"""


class EventRecorder:
    """An event log kept in memory."""

    def __init__(self):
        self.events: list[tuple[float, Event]] = []

    def write(self, event: Event, t: float) -> None:
        self.events.append((t, event))

    def close(self) -> None:
        pass


@dataclass
class Played:
    """What happened: every line said (with the answer it got), the events and the recording."""

    said: list[tuple[Line, list[Event]]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    recording: bytes = b""


def room(seconds: float, seed: int) -> np.ndarray:
    """A quiet room: a faint pink noise floor (a microphone is never digitally silent)."""
    count = int(round(seconds / CHUNK)) * int(CHUNK * SAMPLE_RATE)
    return synth.noise("pink", count / SAMPLE_RATE, seed)[:count] * 0.001


def padded(samples: np.ndarray, seed: int) -> np.ndarray:
    """Speech padded with room sound to a whole number of chunks."""
    extra = (-len(samples)) % int(CHUNK * SAMPLE_RATE)
    return np.concatenate([samples, room(CHUNK, seed)[:extra]])


def play(referee: Referee, recognizer: Recognizer, script: list[Line], voices: dict[str, synth.Voice],
         table_voice: synth.Voice, table_words: tuple[str, str] = ("right", "wrong")) -> Played:
    """Run the scripted session through the real pipeline; players answer what the game master asks."""
    recorder = EventRecorder()
    played = Played()
    pieces: list[np.ndarray] = []

    def stream():
        seed = 0
        sent = 0
        """Bytes sent so far: chunk times are computed from it exactly as `wav_chunks` does."""

        def emit(samples):
            nonlocal sent
            pieces.append(samples)
            pcm = to_pcm16(samples)
            for offset in range(0, len(pcm), int(CHUNK * SAMPLE_RATE) * 2):
                chunk = pcm[offset:offset + int(CHUNK * SAMPLE_RATE) * 2]
                yield AudioChunk((sent + offset) / BYTES_PER_SECOND, chunk)
            sent += len(pcm)

        yield from emit(room(LEAD_IN, seed))
        queue = list(script)
        while queue and not referee.is_over():
            line = queue[0]
            seed += 1
            voice = table_voice if line.player == "table" else voices[line.player]
            before = len(recorder.events)
            yield from emit(padded(synth.speak(line.text, voice, seed), seed))
            waited = 0.0
            while len(recorder.events) == before and waited < WAIT and not referee.is_over():
                yield from emit(room(CHUNK, seed * 1000 + int(waited * 10)))
                waited += CHUNK
            yield from emit(room(REPLY, seed))  # the answer's own events come together
            answer = [event for _, event in recorder.events[before:]]
            played.said.append((line, answer))
            names = {event.name for event in answer}
            tries = sum(1 for said_line, _ in played.said if said_line is line)
            if line.player == "table":
                if ASKED_TABLE in names and tries < PATIENCE:
                    continue
                queue.pop(0)
                if not names & ASKED_AGAIN:
                    queue.pop(0)  # the chant the table decided on is done
            elif ASKED_TABLE in names:
                queue.insert(0, Line("table", table_words[0] if line.right else table_words[1]))
            elif not ((names & ASKED_AGAIN or not answer) and tries < PATIENCE):
                queue.pop(0)
        yield from emit(room(1.0, seed + 7))

    session = Session(referee, Narrator(out=_Silent()), recorder)
    run_audio(session, recognizer, stream())
    played.events = [event for _, event in recorder.events]
    played.recording = to_pcm16(np.concatenate(pieces))
    return played


class _Silent:
    """Narration goes nowhere: the events say what happened."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
