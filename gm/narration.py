"""The narrator: speaks sentences aloud, into one WAV file on the session's timeline, or not at all.

Speech is rendered by pyttsx3 (espeak-ng on Linux) into a WAV file and played by sounddevice, rather
than with pyttsx3's own `say()`: that way the narrator knows exactly how long it talks (the pipeline
stops listening for that long, so the game master never hears itself), a missing speaker is detected
instead of failing silently, and the known trouble with repeated `runAndWait` and `say()` after
`save_to_file()` never arises. Every narrator also prints what it says.
"""

from __future__ import annotations

import functools
import sys
import tempfile
from pathlib import Path
from typing import TextIO

import numpy as np

from gm.audio import BYTES_PER_SECOND, AudioError, from_pcm16, read_wav, to_pcm16, write_wav
from gm.speech import SAMPLE_RATE

DEAF_TAIL = 0.3
"""Seconds of microphone audio also discarded after the narrator stops (room echo, late buffers)."""


class NoOutputDevice(AudioError):
    """There is no speaker to talk through."""


class Narrator:
    """Prints each sentence; subclasses also voice it. `say` returns how long it talks (seconds)."""

    def __init__(self, out: TextIO | None = None):
        self.out = out or sys.stdout

    def say(self, text: str, at: float) -> float:
        print(f"[{at:7.2f}] gm: {text}", file=self.out, flush=True)
        return 0.0

    def close(self) -> None:
        """Finish: wait for speech, write files."""


class Voice:
    """pyttsx3 rendering sentences to 16 kHz PCM, in the players' language."""

    def __init__(self, language: str = "en", rate: int | None = None):
        try:
            import pyttsx3
            self._engine = pyttsx3.init()
        except (ImportError, RuntimeError, OSError) as error:
            raise NoOutputDevice(f"the speech synthesizer cannot start ({error}): "
                                 "install espeak-ng (Debian/Ubuntu: apt install espeak-ng)") from None
        voice = _voice_for(tuple((v.id, tuple(v.languages)) for v in self._engine.getProperty("voices")),
                           language)
        if voice:
            self._engine.setProperty("voice", voice)
        if rate:
            self._engine.setProperty("rate", rate)
        self._folder = tempfile.TemporaryDirectory(prefix="gm-voice-")

    def render(self, text: str) -> bytes:
        """One sentence as 16 kHz mono PCM (one save and one runAndWait per sentence: reliable)."""
        path = Path(self._folder.name) / "sentence.wav"
        path.unlink(missing_ok=True)
        self._engine.save_to_file(text, str(path))
        self._engine.runAndWait()
        if not path.exists():
            raise NoOutputDevice("the speech synthesizer wrote nothing: is espeak-ng installed?")
        return read_wav(path)


@functools.lru_cache(maxsize=8)
def _voice_for(voices: tuple[tuple[str, tuple[str, ...]], ...], language: str) -> str | None:
    """The synthesizer voice whose language is (or starts with) the players' language."""
    for wanted in (lambda code: code == language, lambda code: code.split("-")[0] == language):
        for voice_id, languages in voices:
            if any(wanted(str(code)) for code in languages):
                return voice_id
    return None


class SpeakerNarrator(Narrator):
    """Speaks through the default output device."""

    def __init__(self, language: str = "en", out: TextIO | None = None):
        super().__init__(out)
        try:
            import sounddevice as sd
            sd.check_output_settings(samplerate=SAMPLE_RATE, channels=1, dtype="int16")
        except OSError as error:
            raise NoOutputDevice(f"the PortAudio library is missing ({error}): "
                                 "install it (Debian/Ubuntu: apt install libportaudio2)") from None
        except Exception as error:  # sounddevice.PortAudioError and ValueError: no usable device
            raise NoOutputDevice(f"no speaker found ({error})") from None
        self._sd = sd
        self._voice = Voice(language)

    def say(self, text: str, at: float) -> float:
        super().say(text, at)
        pcm = self._voice.render(text)
        self._sd.wait()
        self._sd.play(np.frombuffer(pcm, dtype="<i2"), SAMPLE_RATE)
        return len(pcm) / BYTES_PER_SECOND

    def close(self) -> None:
        self._sd.wait()


class FileNarrator(Narrator):
    """Writes all narration into one WAV file, each sentence at its moment on the session's timeline."""

    def __init__(self, path: Path | str, language: str = "en", out: TextIO | None = None):
        super().__init__(out)
        self.path = Path(path)
        self._voice = Voice(language)
        self._track = np.zeros(0)
        self._busy_until = 0.0

    def say(self, text: str, at: float) -> float:
        super().say(text, at)
        sentence = from_pcm16(self._voice.render(text))
        begin = max(at, self._busy_until)
        offset = int(begin * SAMPLE_RATE)
        if len(self._track) < offset + len(sentence):
            self._track = np.concatenate([self._track, np.zeros(offset + len(sentence) - len(self._track))])
        self._track[offset:offset + len(sentence)] += sentence
        self._busy_until = begin + len(sentence) / SAMPLE_RATE
        return self._busy_until - at

    def close(self) -> None:
        write_wav(self.path, to_pcm16(self._track))
