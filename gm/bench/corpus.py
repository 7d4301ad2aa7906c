"""The benchmark corpus: what synthetic players say at the table, each sample labelled with what was meant.

Deterministic from a seed: the same seed gives the same samples and labels. Audio is made only when
asked for; the talker's speech (the slow part) is cached on disk under a hash of everything that
shapes it, and noise is mixed in on every load, so a second run costs seconds.

The words come from `corpus.toml` beside this file: Ooga Booga chants (right ones and the mistakes a
referee must catch), Exploding Kittens calls, player names, table chatter, and Korean calls for the
packaged Korean Vosk model.
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Union

import numpy as np

from gm.audio import from_pcm16, read_wav
from gm.speech import SAMPLE_RATE, normalize_words
from gm.synth import (NOISE_FLOOR_DB, PIPER, Voice, at_snr, babble, join, knocks, noise, silence, speak, unclipped,
                      write)

WORDS_FILE = Path(__file__).resolve().parent / "corpus.toml"
CACHE_VERSION = 2
"""Part of every cache key: bump it when the way speech is rendered changes."""

CLEAN = "clean"
"""A quiet room: only a white floor NOISE_FLOOR_DB under the speech (a microphone is never silent)."""
NOISES = ("white", "pink", "brown", "babble", "knocks")
SNRS = (24.0, 18.0, 12.0, 6.0)
"""Decibels of speech above the noise."""

MISTAKES = ("none", "skip", "swap", "wrong", "ha_on_last", "late")
"""How a chant goes wrong: not at all; a chain word left out; two neighbours swapped; a chain word
replaced by another card word; "ha" instead of "ooga booga" on a last card; a right chant after a long
silence (the talker hesitated)."""

PITCHES = (0.0, 0.0, -2.0, 2.0, -4.0, 3.0)
"""Semitones sox shifts a talker by (0 twice: half the talkers keep their own pitch). sox shifts the
whole spectrum, formants with the pitch: -4 is a vocal tract a quarter longer, beyond most grown men."""

LEAD_IN = 0.3
"""Seconds of room sound before a talker starts."""
LATE_LEAD_IN = (2.5, 4.0)
"""Range of seconds of room sound before a late talker starts."""
TAIL = 1.0
"""Seconds of room sound after the talker stops: longer than the speech gate's hangover (0.7 s),
so an utterance that is not closed early ends the way it ends at a table, not with the sample."""
LAST_WORD_DB = 30.0
"""The last word ends where the talker's sound has fallen this many decibels under its loudest 10 ms
for good: a synthesizer ends its audio on quiet of its own (espeak-ng on about 0.3 s of it)."""

SMALL = {"chant": 9, "call": 10, "chatter": 2, "korean": 5}
FULL = {"chant": 240, "call_repeats": 6, "chatter": 40, "korean_repeats": 4, "right_chants": 160}
"""`right_chants`: right chants beyond the 40 among the 240 chants of every kind, so that a right chant
called wrong (the target is at most 0.5%) is counted over 200: with 40, one was 2.5% and none said
nothing finer. They come last, so the samples before them stay as they were."""


@dataclass(frozen=True)
class Chant:
    """An Ooga Booga turn: the chain before it, who chants, and what (if anything) goes wrong."""

    chain: tuple[str, ...]
    """Card words already on the table, oldest first."""
    new_word: str
    """The word of the card the speaker puts down."""
    speaker: str
    named: str
    """The player named after "ha" (on a last card: the one "ha" would have named)."""
    last_card: bool
    mistake: str = "none"
    at: tuple[int, ...] = ()
    """Positions in `expected` the mistake touches (the word left out, the two swapped, ...)."""

    @property
    def expected(self) -> tuple[str, ...]:
        """The right chant: the whole chain, the new word, then "ooga booga" on a last card, else "ha" and a name."""
        ending = ("ooga", "booga") if self.last_card else ("ha", self.named)
        return (*self.chain, self.new_word, *ending)


@dataclass(frozen=True)
class Call:
    """An Exploding Kittens call ("see the future"), one aimed at a player ("targeted attack bo"),
    or a bare player name (call "")."""

    call: str
    player: str = ""


@dataclass(frozen=True)
class Chatter:
    """Table talk that is no part of the game: nothing should be heard as a game word."""

    lines: int
    """How many sentences the stretch holds."""


Label = Union[Chant, Call, Chatter]


@dataclass(frozen=True)
class Sample:
    """One utterance of the corpus: what is said, by whom, in what room, and what it means."""

    id: str
    kind: str
    """"chant", "call" or "chatter"."""
    text: str
    """The words spoken."""
    label: Label
    voice: Voice
    noise: str
    """CLEAN or one of NOISES."""
    snr: float | None
    """Decibels of speech above the noise; None when clean."""
    language: str = "en"
    lead_in: float = LEAD_IN
    """Seconds of room sound before the talker starts."""
    seed: int = 0
    """Seed of this sample's noise."""

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(normalize_words(self.text))

    def speech(self, cache: Path | None = None) -> np.ndarray:
        """The talker alone, `lead_in` seconds of silence before and TAIL after, as 16 kHz float samples."""
        folder = cache or cache_folder()
        key = hashlib.sha256(repr((CACHE_VERSION, self.language, self.text, self.voice, self.lead_in, TAIL))
                             .encode()).hexdigest()[:24]
        return _cached(folder / f"speech-{key}.wav", lambda: join(
            silence(self.lead_in), speak(self.text, self.voice), silence(TAIL)))

    def last_word_end(self, cache: Path | None = None) -> float:
        """Seconds from the start of `speech()` to the end of the last word (`LAST_WORD_DB`)."""
        speech = self.speech(cache)
        frame = SAMPLE_RATE // 100
        count = len(speech) // frame
        energy = np.mean(speech[: count * frame].reshape(count, frame) ** 2, axis=1)
        loud = np.flatnonzero(energy >= energy.max() * 10 ** (-LAST_WORD_DB / 10))
        return (loud[-1] + 1) * frame / SAMPLE_RATE if len(loud) else self.lead_in

    def audio(self, cache: Path | None = None) -> np.ndarray:
        """What the microphone hears: the speech with the room's noise at the sample's SNR, as 16 kHz floats."""
        speech = self.speech(cache)
        talking = speech[int(self.lead_in * SAMPLE_RATE): len(speech) - int(TAIL * SAMPLE_RATE)]
        seconds = len(speech) / SAMPLE_RATE
        if self.noise == CLEAN:
            background, snr = noise("white", seconds, self.seed), NOISE_FLOOR_DB
        else:
            background, snr = _background(self.noise, seconds, self.seed, cache or cache_folder()), self.snr
        return unclipped(speech + at_snr(talking, np.resize(background, len(speech)), snr))


