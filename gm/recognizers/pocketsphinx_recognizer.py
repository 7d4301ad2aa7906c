"""English speech recognition with PocketSphinx, restricted to the words a game allows right now.

The acoustic model and dictionary ship inside the pocketsphinx wheel, so English needs no download.
The game's grammar (gm.speech.Grammar: weighted phrases plus a word loop) becomes JSGF; words the
dictionary lacks get pronunciations from `gm.pronounce`. Each reading says which kind of phrase
it is. Utterance boundaries come from our own endpointing
(`SpeechGate` over PocketSphinx's voice-activity classifier, opening and closing utterances only on
voices louder than the room: `RoomLevel`), with a hangover long enough that a talker's pause
between two words of a chain does not cut the chain in two.

Words and times come from the decoder's own best path, not from a word lattice: for grammars,
PocketSphinx's lattice often has no path to the end (no result at all, whatever was said: "wrong"
against "right | wrong" never came out) and building it cost more than decoding (its maintainers say
as much, cmusphinx/pocketsphinx#318). Without the lattice there are no posteriors and no n-best list,
so a word's confidence comes from how well its own frames fit the model (`confidence_of`).

An utterance is read (words with times and confidences) once the talker has been quiet for
`GateSettings.tail`, while the gate waits out its hangover: the live decoding has heard just the
audio a reading keeps then, so it is ended and, for an utterance as long as a chant, its own best
path is the reading, at no decoding cost. A shorter one is decoded again as a whole
(`LIVE_READING`); so is one the talker went on after a reading (the live decoding then holds only
its end) and one the gate closes before that quiet (the live decoding has heard room sound it
would take for words). Rival readings (`Utterance.rival`) are decoded only when a judge asks for
them: a sure verdict costs no decode after the gate closes, not one per kind of phrase.
"""

from __future__ import annotations

import collections
import logging
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from gm.audio import BYTES_PER_SECOND, decibels
from gm.pronounce import pronounce
from gm.recognizers.jsgf import to_jsgf
from gm.speech import (FREE, SAMPLE_RATE, Grammar, HeardWord, Hypothesis, Recognizer, RecognizerError,
                       Utterance, Vocabulary)

log = logging.getLogger(__name__)

FRAME_RATE = 100
"""Decoder frames per second (the model's -frate)."""
HISS = "_hiss_"
"""A dictionary entry for steady room sound (a fan, white or pink noise) at the edges of an utterance:
it sounds like a fricative, and with no place of its own in the grammar the decoder made it the f of
"favor" or "five" (calls in white noise at 12 dB came out as "favor" more often than as themselves)."""
NON_WORDS = frozenset(("<s>", "</s>", "<sil>", "(NULL)", HISS))
"""Decoder tokens that are not words; fillers ("[NOISE]", "++UM++") are recognized by their brackets."""
ALTERNATE_MARK = re.compile(r"\(\d+\)$")
TOKEN = re.compile(r"^[\w']+$")
"""What a JSGF grammar takes as a bare word."""
KEPT_SEARCHES = 12
"""Grammars kept compiled in the decoder (the word loops and the last few turns' grammars, each with
a search per kind of phrase): a chant grammar's searches take tens of megabytes."""
RIVAL_BEAM = 1e-80
"""Beam of the searches that read the audio as one kind of phrase only: with the default beams, a
chant forced through the right phrase when a word was skipped lost every path and gave no reading."""
LIVE_READING = 2.0
"""Seconds of audio (room sound before and after the voice included: about 1.1 s of speech) from
which an utterance's reading is its live decoding's own best path, not a second decode. The live
decoding normalizes its features with the running mean from before the utterance, a second decode
with that mean moved by the utterance itself, which a short call needs: heard as the first words
of a game, 93 calls of 174 were found with a second decode against 84 from the live decoding, 107
against 103 after three other calls. Chants are longer: judged from the live decoding, as many came
out right and verdicts came 0.14 s sooner (BENCHMARKS.md)."""
FIT_UNSURE = -0.0081
FIT_SURE = -0.0035
"""A word's acoustic score per frame (natural log, relative to the best-scoring model state of each
frame, as the decoder keeps it) at which its confidence is 0 and 1, linear between. Measured on the
benchmark corpus: half of the rightly heard words score above -0.0044 (confidence 0.8) against one
in six wrongly heard ones; as a test of right against wrong it does as well as the lattice
posteriors did (area under the curve 0.75 against 0.71)."""


