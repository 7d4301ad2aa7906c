"""Shared fixtures: synthesized talkers saying game words, as 16 kHz PCM ready to feed a recognizer."""

from __future__ import annotations

import functools

import pytest

from gm import synth
from gm.audio import to_pcm16

ESPEAK_US = synth.Voice("espeak", "en-us", 160)
ESPEAK_GB = synth.Voice("espeak", "en-gb", 190)
PIPER = synth.Voice("piper", varied=False)
VOICES = {"piper": PIPER, "espeak-us": ESPEAK_US, "espeak-gb": ESPEAK_GB}

LEAD_IN = 0.6
"""Seconds of quiet before the words in a `said` clip."""
TAIL = 1.0
"""Seconds of quiet after the words."""
FLOOR_KIND = "pink"
FLOOR_RMS = 0.002
"""A room is never digitally silent: white noise at this level (about 40 dB under a talker) covers
every clip, the same in all of them so that clips can follow each other without a seam."""


@functools.lru_cache(maxsize=None)
def said(text: str, voice: str = "piper", lead_in: float = LEAD_IN, tail: float = TAIL) -> bytes:
    """`text` spoken by one of `VOICES`, between quiet stretches, as PCM (cached: synthesis is
    deterministic, so the same call always gives the same bytes)."""
    speech = synth.join(synth.silence(lead_in), synth.speak(text, VOICES[voice]), synth.silence(tail))
    return to_pcm16(speech + floor(len(speech), seed=len(text)))


@functools.lru_cache(maxsize=None)
def quiet(seconds: float, noisy: bool = True) -> bytes:
    """A room with nobody talking: its noise floor, or digital silence."""
    if not noisy:
        return to_pcm16(synth.silence(seconds))
    return to_pcm16(floor(int(seconds * synth.SAMPLE_RATE), seed=7))


def in_white_noise(speech, snr_db: float, before: float, after: float, seed: int = 0):
    """`speech` (float samples) between `before` and `after` seconds of quiet, all of it in white
    noise `snr_db` decibels under the speech itself."""
    said = synth.join(synth.silence(before), speech, synth.silence(after))
    return said + synth.at_snr(speech, synth.noise("white", (len(said) + 1) / synth.SAMPLE_RATE, seed)[:len(said)],
                               snr_db)


def floor(samples: int, seed: int):
    return FLOOR_RMS * synth.noise(FLOOR_KIND, (samples + 1) / synth.SAMPLE_RATE, seed)[:samples]


@pytest.fixture(scope="session")
def talker():
    """`said(text, voice)`: synthesized speech as PCM bytes."""
    return said


@pytest.fixture(scope="session")
def room():
    """`quiet(seconds, noisy=True)`: a stretch with nobody speaking, as PCM bytes."""
    return quiet


@pytest.fixture(scope="session")
def hiss():
    """`in_white_noise(speech, snr_db, before, after, seed=0)`: a talker in a room of steady hiss."""
    return in_white_noise
