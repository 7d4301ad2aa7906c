"""Pronunciations for words a table makes up ("pooka", "atrrr", a player's name), in CMU phones.

PocketSphinx's English model can only hear words it has phones for. Its dictionary covers ordinary
English; anything else is read aloud by espeak-ng's English rules (`espeak-ng -x`), and espeak-ng's
phoneme mnemonics are mapped onto the CMU phone set the model was trained with. Words the dictionary
knows keep the dictionary's pronunciation.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

log = logging.getLogger(__name__)

CMU_PHONES = frozenset(
    "AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z "
    "ZH".split()
)
"""The phone set of PocketSphinx's English model (stress marks dropped)."""

ESPEAK_TO_CMU: dict[str, tuple[str, ...]] = {
    phoneme: tuple(phones.split())
    for phoneme, phones in {
        # Vowels of espeak-ng's English voices.
        "@": "AH", "@2": "AH", "@5": "AH", "@-": "AH", "a#": "AH", "V": "AH",
        "@L": "AH L", "n-": "AH N", "m-": "AH M",
        "3": "ER", "3:": "ER",
        "a": "AE", "aa": "AE",
        "A": "AA", "A:": "AA", "0": "AA", "A#": "AA", "A~": "AA", "A@": "AA R",
        "O": "AO", "O:": "AO", "O2": "AO", "O@": "AO R", "o@": "AO R",
        "o": "OW", "oU": "OW", "oU#": "OW",
        "aI": "AY", "aI@": "AY AH", "aI3": "AY ER", "aU": "AW", "aU@": "AW AH",
        "e": "EH", "E": "EH", "e@": "EH R", "eI": "EY",
        "i": "IY", "i:": "IY", "i@": "IY AH", "i@3": "IH R",
        "I": "IH", "I2": "IH", "I#": "IH",
        "U": "UH", "U@": "UH R", "u:": "UW", "OI": "OY",
        # Consonants.
        "p": "P", "b": "B", "t": "T", "t#": "T", "t2": "T", "?": "T", "d": "D", "d#": "D",
        "k": "K", "x": "K", "g": "G", "f": "F", "v": "V", "T": "TH", "D": "DH",
        "s": "S", "z": "Z", "S": "SH", "Z": "ZH", "tS": "CH", "dZ": "JH", "h": "HH",
        "m": "M", "n": "N", "N": "NG", "l": "L", "l#": "L", "r": "R", "r-": "R",
        "w": "W", "j": "Y",
        # Marks without a sound of their own (palatalization, syllable breaks).
        ";": "", "-": "", "=": "",
    }.items()
}
"""espeak-ng's English phoneme mnemonics (as `espeak-ng -x --sep=_` prints them) in CMU phones."""

STRESS_MARKS = "',%="


class PronunciationError(Exception):
    """espeak-ng cannot be run; the message says what to install."""


@dataclass(frozen=True)
class Pronunciation:
    """One way to say a word, in CMU phones."""

    word: str
    phones: tuple[str, ...]
    source: str
    """"dictionary" (the model's own) or the espeak-ng voice it was derived with."""

    def __str__(self) -> str:
        return " ".join(self.phones)

    def __repr__(self) -> str:
        return f"Pronunciation({self.word!r}, {str(self)!r}, {self.source!r})"


@dataclass(frozen=True)
class Pronunciations:
    """Pronunciations for a list of words, and the words none could be made for."""

    entries: tuple[Pronunciation, ...]
    """Every pronunciation, a word's alternatives together, its preferred one first."""
    missing: tuple[str, ...] = ()

    def of(self, word: str) -> tuple[Pronunciation, ...]:
        return tuple(p for p in self.entries if p.word == word)


def espeak_to_cmu(phonemes: str) -> tuple[str, ...]:
    """CMU phones for one word's espeak-ng phonemes ("p_'u:_k_@" -> P UW K AH).

    Phonemes are separated by "_" or spaces; stress marks are dropped. A mnemonic that is not in
    the table is read without its modifiers ("t#" -> "t"); one that still means nothing is skipped.
    """
    phones: list[str] = []
    for token in phonemes.replace(" ", "_").split("_"):
        token = token.strip(STRESS_MARKS)
        if not token:
            continue
        mapped = ESPEAK_TO_CMU.get(token)
        if mapped is None:
            mapped = ESPEAK_TO_CMU.get(token.rstrip("#2:-;"))
        if mapped is None:
            log.debug("no CMU phone for espeak-ng phoneme %r", token)
            continue
        for phone in mapped:
            # espeak writes the r after an r-coloured vowel as a phoneme of its own ("3_r-").
            if phone == "R" and phones and phones[-1] in ("R", "ER"):
                continue
            phones.append(phone)
    return tuple(phones)


def espeak_phonemes(words: Sequence[str], voice: str = "en-us") -> dict[str, str]:
    """espeak-ng's phonemes for each word, from a single espeak-ng run (one clause per word)."""
    words = list(dict.fromkeys(words))
    if not words:
        return {}
    lines = _espeak_lines("".join(f"{word}.\n" for word in words), voice)
    if len(lines) != len(words):
        # Some word gave no clause (nothing to say) or several: read each word on its own.
        return {word: " ".join(_espeak_lines(word, voice)) for word in words}
    return dict(zip(words, lines))


def _espeak_lines(text: str, voice: str) -> list[str]:
    """The non-empty lines `espeak-ng -x` prints for `text`: one per clause."""
    if not shutil.which("espeak-ng"):
        raise PronunciationError("espeak-ng is not installed, so made-up words cannot be pronounced "
                                 "(Debian/Ubuntu: apt install espeak-ng)")
    try:
        result = subprocess.run(["espeak-ng", "-q", "-x", "--sep=_", "-v", voice],
                                input=text, capture_output=True, text=True, timeout=30, check=True)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
        raise PronunciationError(f"espeak-ng failed for voice {voice!r}: {error}") from None
    return [line.strip() for line in result.stdout.splitlines() if line.strip()]


def no_dictionary(word: str) -> str | None:
    return None


def pronounce(words: Iterable[str], dictionary: Callable[[str], str | None] = no_dictionary,
              voices: Sequence[str] = ("en-us",)) -> Pronunciations:
    """Pronunciations for `words`: the dictionary's where it has one, else espeak-ng's readings
    (one per voice, duplicates dropped). Words with no usable phones are reported missing."""
    words = list(dict.fromkeys(words))
    entries: list[Pronunciation] = []
    unknown = []
    for word in words:
        known = dictionary(word)
        if known:
            entries.append(Pronunciation(word, tuple(known.split()), "dictionary"))
        else:
            unknown.append(word)
    derived: dict[str, list[Pronunciation]] = {word: [] for word in unknown}
    for voice in voices if unknown else ():
        try:
            readings = espeak_phonemes(unknown, voice)
        except PronunciationError as error:
            log.warning("%s", error)
            continue
        for word, phonemes in readings.items():
            phones = espeak_to_cmu(phonemes)
            if phones and all(p.phones != phones for p in derived[word]):
                derived[word].append(Pronunciation(word, phones, voice))
    missing = []
    for word in unknown:
        entries.extend(derived[word])
        if not derived[word]:
            missing.append(word)
    order = {word: i for i, word in enumerate(words)}
    entries.sort(key=lambda p: order[p.word])
    return Pronunciations(tuple(entries), tuple(missing))