@dataclass(frozen=True)
class GateSettings:
    """How speech is told from silence, in seconds of audio."""

    window: float = 0.3
    """Speech starts when `start_ratio` of the last `window` seconds were voiced."""
    start_ratio: float = 0.6
    hangover: float = 0.7
    """Speech ends after this long with (almost) no voiced frames: longer than a pause in a chain."""
    end_ratio: float = 0.1
    skip_pause: float = 0.15
    """After an utterance is closed early, the rest of that talker's speech is skipped until a pause
    this long: shorter than the hangover, so a next talker who starts right away is heard."""
    preroll: float = 0.25
    """Audio kept from before the detected start, so the first consonant is not lost."""
    tail: float = 0.35
    """Audio kept after the last voiced frame when the utterance is read: the rest of the hangover
    is room sound, which the decoder would hear as words (and pay for). The utterance is read as
    soon as its tail has been heard, while the hangover runs: its closing then costs no decoding,
    and a reading that completes a call or chant may close it before the hangover ends. Each time
    the talker goes on after such a reading, the next one waits for twice as much quiet: a talker
    who pauses between words costs a few readings, not one per pause."""
    vad_mode: int = 3
    """PocketSphinx VAD aggressiveness, 0 (loose) to 3 (strict)."""
    over_room: float = 6.0
    """Decibels by which speech must be louder than the room (`RoomLevel`): than its quiet moments to
    count as voiced, than its usual level to stand out."""
    standing_out: float = 0.09
    """Seconds of the start `window` that must stand out for an utterance to begin: chatter behind
    the table stands out for a frame now and then, a player's call for longer."""
    room_window: float = 3.0
    """Seconds of the latest audio heard while nobody spoke that the room's level is taken from."""
    longest: float = 20.0
    """Seconds after which an utterance is closed even if the talking goes on (a television, a
    table that never pauses): the game master answers what it has instead of listening forever.
    Longer than any chant a table will say (a chain of thirty words)."""
    talk: float = 0.8
    """Seconds of voiced audio in one stretch that no word of the reading covers: speech the engine
    could not name (table talk squeezed into a game word and silence), counted in
    `Hypothesis.unknown`."""


@dataclass(frozen=True)
class SearchSettings:
    """How the decoder weighs what it hears (its beams stay PocketSphinx's defaults: narrower ones
    lost short words such as "skip")."""

    word_insertion_penalty: float = 1e-3
    """Lower means fewer extra short words ("the", "ha") in the result (-wip)."""
    remove_noise: bool = True
    """Subtract the steady background first: helps in a room with a noise floor, costs a little on
    studio-clean speech."""
    hiss: tuple[str, ...] = ("F", "S", "SH")
    """Pronunciations of `HISS`, the room sound a short phrase may stand between (`Grammar.room_sound`);
    empty: none."""


@dataclass(frozen=True)
class _Reading:
    """An utterance read as a whole: the best reading (None: nothing heard) and the audio it was read
    from (rival readings read the same audio)."""

    best: Hypothesis | None
    audio: bytes


@dataclass(frozen=True)
class _Listening:
    """What the decoder listens for: the grammar's search, and a search per kind of phrase in it
    (for the rival readings: the best the audio can be read as each other kind)."""

    search: str
    grammar: Grammar
    rivals: tuple[tuple[str, str], ...] = ()
    """(kind, search name) pairs."""

    def searches(self) -> set[str]:
        return {self.search, *(name for _, name in self.rivals)}