@dataclass(frozen=True)
class Words:
    """One language's benchmark words, as `corpus.toml` lists them."""

    card_words: tuple[str, ...] = ()
    pass_word: str = ""
    closing: str = ""
    players: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    aimed_calls: tuple[str, ...] = ()
    chatter: tuple[str, ...] = ()


@functools.lru_cache(maxsize=None)
def load_words(language: str) -> Words:
    table = tomllib.loads(WORDS_FILE.read_text(encoding="utf-8")).get(language)
    if table is None:
        raise ValueError(f"{WORDS_FILE} has no [{language}] table")
    return Words(**{key: tuple(value) if isinstance(value, list) else value for key, value in table.items()})


def vocabulary(kind: str, language: str = "en") -> tuple[str, ...]:
    """The words a recognizer listens for while a table plays the game `kind` belongs to."""
    words = load_words(language)
    if kind == "chant":
        phrases = (*words.card_words, words.pass_word, words.closing, *words.players)
    elif kind == "call":
        phrases = (*words.calls, *words.aimed_calls, *words.players)
    else:
        raise ValueError(f"no vocabulary for {kind!r}: chatter is heard with a game's vocabulary")
    return tuple(dict.fromkeys(w for phrase in phrases for w in normalize_words(phrase)))


def build_corpus(seed: int = 0, small: bool = False) -> tuple[Sample, ...]:
    """Every sample of the corpus, without audio: labels, voices and rooms chosen from `seed`."""
    rng = random.Random(seed)
    en, ko = load_words("en"), load_words("ko")
    samples: list[Sample] = []

    def add(kind: str, text: str, label: Label, language: str = "en", lead_in: float = LEAD_IN) -> None:
        room, snr = _room(rng)
        samples.append(Sample(f"{kind}-{language}-{len(samples):04d}", kind, text, label,
                              _voice(rng, language), room, snr, language, lead_in, rng.randrange(2 ** 31)))

    for index in range(SMALL["chant"] if small else FULL["chant"]):
        chant, spoken = _chant(rng, en, MISTAKES[index % len(MISTAKES)])
        lead_in = round(rng.uniform(*LATE_LEAD_IN), 2) if chant.mistake == "late" else LEAD_IN
        add("chant", " ".join(spoken), chant, lead_in=lead_in)

    plain = [Call(c) for c in en.calls] + [Call("", p) for p in en.players]
    repeats = 1 if small else FULL["call_repeats"]
    calls = [c for c in plain for _ in range(repeats)]
    calls += [Call(c, rng.choice(en.players)) for c in en.aimed_calls for _ in range(repeats)]
    for call in rng.sample(calls, SMALL["call"]) if small else calls:
        add("call", " ".join(w for w in (call.call, call.player) if w), call)

    for _ in range(SMALL["chatter"] if small else FULL["chatter"]):
        lines = rng.sample(en.chatter, rng.randint(1, 2) if small else rng.randint(2, 4))
        add("chatter", ". ".join(lines), Chatter(len(lines)))

    korean = rng.sample(ko.calls, SMALL["korean"]) if small else list(ko.calls) * FULL["korean_repeats"]
    for text in korean:
        add("call", text, Call(text), language="ko")

    for _ in range(0 if small else FULL["right_chants"]):
        chant, spoken = _chant(rng, en, "none")
        add("chant", " ".join(spoken), chant)
    return tuple(samples)


