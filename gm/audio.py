"""Audio in: 16 kHz mono 16-bit chunks from a WAV file or from the microphone.

Both sources yield the same `AudioChunk` values, so nothing downstream knows (or cares) whether a
session is live or replayed from a recording.
"""

from __future__ import annotations

import time
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from gm.speech import SAMPLE_RATE

BYTES_PER_SECOND = SAMPLE_RATE * 2
CHUNK_SECONDS = 0.1


class AudioError(Exception):
    """Audio cannot be read or recorded; the message says why and what to do."""


class NoInputDevice(AudioError):
    """There is no microphone to listen with."""


@dataclass(frozen=True)
class AudioChunk:
    """A stretch of 16 kHz mono signed 16-bit little-endian PCM."""

    start: float
    """Seconds since the start of the stream."""
    pcm: bytes

    @property
    def seconds(self) -> float:
        return len(self.pcm) / BYTES_PER_SECOND

    @property
    def end(self) -> float:
        return self.start + self.seconds

    def __repr__(self) -> str:
        return f"AudioChunk(start={self.start:.2f}, seconds={self.seconds:.2f})"


def decibels(pcm: bytes) -> float:
    """Mean power of 16-bit PCM in decibels over one step of the sample scale (silence: 0)."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    return float(10 * np.log10(np.mean(samples * samples) + 1.0)) if len(samples) else 0.0


def resample(samples: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """Band-limited resampling of float samples (FFT method: whole-file, no aliasing)."""
    if from_rate == to_rate or len(samples) == 0:
        return samples
    count = max(1, round(len(samples) * to_rate / from_rate))
    spectrum = np.fft.rfft(samples)
    keep = count // 2 + 1
    if keep <= len(spectrum):
        spectrum = spectrum[:keep]
    else:
        spectrum = np.concatenate([spectrum, np.zeros(keep - len(spectrum), dtype=spectrum.dtype)])
    return np.fft.irfft(spectrum, count) * (count / len(samples))


def to_pcm16(samples: np.ndarray) -> bytes:
    """Float samples in [-1, 1] to 16-bit little-endian PCM bytes (clipped): the exact inverse of
    `from_pcm16`, so audio read back is the audio written."""
    return np.clip(np.round(samples * 32768), -32768, 32767).astype("<i2").tobytes()


def from_pcm16(pcm: bytes) -> np.ndarray:
    """16-bit PCM bytes to float samples in [-1, 1]."""
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768.0


def read_wav(path: Path | str) -> bytes:
    """The whole file as 16 kHz mono 16-bit PCM, whatever its rate, width and channel count."""
    try:
        with wave.open(str(path), "rb") as wav:
            rate, width, channels = wav.getframerate(), wav.getsampwidth(), wav.getnchannels()
            raw = wav.readframes(wav.getnframes())
    except FileNotFoundError:
        raise AudioError(f"no such audio file: {path}") from None
    except (wave.Error, EOFError) as error:
        raise AudioError(f"{path} is not a PCM WAV file ({error})") from None
    if (rate, width, channels) == (SAMPLE_RATE, 2, 1):
        return raw[: len(raw) // 2 * 2]
    if width == 1:
        samples = (np.frombuffer(raw, dtype=np.uint8).astype(np.float64) - 128) / 128
    elif width == 2:
        samples = np.frombuffer(raw, dtype="<i2").astype(np.float64) / 32768
    elif width == 3:
        bytes3 = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        ints = (bytes3[:, 0].astype(np.int32) | bytes3[:, 1].astype(np.int32) << 8
                | bytes3[:, 2].astype(np.int32) << 16)
        samples = np.where(ints >= 1 << 23, ints - (1 << 24), ints).astype(np.float64) / (1 << 23)
    elif width == 4:
        samples = np.frombuffer(raw, dtype="<i4").astype(np.float64) / (1 << 31)
    else:
        raise AudioError(f"{path}: {8 * width}-bit samples are not supported")
    samples = samples[: len(samples) - len(samples) % channels].reshape(-1, channels).mean(axis=1)
    return to_pcm16(resample(samples, rate, SAMPLE_RATE))


def write_wav(path: Path | str, pcm: bytes, rate: int = SAMPLE_RATE) -> None:
    """Write mono 16-bit PCM to a WAV file."""
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)


def chunks_of(pcm: bytes, start: float = 0.0, chunk_seconds: float = CHUNK_SECONDS) -> Iterator[AudioChunk]:
    """Cut PCM into chunks with their stream times."""
    size = int(chunk_seconds * SAMPLE_RATE) * 2
    for offset in range(0, len(pcm), size):
        yield AudioChunk(start + offset / BYTES_PER_SECOND, pcm[offset:offset + size])


def wav_chunks(path: Path | str, realtime: bool = False,
               chunk_seconds: float = CHUNK_SECONDS) -> Iterator[AudioChunk]:
    """A WAV file as a stream: as fast as possible, or paced like a live microphone.

    The file is read now, so a missing or broken file is reported before anything else starts."""
    chunks = chunks_of(read_wav(path), 0.0, chunk_seconds)
    return _paced(chunks) if realtime else chunks


def _paced(chunks: Iterator[AudioChunk]) -> Iterator[AudioChunk]:
    began = time.monotonic()
    for chunk in chunks:
        time.sleep(max(0.0, began + chunk.end - time.monotonic()))
        yield chunk


@dataclass(frozen=True)
class Device:
    """A sound device as PortAudio lists it."""

    index: int
    name: str
    host_api: str
    inputs: int
    outputs: int
    default_input: bool = False
    default_output: bool = False

    def __str__(self) -> str:
        marks = ("<" if self.default_input else " ") + (">" if self.default_output else " ")
        return (f"{marks} {self.index:2d} {self.name}, {self.host_api} "
                f"({self.inputs} in, {self.outputs} out)")


def list_devices() -> list[Device]:
    """All sound devices PortAudio can see (an empty list on a machine with no sound card)."""
    sd = _sounddevice()
    default_in, default_out = sd.default.device
    apis = sd.query_hostapis()
    return [
        Device(i, d["name"], apis[d["hostapi"]]["name"], d["max_input_channels"],
               d["max_output_channels"], i == default_in, i == default_out)
        for i, d in enumerate(sd.query_devices())
    ]


def find_input_device(spec: str | int | None) -> Device:
    """An input device by index or by case-insensitive parts of "name, host API"."""
    inputs = [d for d in list_devices() if d.inputs > 0]
    if not inputs:
        raise NoInputDevice("no microphone found: connect one (see `gm devices`), "
                            "or referee a recording with --input FILE.wav")
    if spec is None or spec == "":
        return next((d for d in inputs if d.default_input), inputs[0])
    if isinstance(spec, int) or str(spec).isdigit():
        for device in inputs:
            if device.index == int(spec):
                return device
        raise NoInputDevice(f"no input device with index {spec}: see `gm devices`")
    parts = str(spec).lower().split()
    matches = [d for d in inputs if all(p in f"{d.name}, {d.host_api}".lower() for p in parts)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NoInputDevice(f"no input device matches '{spec}': see `gm devices`")
    names = "; ".join(f"{d.index}: {d.name}" for d in matches)
    raise NoInputDevice(f"'{spec}' matches several input devices ({names}): name one more exactly")


def microphone_chunks(device: str | int | None = None,
                      chunk_seconds: float = CHUNK_SECONDS) -> Iterator[AudioChunk]:
    """Live audio from a microphone, as 16 kHz mono chunks, until the caller stops iterating.

    The device is looked up now, so a missing microphone is reported before anything else starts."""
    return _recorded(find_input_device(device), int(chunk_seconds * SAMPLE_RATE))


def _recorded(chosen: Device, frames: int) -> Iterator[AudioChunk]:
    sd = _sounddevice()
    try:
        stream = sd.RawInputStream(samplerate=SAMPLE_RATE, blocksize=frames, device=chosen.index,
                                   channels=1, dtype="int16")
    except sd.PortAudioError as error:
        raise NoInputDevice(f"cannot open the microphone '{chosen.name}' ({error}): "
                            "check it is connected and free, or use --input FILE.wav") from None
    position = 0
    with stream:
        while True:
            data, _overflowed = stream.read(frames)
            pcm = bytes(data)
            yield AudioChunk(position / SAMPLE_RATE, pcm)
            position += len(pcm) // 2


def _sounddevice():
    """Import sounddevice lazily: it fails when the PortAudio library itself is missing."""
    try:
        import sounddevice
    except OSError as error:
        raise NoInputDevice(f"the PortAudio library is missing ({error}): "
                            "install it (Debian/Ubuntu: apt install libportaudio2)") from None
    return sounddevice