class SpeechGate:
    """Frame flags in, "start"/"end" decisions out: a pure state machine. Speech starts when the speech
    detector hears it and some of it stands out from the room (a short call in steady noise stands
    out for only a few frames; chatter behind the table for one now and then); it ends when no voice
    has been louder than the room for the hangover (the chatter goes on, but nobody is talking to
    the game master)."""

    def __init__(self, frame_seconds: float, settings: GateSettings = GateSettings()):
        self.settings = settings
        self._start_frames = max(1, round(settings.window / frame_seconds))
        self._end_frames = max(1, round(settings.hangover / frame_seconds))
        self._skip_frames = max(1, round(settings.skip_pause / frame_seconds))
        self._standing_frames = max(1, round(settings.standing_out / frame_seconds))
        self._speech: collections.deque[bool] = collections.deque(maxlen=self._start_frames)
        self._standing_out: collections.deque[bool] = collections.deque(maxlen=self._start_frames)
        self._voiced: collections.deque[bool] = collections.deque(maxlen=self._end_frames)
        self.in_speech = False
        self._skipping = False

    def push(self, speech: bool, voiced: bool | None = None, stands_out: bool | None = None) -> str | None:
        """Take one frame's flags (the speech detector's; speech louder than the room's quiet; speech
        louder than the room usually is: `RoomLevel`; both by default the first); say "start" or
        "end" when the state changes."""
        self._speech.append(speech)
        self._voiced.append(speech if voiced is None else voiced)
        self._standing_out.append(speech if stands_out is None else stands_out)
        if not self.in_speech:
            window = self._speech
            if (len(window) == self._start_frames and sum(window) >= self.settings.start_ratio * len(window)
                    and sum(self._standing_out) >= self._standing_frames):
                self.in_speech = True
                self._voiced.clear()  # the quiet before the start does not count towards its end
                return "start"
        else:
            size = self._skip_frames if self._skipping else self._end_frames
            window = list(self._voiced)[-size:]
            if len(window) == size and sum(window) <= self.settings.end_ratio * len(window):
                self.in_speech = self._skipping = False
                return "end"
        return None

    def skip(self) -> None:
        """Treat the speech going on as already heard, up to its next short pause."""
        self.in_speech = self._skipping = True

    def reset(self) -> None:
        """Forget what was heard: the next voiced stretch starts a new utterance."""
        self._speech.clear()
        self._standing_out.clear()
        self._voiced.clear()
        self.in_speech = self._skipping = False


class RoomLevel:
    """How loud the room is while nobody speaks to the game master. Talk behind the table is speech
    to the speech detector, but quieter than a player at it: without this, a room with chatter in it
    never falls quiet, and a call is answered only when the chatter pauses (or after
    `GateSettings.longest`). Learned only between utterances, so a long chant does not raise it."""

    QUIET, USUAL = 20, 50
    """Percentiles of the frame levels heard: the room at its quiet moments and as it usually is (a
    knock on the table now and then changes neither)."""

    def __init__(self, frame_seconds: float, settings: GateSettings = GateSettings()):
        self._settings = settings
        self._levels: collections.deque[float] = collections.deque(
            maxlen=max(1, round(settings.room_window / frame_seconds)))
        self.quiet: float | None = None
        """None until the first frame of room sound: every frame stands out until then."""
        self.usual: float | None = None

    def learn(self, frame_level: float) -> None:
        """A frame (`gm.audio.decibels`) heard while nobody spoke: room sound."""
        self._levels.append(frame_level)
        self.quiet, self.usual = map(float, np.percentile(self._levels, [self.QUIET, self.USUAL]))

    def voiced(self, frame_level: float) -> bool:
        """Louder than the room at its quiet moments: a voice goes on."""
        return self.quiet is None or frame_level >= self.quiet + self._settings.over_room

    def stands_out(self, frame_level: float) -> bool:
        """Louder than the room as it usually is: someone may begin to talk to the game master."""
        return self.usual is None or frame_level >= self.usual + self._settings.over_room