def _chant(rng: random.Random, words: Words, mistake: str) -> tuple[Chant, tuple[str, ...]]:
    """A chant with `mistake`, and the words actually spoken."""
    while True:
        chain = tuple(rng.choice(words.card_words) for _ in range(rng.randint(1, 7)))
        recited = (*chain, rng.choice(words.card_words))
        neighbours = [i for i in range(len(chain)) if recited[i] != recited[i + 1]]
        if mistake != "swap" or neighbours:
            break
    speaker, named = rng.sample(words.players, 2)
    last_card = mistake == "ha_on_last" or rng.random() < 0.25
    chant = Chant(chain, recited[-1], speaker, named, last_card)
    expected = list(chant.expected)
    if mistake == "skip":
        at = (rng.randrange(len(chain)),)
        spoken = expected[: at[0]] + expected[at[0] + 1:]
    elif mistake == "swap":
        first = rng.choice(neighbours)
        at = (first, first + 1)
        spoken = expected.copy()
        spoken[first], spoken[first + 1] = expected[first + 1], expected[first]
    elif mistake == "wrong":
        at = (rng.randrange(len(chain)),)
        spoken = expected.copy()
        spoken[at[0]] = rng.choice([w for w in words.card_words if w != chain[at[0]]])
    elif mistake == "ha_on_last":
        at = (len(recited),)
        spoken = [*recited, words.pass_word, named]
    else:
        at, spoken = (), expected
    return Chant(chain, recited[-1], speaker, named, last_card, mistake, at), tuple(spoken)