class PocketSphinxRecognizer(Recognizer):
    """PocketSphinx with the English model from its wheel, a word-loop grammar and own endpointing."""

    name = "pocketsphinx"

    def __init__(self, gate: GateSettings = GateSettings(), voices: tuple[str, ...] = ("en-us",),
                 search: SearchSettings = SearchSettings()):
        """`voices`: espeak-ng voices whose readings become pronunciations of made-up words."""
        try:
            import pocketsphinx
        except ImportError as error:
            raise RecognizerError(f"pocketsphinx is not installed ({error}): pip install pocketsphinx") from None
        try:
            config = pocketsphinx.Config(lm=None, loglevel="FATAL", samprate=SAMPLE_RATE,
                                         wip=search.word_insertion_penalty, bestpath=False)
            self._decoder = pocketsphinx.Decoder(config)
            # The model's feat.params would override this if it were passed to the constructor.
            self._decoder.config["remove_noise"] = search.remove_noise
            self._decoder.reinit_feat()
            for n, phones in enumerate(search.hiss):
                self._decoder.add_word(HISS if n == 0 else f"{HISS}({n + 1})", phones, n == len(search.hiss) - 1)
            self._hiss = bool(search.hiss)
            self._fresh_vad = lambda: pocketsphinx.Vad(gate.vad_mode, SAMPLE_RATE)
            self._vad = self._fresh_vad()
            self._decoder.add_allphone_file(FREE, str(Path(pocketsphinx.get_model_path()) / "en-us" / "en-us-phone.lm.bin"))
        except (RuntimeError, ValueError) as error:
            raise RecognizerError(f"cannot load the PocketSphinx English model: {error}") from None
        self._voices = voices
        self._frame_bytes = self._vad.frame_bytes
        self._frame_seconds = frame_seconds = self._frame_bytes / BYTES_PER_SECOND
        self._gate = SpeechGate(frame_seconds, gate)
        self._room = RoomLevel(frame_seconds, gate)
        self._talk = SpeechGate(frame_seconds, gate)
        """The speech detector's voices while no utterance is open, however quiet beside the room."""
        self._talk_since = 0.0
        self._preroll: collections.deque[tuple[bytes, bool]] = collections.deque(
            maxlen=max(1, round((gate.window + gate.preroll) / frame_seconds)))
        self._tail_bytes = round(gate.tail * SAMPLE_RATE) * 2
        self._longest_bytes = round(gate.longest * SAMPLE_RATE) * 2
        self._searches: dict[str, str] = {}
        """Decoder search names by beam and JSGF text."""
        self._made = 0
        self._listening: _Listening | None = None
        self._pending: _Listening | None = None
        self._pending_set = False
        self._buffer = b""
        self._clock = 0.0
        """Stream time, in seconds, of the first byte in `_buffer`."""
        self._utterance_start: float | None = None
        self._partial: tuple[str, ...] = ()
        self._audio = bytearray()
        """The current utterance's audio, kept for rival readings and for decoding it again."""
        self._voiced_bytes = 0
        """How much of `_audio` runs up to the end of its last voiced frame."""
        self._voiced: list[bool] = []
        """The speech detector's flag for each frame of the current utterance, preroll included: how
        much the talker went on talking, and the talk no word covers, are measured on it, however
        quiet (the speech gate alone asks whether a voice is louder than the room)."""
        self._heard = 0
        """How many utterances have closed: a rival reading is made only for the last one."""
        self._ahead: _Reading | None = None
        """The utterance read ahead, once its `tail` had been heard (the live decoding stops then):
        None while the live decoding goes on."""
        self._quiet_to_read = self._tail_bytes
        """How much quiet reads this utterance ahead (it doubles each time the talker goes on)."""
        self._read_before: tuple[str, ...] = ()
        """The words of the utterance's last reading ahead, when the talker went on after it: the
        running guess of what they say next follows them."""

    # Vocabulary -----------------------------------------------------------------------------

    def set_vocabulary(self, words: Iterable[str]) -> Vocabulary:
        """Listen only for `words`, in any order, from the next utterance on."""
        return self.set_grammar(Grammar.word_loop(words))

    def set_grammar(self, grammar: Grammar) -> Vocabulary:
        """Listen for `grammar`'s phrases from the next utterance on. Words with no pronunciation
        and words a grammar cannot hold are reported missing (phrases needing them drop out); a
        grammar seen before is reused at no cost."""
        words = grammar.words()
        usable = [w for w in words if TOKEN.match(w)]
        known = self._add_pronunciations(usable)
        missing = tuple(w for w in words if w not in known)
        heard = tuple(w for w in words if w in known)
        edges = HISS if grammar.room_sound and self._hiss else ""
        text = to_jsgf(grammar, known, edges)
        listening = None
        if text is not None:
            # A rival reading for each kind of phrase (free speech in the loop is already the
            # best reading's to take, and a reading of it as a rival would decode for nothing).
            kinds = grammar.kinds()
            kinds = [kind for kind in kinds if kind != "loop"] if len(kinds) > 1 else []
            texts = [(kind, to_jsgf(grammar.only(kind), known, edges)) for kind in kinds]
            try:
                listening = _Listening(self._compiled(text), grammar,
                                       tuple((kind, self._compiled(t, RIVAL_BEAM)) for kind, t in texts if t is not None))
            except (RuntimeError, ValueError) as error:
                log.warning("PocketSphinx refused the grammar %s: %s", text, error)
                return Vocabulary((), words)
        if self._utterance_start is None:
            self._activate(listening)
        else:
            self._pending, self._pending_set = listening, True
        return Vocabulary(heard, missing)

    def _compiled(self, text: str, beam: float | None = None) -> str:
        """The decoder's search for a JSGF text, made if new (a grammar seen before costs nothing).
        `beam`: how far below the best path a path may fall and go on (the decoder's default if
        None); a search takes its beams from the configuration when it is made."""
        key = f"{beam}\n{text}"
        if key not in self._searches:
            self._forget_old_searches()
            self._made += 1
            name = f"grammar{self._made}"
            config = self._decoder.config
            default = config["beam"], config["pbeam"], config["wbeam"]
            if beam is not None:
                config["beam"] = config["pbeam"] = config["wbeam"] = beam
            try:
                self._decoder.add_jsgf_string(name, text)
            finally:
                config["beam"], config["pbeam"], config["wbeam"] = default
            self._searches[key] = name
        return self._searches[key]

    def _forget_old_searches(self) -> None:
        """Keep the decoder small: a game makes a new grammar every turn, and each search kept costs
        memory. The oldest searches go, never one in use or about to be."""
        in_use = set().union(*(x.searches() for x in (self._listening, self._pending) if x is not None))
        for text, name in list(self._searches.items())[: max(0, len(self._searches) - KEPT_SEARCHES + 1)]:
            if name not in in_use:
                self._decoder.remove_search(name)
                del self._searches[text]

    def _add_pronunciations(self, words: list[str]) -> set[str]:
        """Put made-up words into the decoder's dictionary; return the words it now knows."""
        unknown = [w for w in words if self._decoder.lookup_word(w) is None]
        made = pronounce(unknown, voices=self._voices)
        entries = [(word if i == 0 else f"{word}({i + 1})", str(p))
                   for word in unknown for i, p in enumerate(made.of(word))]
        for n, (entry, phones) in enumerate(entries):
            try:
                # Rebuilding the decoder's word tables once, after the last word, is enough.
                self._decoder.add_word(entry, phones, n == len(entries) - 1)
            except RuntimeError as error:
                log.warning("PocketSphinx refused %s /%s/: %s", entry, phones, error)
        return {w for w in words if self._decoder.lookup_word(w) is not None}

    def _activate(self, listening: _Listening | None) -> None:
        self._listening = listening
        if listening is not None:
            self._decoder.activate_search(listening.search)

    # Listening ------------------------------------------------------------------------------

    def feed(self, pcm: bytes, start: float) -> Iterator[Utterance]:
        """Take consecutive audio (16 kHz mono s16, any length) beginning `start` seconds into the
        stream. Yields a partial utterance whenever the running guess changes and a final one when
        the talker stops; silence and noise yield nothing."""
        if abs(start - (self._clock + len(self._buffer) / BYTES_PER_SECOND)) > 0.01:
            self._buffer = b""  # a jump in the stream (another recording): keep time with the caller
            self._clock = start
            # The VAD learns the room's noise as it goes; another recording is another room.
            self._vad = self._fresh_vad()
            self._room = RoomLevel(self._frame_seconds, self._gate.settings)
            self._talk.reset()
        self._buffer += pcm
        size = self._frame_bytes
        while len(self._buffer) >= size:
            frame, self._buffer = self._buffer[:size], self._buffer[size:]
            self._clock += size / BYTES_PER_SECOND
            level, speech = decibels(frame), self._vad.is_speech(frame)
            if not self._gate.in_speech:
                self._room.learn(level)
            change = self._gate.push(speech, speech and self._room.voiced(level),
                                     speech and self._room.stands_out(level))
            if self._gate.in_speech:
                self._talk.reset()  # the utterance's talker, or the rest of their speech
            elif self._talk.push(speech) == "start":
                self._talk_since = round(self._clock - self._gate.settings.window, 3)
            if self._utterance_start is not None:
                if speech and self._ahead is not None:
                    self._listen_again()
                self._decode(frame)
                self._voiced.append(speech)
                if speech:
                    self._voiced_bytes = len(self._audio)
                elif self._ahead is None and len(self._audio) >= self._voiced_bytes + self._quiet_to_read:
                    self._ahead = self._read(self._utterance_start)
                if change == "end" or len(self._audio) >= self._longest_bytes:
                    final = self.end_utterance()
                    if final is not None:
                        yield final
            else:
                self._preroll.append((frame, speech))
                if change == "start":
                    self._begin()
        if self._utterance_start is not None:
            partial = self._partial_result()
            if partial is not None:
                yield partial

    def _begin(self) -> None:
        """Open an utterance with the audio kept from just before speech was detected."""
        if self._pending_set:
            self._activate(self._pending)
            self._pending, self._pending_set = None, False
        kept = b"".join(frame for frame, _ in self._preroll)
        self._voiced = [speech for _, speech in self._preroll]
        self._preroll.clear()
        self._utterance_start = self._clock - len(kept) / BYTES_PER_SECOND
        self._partial = ()
        self._audio = bytearray()
        self._ahead, self._quiet_to_read, self._read_before = None, self._tail_bytes, ()
        if self._listening is not None:
            self._decoder.start_utt()
            self._decode(kept)
        self._voiced_bytes = len(self._audio)

    def _decode(self, pcm: bytes) -> None:
        if self._listening is not None and pcm:
            self._audio += pcm
            if self._ahead is None:
                self._decoder.process_raw(pcm, False, False)

    def _listen_again(self) -> None:
        """The talker goes on after the utterance was read ahead: decode live again from here, the
        running guess being the reading's words and then what the live decoding hears (the whole
        utterance is decoded again when the talker stops)."""
        self._read_before = self._ahead.best.texts if self._ahead.best is not None else ()
        self._ahead, self._quiet_to_read = None, self._quiet_to_read * 2
        self._decoder.start_utt()

    def _read(self, start: float) -> _Reading:
        """End the live decoding and read the utterance up to the `tail` after its last voiced
        frame, for words with times and confidences (the running guess has text only): from the
        live decoding's own best path when it heard just that audio, the whole utterance and no
        more, and the utterance is `LIVE_READING` long; else decoded again, the whole of it at once.
        A reading that holds nothing but noise gives no words; the running guess then stands, with
        no confidence to show for it."""
        running = self._guess(start, self._clock)
        self._decoder.end_utt()
        audio = bytes(self._audio[:self._voiced_bytes + self._tail_bytes])
        heard_just_that = not self._read_before and len(self._audio) - len(audio) < self._frame_bytes
        if heard_just_that and len(audio) >= LIVE_READING * BYTES_PER_SECOND:
            return _Reading(self._best(start) or running, audio)
        return _Reading(self._reread(audio, self._listening, self._listening.search, start) or running, audio)

    def end_utterance(self, skip_rest: bool = False) -> Utterance | None:
        """Close the current utterance now (for instance when a partial already holds all that is
        needed) and return its final result; None if nobody was speaking or nothing was heard.
        With `skip_rest`, the rest of the talker's speech (the fading end of the last word) opens
        no new utterance: the next one starts after a short pause (`GateSettings.skip_pause`)."""
        if not skip_rest:
            self._gate.reset()
        if self._utterance_start is None:
            return None
        if skip_rest:
            self._gate.skip()
        return self._finish()

    @property
    def hearing(self) -> bool:
        return self._utterance_start is not None

    @property
    def talking_since(self) -> float | None:
        return self._talk_since if self._talk.in_speech else None

    def voicing(self, seconds: float) -> float:
        recent = self._voiced[-max(1, round(seconds / self._frame_seconds)):]
        return sum(recent) / len(recent) if self._utterance_start is not None and recent else 0.0

    def _finish(self) -> Utterance | None:
        start, self._utterance_start = self._utterance_start, None
        self._partial = ()
        if self._listening is None:
            return None
        reading, self._ahead = self._ahead or self._read(start), None
        self._heard += 1
        best, audio, listening = reading.best, reading.audio, self._listening
        if best is None:
            return None
        talk = unnamed_speech(best.words, start, self._voiced, self._frame_seconds)
        best = replace(best, unknown=sum(seconds >= self._gate.settings.talk for seconds in talk))
        return Utterance((best,), True, self.name, reread=self._rival_reader(audio, listening, start, best.kind))

    def _rival_reader(self, audio: bytes, listening: _Listening, start: float, best_kind: str):
        """Reads the utterance again as one other kind of phrase (or as free speech, for a grammar
        with no word loop to stand for it) when a judge asks; each kind once, and only while the
        decoder is still where this utterance left it (not busy with the next one, not listening
        for another grammar)."""
        heard, made = self._heard, {}
        searches = dict(listening.rivals)
        free = bool(listening.grammar.phrases) and not listening.grammar.loop

        def reread(kind: str) -> Hypothesis | None:
            if kind not in made:
                moved_on = (heard != self._heard or self._utterance_start is not None
                            or self._listening is not listening)
                if moved_on or kind == best_kind:
                    return None
                if kind == FREE and free:
                    made[kind] = self._reread(audio, listening, FREE, start, kind)
                elif kind in searches:
                    made[kind] = self._reread(audio, listening, searches[kind], start, kind)
                else:
                    made[kind] = None
            return made[kind]

        return reread

    def _reread(self, audio: bytes, listening: _Listening, search: str, start: float,
                kind: str | None = None) -> Hypothesis | None:
        """The utterance's audio decoded as a whole with one of the grammar's searches (`FREE`: a
        phone loop, a reading with no words, just how well the audio fits any sounds at all)."""
        # The running mean of the features (cepstral normalization) as the live decoding left it:
        # every decoding again starts from it, as the live decoding started from the mean before
        # the utterance (not from the utterance's own mean, so the first utterances of a game,
        # before it settles, are read worse: BENCHMARKS.md), and the live decoding goes on from it.
        normalization = self._decoder.get_cmn(False)
        try:
            self._decoder.activate_search(search)
            self._decoder.start_utt()
            self._decoder.process_raw(audio, False, True)
            self._decoder.end_utt()
            if search == FREE:
                return Hypothesis((), _path_fit(list(self._decoder.seg())), FREE)
            return self._best(start, kind)
        finally:
            self._decoder.activate_search(listening.search)
            self._decoder.set_cmn(normalization)

    def _guess(self, start: float, end: float) -> Hypothesis | None:
        """The running hypothesis from its text alone (reading word segments costs more than
        decoding): its words share out the time heard and carry no confidence."""
        hyp = self._decoder.hyp()
        live = tuple(w for w in map(_word, hyp.hypstr.split()) if w is not None) if hyp else ()
        texts = self._read_before + live
        if not texts:
            return None
        step = (end - start) / len(texts)
        words = tuple(HeardWord(text, 0.0, round(start + i * step, 3), round(start + (i + 1) * step, 3))
                      for i, text in enumerate(texts))
        return Hypothesis(words, 0.0, self._kind(texts))

    def _partial_result(self) -> Utterance | None:
        """The running guess, or the reading made ahead, when its words changed (the final result
        has real times and confidences)."""
        if self._listening is None:
            return None
        guess = self._ahead.best if self._ahead is not None else self._guess(self._utterance_start, self._clock)
        if guess is None or guess.texts == self._partial:
            return None
        self._partial = guess.texts
        return Utterance((guess,), False, self.name)

    def _best(self, start: float, kind: str | None = None) -> Hypothesis | None:
        """The decoder's best path as heard words, of `kind` if told (else the kind its words say);
        None when it holds no word. Its score is how well the audio fits the whole path: the acoustic
        score per frame, silences and noises included, as `FIT_UNSURE` measures it."""
        hyp = self._decoder.hyp()
        if hyp is None:
            return None
        words, segments = [], list(self._decoder.seg())
        for segment in segments:
            text = _word(segment.word)
            if text is None:
                continue
            frames = segment.end_frame - segment.start_frame + 1
            words.append(HeardWord(text, confidence_of(segment.ascore, frames),
                                   round(start + segment.start_frame / FRAME_RATE, 3),
                                   round(start + (segment.end_frame + 1) / FRAME_RATE, 3)))
        if not words:
            return None
        texts = tuple(w.text for w in words)
        return Hypothesis(tuple(words), _path_fit(segments), self._kind(texts) if kind is None else kind)

    def _kind(self, texts: tuple[str, ...]) -> str:
        return self._listening.grammar.kind_of(texts) if self._listening is not None else ""

    def close(self) -> None:
        if self._utterance_start is not None and self._listening is not None and self._ahead is None:
            self._decoder.end_utt()
        self._utterance_start = None


def _word(token: str) -> str | None:
    """A decoder token as a word ("read(2)" -> "read"), or None for silence, fillers and markers."""
    word = ALTERNATE_MARK.sub("", token.strip())
    if word in NON_WORDS or word.startswith(("[", "+")):
        return None
    return word


def unnamed_speech(words: Sequence[HeardWord], start: float, voiced: Sequence[bool], frame_seconds: float,
                   slack: float = 0.1) -> list[float]:
    """Seconds of voiced audio in each stretch of an utterance that no heard word covers (`voiced`:
    the speech detector's flag for each frame from `start`; a word covers `slack` seconds beyond
    its ends, where its sound fades)."""
    stretches, run = [], 0.0
    for i, is_voiced in enumerate(voiced):
        t0 = start + i * frame_seconds
        covered = any(w.start - slack < t0 + frame_seconds and t0 < w.end + slack for w in words)
        if covered:
            if run:
                stretches.append(round(run, 3))
            run = 0.0
        elif is_voiced:
            run += frame_seconds
    if run:
        stretches.append(round(run, 3))
    return stretches


def _path_fit(segments: list) -> float:
    """How well the audio fits a decoded path: its acoustic score per frame (natural log)."""
    fit = sum(math.log(max(s.ascore, 1e-300)) for s in segments)
    frames = sum(s.end_frame - s.start_frame + 1 for s in segments)
    return round(fit / max(frames, 1), 6)


def confidence_of(acoustic_score: float, frames: int) -> float:
    """A word's confidence, 0 to 1, from its acoustic score (as pocketsphinx gives it: a probability
    relative to the best state of each frame) over the frames it spans: see `FIT_UNSURE`."""
    fit = math.log(max(acoustic_score, 1e-300)) / max(frames, 1)
    return round(min(1.0, max(0.0, (fit - FIT_UNSURE) / (FIT_SURE - FIT_UNSURE))), 3)