def _voice(rng: random.Random, language: str) -> Voice:
    """A talker: Piper at several speaking rates, or an espeak-ng voice at several speeds, pitches and
    word gaps; then sox pitch, tempo and room reverb on top."""
    pitch = rng.choice(PITCHES)
    tempo = rng.choice((1.0, 1.0, 0.9, 1.1))
    reverb = rng.choice((0, 0, 25, 50))
    if language == "en" and rng.random() < 0.5:
        return Voice("piper", length_scale=rng.choice((0.85, 1.0, 1.15, 1.3)), pitch=pitch, tempo=tempo,
                     reverb=reverb)
    name = rng.choice(("en-us", "en-gb", "en-us+m7", "en-us+f4", "en+m3")) if language == "en" else language
    return Voice("espeak", name, speed=rng.choice((140, 150, 160, 175, 190)), word_gap=rng.choice((0, 0, 2, 5)),
                 pitch=pitch, tempo=tempo, reverb=reverb)


def talker_groups() -> list[tuple[str, Callable[[Voice], bool]]]:
    """Ways to split the talkers for a report, each a name and a test of a sample's voice: by
    synthesizer, by each sox pitch shift, by the other sox effects."""
    groups = [(engine, lambda v, e=engine: v.engine == e) for engine in ("piper", "espeak")]
    groups.append(("no sox effects", lambda v: not (v.pitch or v.tempo != 1.0 or v.reverb)))
    groups += [(f"pitch shift {shift:+g}" if shift else "no pitch shift", lambda v, p=shift: v.pitch == p)
               for shift in sorted(set(PITCHES))]
    groups.append(("tempo changed", lambda v: v.tempo != 1.0))
    groups.append(("reverb", lambda v: bool(v.reverb)))
    return groups


def _room(rng: random.Random) -> tuple[str, float | None]:
    if rng.random() < 0.25:
        return CLEAN, None
    return rng.choice(NOISES), rng.choice(SNRS)


BABBLE_SECONDS = 30.0
BABBLE_VOICES = (PIPER, Voice("piper", length_scale=1.2, pitch=-3.0), Voice("piper", length_scale=0.9, pitch=3.0),
                 Voice("espeak", "en-us+m7", speed=170), Voice("espeak", "en-gb", speed=180),
                 Voice("espeak", "en-us+f4", speed=160))
"""The six other people chatting in the babble."""


def _background(kind: str, seconds: float, seed: int, cache: Path) -> np.ndarray:
    if kind in ("white", "pink", "brown"):
        return noise(kind, seconds, seed)
    if kind == "knocks":
        return knocks(seconds, seed)
    if kind == "babble":
        bed = _babble_bed(cache)
        offset = np.random.default_rng(seed).integers(len(bed))
        return np.resize(np.roll(bed, -offset), max(1, int(seconds * SAMPLE_RATE)))
    raise ValueError(f"unknown noise {kind!r}")


@functools.lru_cache(maxsize=2)
def _babble_bed(cache: Path) -> np.ndarray:
    """Thirty seconds of six people talking at once (built once, then read from the cache)."""
    chatter = load_words("en").chatter

    def build() -> np.ndarray:
        talkers = [speak(". ".join(chatter[i::len(BABBLE_VOICES)]), voice, seed=i)
                   for i, voice in enumerate(BABBLE_VOICES)]
        return babble(talkers, BABBLE_SECONDS, seed=0) * 0.1

    key = hashlib.sha256(repr((CACHE_VERSION, chatter, BABBLE_VOICES)).encode()).hexdigest()[:24]
    return _cached(cache / f"babble-{key}.wav", build)


def cache_folder() -> Path:
    """Where rendered speech is kept: $GM_BENCH_CACHE, else gm/bench in the user's cache folder."""
    if os.environ.get("GM_BENCH_CACHE"):
        return Path(os.environ["GM_BENCH_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gm" / "bench"


def _cached(path: Path, render) -> np.ndarray:
    """The audio in `path`, rendering and saving it first if it is not there (written whole, then renamed,
    so a run that is stopped or a parallel run never leaves half a file)."""
    if path.exists():
        return from_pcm16(read_wav(path))
    samples = render()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.wav")
    write(partial, samples)
    partial.replace(path)
    return from_pcm16(read_wav(path))
