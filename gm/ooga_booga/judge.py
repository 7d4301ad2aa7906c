"""Judge one chant: was the chain said right, with a new card word and the right ending?

A chant must be the chain so far (oldest first), exactly one new card word (any word of the deck:
the game master cannot see the card), then "Ha" and the next player's name, or "Ooga Booga" on the
speaker's last card. Every n-best reading of the utterance is aligned against that pattern with
sound-aware similarity (gm.matching); each word's confidence and timing decide how much a
difference counts. A wrong "you lose" ruins the game, so the verdict is:

- `Right` when the engine's best reading fits and its words are heard well enough (or every
  reading agrees on it);
- `Wrong` only for strong evidence: a confident word that clearly contradicts the chain (not a
  sound-alike), a skip with no room for the missing word, no reading that fits, nothing else
  amiss (a player makes one mistake; a reading with several is a recognizer that lost its way),
  and the reading fits the audio at least as well as the right chant forced onto it;
- `Unsure` otherwise, with the reason.

Every verdict keeps its evidence (heard words, expected words, per-word scores, thresholds).
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field, replace
from typing import Sequence, Union

from gm.matching import Op, align, best_match
from gm.ooga_booga.rules import Ending, Reason
from gm.speech import Grammar, HeardWord, Hypothesis, Phrase, Utterance

RIGHT, MISTAKE = "right", "mistake"
"""Kinds of phrase in a chant's grammar."""
MISTAKE_WEIGHT = 0.5
"""How likely a mistake is, relative to the right chant (players mostly get it right); shared
evenly by the single mistakes listened for."""
LOOP_WEIGHT = 0.1
"""How likely free speech is, relative to the right chant."""


@dataclass(frozen=True)
class Thresholds:
    """The numbers the judge decides by (similarity and confidence are 0..1, times in seconds)."""

    match: float = 0.8
    """Similarity at or above which a heard word is the expected one (if nothing else is closer)."""
    clash: float = 0.55
    """Similarity below which a heard word is clearly another word ("kiki" for "aki", 0.57, is not:
    PocketSphinx heard it so in a right chant)."""
    confident: float = 0.85
    """Confidence at or above which the engine's word counts as evidence of a mistake, also in a
    reading the engine matched to one of the grammar's mistake phrases. Measured with PocketSphinx:
    a bar of 0.35 there called 5 of 40 right chants of the benchmark wrong, 0.7 none of them, but
    right chants of the audio session test had wrong words heard at 0.73-0.81."""
    accept: float = 0.3
    """The weakest word of a right chant must reach this, unless every reading agrees. (Measured with
    PocketSphinx, chants read from the live decoding: 0.3 took 5 more right chants of the benchmark
    than 0.4, each read word for word, and missed no more mistakes; 0.25 took 7, and one wrong chant
    read as a right one.)"""
    skip_gap: float = 0.35
    """Seconds: a shorter pause between two heard words leaves no room for a skipped word."""
    right_fits: float = 0.6
    """The right chant forced onto the audio (the engine's rival reading of kind "right", where it
    gives one): when its weakest word reaches this, the chant was right, whatever the free reading
    says. (Measured with PocketSphinx: 9 of 38 right chants of the benchmark, none of 121 wrong.)"""
    right_misfits: float = 0.05
    """When that reading's weakest word is below this, the right chant does not fit the audio (88 of
    121 wrong chants, 3 of 38 right ones): a mistake the free reading shows then needs only
    `backed` confidence, and the single-mistake reading may show one if it fits the audio at least as
    well as the right chant forced onto it (else noise masking a word of a right chant, at 6 dB,
    was called a mistake)."""
    backed: float = 0.5
    proof: float = 0.2
    """The weakest other word of a reading that proves a mistake: a reading half made of guesses
    proves nothing (a right chant heard as "cha yonka cha rumba", its new word at 0.0, was called
    wrong on "yonka" at 0.59)."""
    talk: int = 3
    """Words heard beyond the longest right chant that make an utterance table talk, not a chant
    (measured with PocketSphinx: 36 of 40 stretches of chatter, 5 of 240 chants)."""
    merged: float = 0.6
    """Seconds: a word this long next to a skip may be the skipped word said twice and heard once."""


class Mistake(enum.Enum):
    """What a player got wrong."""

    SKIPPED = "skipped"
    SWAPPED = "swapped"
    WRONG_WORD = "wrong_word"
    EXTRA_WORD = "extra_word"
    NO_NEW_WORD = "no_new_word"
    HA_ON_LAST_CARD = "ha_on_last_card"
    NO_OOGA_BOOGA = "no_ooga_booga"
    EARLY_OOGA_BOOGA = "early_ooga_booga"

    @property
    def reason(self) -> Reason:
        """The rule the mistake breaks."""
        return {
            Mistake.HA_ON_LAST_CARD: Reason.NO_OOGA_BOOGA,
            Mistake.NO_OOGA_BOOGA: Reason.NO_OOGA_BOOGA,
            Mistake.EARLY_OOGA_BOOGA: Reason.EARLY_OOGA_BOOGA,
        }.get(self, Reason.WRONG_CHAIN)


class Doubt(enum.Enum):
    """Why the judge cannot decide."""

    NOTHING_HEARD = "nothing_heard"
    NOT_A_CHANT = "not_a_chant"
    WEAK_WORDS = "weak_words"
    """The chant fits, but some words were heard too faintly."""
    UNCLEAR_WORD = "unclear_word"
    """A word sounds like the expected one, or is not clearly any word of the game."""
    WEAK_MISTAKE = "weak_mistake"
    """Something looks wrong, but the words showing it were not heard confidently."""
    READINGS_DISAGREE = "readings_disagree"
    """One reading of the utterance is right, another wrong."""


class Slot(enum.Enum):
    CHAIN = "chain"
    NEW = "new"
    HA = "ha"
    NAME = "name"
    CLOSING = "closing"


@dataclass(frozen=True)
class Check:
    """One aligned step: what was expected, what was heard, how alike, how sure the engine was."""

    op: Op
    expected: str | None
    heard: str | None
    similarity: float = 0.0
    confidence: float = 0.0

    def __str__(self) -> str:
        return f"{self.expected or '-'}~{self.heard or '-'} {self.similarity:.2f}/{self.confidence:.2f}"


@dataclass(frozen=True)
class Issue:
    """Something that keeps a reading from being right: a mistake (strong or weak) or a doubt."""

    at: int
    """Position in the expected words."""
    expected: tuple[str, ...]
    heard: tuple[str, ...]
    mistake: Mistake | None = None
    doubt: Doubt | None = None
    strong: bool = False


@dataclass(frozen=True)
class Reading:
    """One hypothesis read as a chant."""

    text: str
    ending: Ending | None
    word: str | None
    """The new card's word (nearest deck word), if one was heard."""
    named: str | None
    checks: tuple[Check, ...]
    issues: tuple[Issue, ...]
    weakest: float
    """The lowest confidence among the words that fit."""
    expected: tuple[str, ...]

    @property
    def fits(self) -> bool:
        return not self.issues

    @property
    def strong_mistake(self) -> Issue | None:
        return next((i for i in self.issues if i.mistake and i.strong), None)

    @property
    def has_mistake(self) -> bool:
        return any(i.mistake for i in self.issues)


@dataclass(frozen=True)
class Evidence:
    """Why a verdict was given: what was heard, what was expected, scores and thresholds."""

    heard: tuple[HeardWord, ...]
    expected: tuple[str, ...]
    checks: tuple[Check, ...]
    thresholds: Thresholds
    readings: int
    """How many distinct readings (n-best alternatives) were judged."""
    fitting: int
    """How many of them fit the chant."""

    @property
    def heard_text(self) -> str:
        return " ".join(w.text for w in self.heard)

    def summary(self) -> str:
        """One line for a log: each step as expected~heard similarity/confidence."""
        steps = ", ".join(str(c) for c in self.checks)
        return f"{steps} ({self.fitting}/{self.readings} readings fit)"


@dataclass(frozen=True)
class Right:
    """The chant was right: the new card's `word`, and how it ended (`named`: the next player)."""

    word: str
    ending: Ending | None
    """None: the chant stopped after the new word (no "Ha" and name yet)."""
    named: str | None
    evidence: Evidence = field(repr=False)


@dataclass(frozen=True)
class Wrong:
    """The chant was wrong: which mistake, where, the words expected and heard there."""

    mistake: Mistake
    at: int
    expected: tuple[str, ...]
    heard: tuple[str, ...]
    evidence: Evidence = field(repr=False)


@dataclass(frozen=True)
class Unsure:
    """The judge cannot decide; `reading` is its best guess (for a table that rules "right")."""

    doubt: Doubt
    reading: Reading | None = field(repr=False)
    evidence: Evidence = field(repr=False)


Verdict = Union[Right, Wrong, Unsure]


@dataclass(frozen=True)
class Chant:
    """What a chant must be right now."""

    chain: tuple[str, ...]
    deck: tuple[str, ...]
    """Every card word the new card may carry."""
    names: tuple[str, ...]
    """Player names (lower case) that may follow "Ha"."""
    ending: Ending
    ha: tuple[str, ...] = ("ha",)
    closing: tuple[str, ...] = ("ooga", "booga")

    @property
    def opening(self) -> bool:
        """The first chant of a round: one card word and its ending. Table talk is full of words
        that sound like a card word or a name, so only a whole chant, "Ha" heard, counts then."""
        return not self.chain

    @functools.cached_property
    def vocabulary(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.deck, *self.names, *self.ha, *self.closing)))

    def grammar(self, mistake_weight: float = MISTAKE_WEIGHT, loop_weight: float = LOOP_WEIGHT) -> Grammar:
        """What may be heard: the right chant (any new card word, any name), each single mistake a
        player can make (a chain word skipped, two swapped, one replaced, no new word, the wrong
        ending), and any words in any order for everything else. Listening for the mistakes as
        phrases lets the engine weigh "right" against "wrong" on the audio itself."""
        chain = [(w,) for w in self.chain]
        ha_end = (*((w,) for w in self.ha), self.names)
        closing_end = tuple((w,) for w in self.closing)
        end, other_end = (ha_end, closing_end) if self.ending is Ending.HA else (closing_end, ha_end)
        right = Phrase((*chain, self.deck, *end), RIGHT)
        variants = [(*chain, self.deck, *other_end), (*chain, *end)]
        for i, word in enumerate(self.chain):
            others = tuple(w for w in self.deck if w != word)
            variants.append((*chain[:i], *chain[i + 1:], self.deck, *end))
            variants.append((*chain[:i], others, *chain[i + 1:], self.deck, *end))
            if i + 1 < len(chain) and chain[i] != chain[i + 1]:
                variants.append((*chain[:i], chain[i + 1], chain[i], *chain[i + 2:], self.deck, *end))
        variants = list(dict.fromkeys(variants))
        mistakes = tuple(Phrase(tuple(v), MISTAKE, mistake_weight / len(variants)) for v in variants)
        return Grammar((right, *mistakes), self.vocabulary, loop_weight)

    def template(self, ending: Ending | None) -> tuple[tuple[Slot, str], ...]:
        slots = [(Slot.CHAIN, w) for w in self.chain] + [(Slot.NEW, "*")]
        if ending is Ending.HA:
            slots += [(Slot.HA, w) for w in self.ha] + [(Slot.NAME, "<name>")]
        elif ending is Ending.OOGA_BOOGA:
            slots += [(Slot.CLOSING, w) for w in self.closing]
        return tuple(slots)


def judge(utterance: Utterance, chant: Chant, thresholds: Thresholds = Thresholds()) -> Verdict:
    """The verdict on one chant, from every reading of the utterance."""
    texts = set()
    hypotheses = []
    # A reading matched to a whole phrase of the chant's grammar is the engine's verdict on the
    # audio itself; the other n-best entries of such a grammar are near-copies that carry no score.
    structured = utterance.best.kind in (RIGHT, MISTAKE)
    for hypothesis in utterance.alternatives[:1] if structured else utterance.alternatives:
        if hypothesis.texts not in texts:
            texts.add(hypothesis.texts)
            hypotheses.append(hypothesis)
    right = utterance.rival(RIGHT)
    right_fit = None if right is None else min((w.confidence for w in right.words
                                                if chant.opening or w.text not in chant.ha), default=None)
    misfits = right_fit is not None and right_fit < thresholds.right_misfits
    if misfits and not chant.opening:  # an opening chant is too short for its misfit to say much
        thresholds = replace(thresholds, confident=min(thresholds.confident, thresholds.backed))
    readings = [_read(h, chant, thresholds) for h in hypotheses if h.words]
    best = readings[0] if readings and utterance.words else None
    fitting = sum(r.fits for r in readings)
    if best is None:
        evidence = Evidence((), _display(chant, chant.ending), (), thresholds, 0, 0)
        return Unsure(Doubt.NOTHING_HEARD, None, evidence)
    evidence = Evidence(utterance.words, best.expected, best.checks, thresholds, len(readings), fitting)
    if best.issues and best.issues[0].doubt is Doubt.NOT_A_CHANT:
        return Unsure(Doubt.NOT_A_CHANT, best, evidence)
    if best.fits:
        agree = len(readings) > 1 and all(r.fits and (r.word, r.ending, r.named) == (best.word, best.ending, best.named)
                    for r in readings)
        if best.weakest >= thresholds.accept or agree:
            return Right(best.word, best.ending, best.named, evidence)
    if right_fit is not None and right_fit >= thresholds.right_fits:
        forced = _read(right, chant, thresholds)
        if forced.fits:
            return Right(forced.word, forced.ending, forced.named, evidence)
    if best.fits:
        return Unsure(Doubt.WEAK_WORDS, best, evidence)
    strong = _proven(best, thresholds)
    if strong is not None:
        if all(r.has_mistake for r in readings) and _fits_as_well(utterance.best, right):
            return Wrong(strong.mistake, strong.at, strong.expected, strong.heard, evidence)
        return Unsure(Doubt.READINGS_DISAGREE, best, evidence)
    mistaken = utterance.rival(MISTAKE) if misfits else None
    if mistaken is not None and _fits_as_well(mistaken, right):
        # The right chant does not fit, and the best reading as a single mistake fits the audio at
        # least as well as the right chant forced onto it: that reading says which mistake.
        reading = _read(mistaken, chant, thresholds)
        strong = _proven(reading, thresholds)
        if strong is not None:
            evidence = replace(evidence, expected=reading.expected, checks=reading.checks)
            return Wrong(strong.mistake, strong.at, strong.expected, strong.heard, evidence)
    doubt = next((i.doubt for i in best.issues if i.doubt), Doubt.WEAK_MISTAKE)
    if fitting:
        doubt = Doubt.READINGS_DISAGREE
    return Unsure(doubt, best, evidence)


def _fits_as_well(reading: Hypothesis, right: Hypothesis | None) -> bool:
    """A reading that shows a mistake fits the audio at least as well as the right chant forced onto
    it (where the engine gives that reading). A sure-looking mistake that fits worse is the search
    losing its way (its beams are narrower than the forced reading's): three right chants of the
    benchmark were called wrong on such readings, words heard at 0.85-0.94 among them."""
    return right is None or reading.score >= right.score


def _proven(reading: Reading, t: Thresholds) -> Issue | None:
    """The reading's one strong mistake, if the rest of it is heard surely enough to stand on."""
    strong = reading.strong_mistake
    return strong if strong is not None and len(reading.issues) == 1 and reading.weakest >= t.proof else None


def _display(chant: Chant, ending: Ending | None) -> tuple[str, ...]:
    return tuple(word for _, word in chant.template(ending))


def _read(hypothesis: Hypothesis, chant: Chant, t: Thresholds) -> Reading:
    """The best reading of one hypothesis, over the three ways a chant can end."""
    options = []
    for rank, ending in enumerate(sorted((Ending.HA, Ending.OOGA_BOOGA, None),
                                         key=lambda e: e is not chant.ending)):
        options.append((_align(hypothesis.words, chant, chant.template(ending), t), rank, ending))
    alignment, _, ending = min(options, key=lambda o: (round(o[0].cost, 9), o[1]))
    return _reading(hypothesis, chant, ending, alignment, t)


def _score(slot: Slot, expected: str, heard: str, chant: Chant) -> tuple[float, str | None]:
    """Similarity of a heard word to a slot, and the word it stands for if it clearly fits."""
    return _scored(slot, expected, heard, chant.deck, chant.names, chant.vocabulary)


@functools.lru_cache(maxsize=16384)
def _scored(slot: Slot, expected: str, heard: str, deck: tuple[str, ...], names: tuple[str, ...],
            vocabulary: tuple[str, ...]) -> tuple[float, str | None]:
    pool = {Slot.NEW: deck, Slot.NAME: names}.get(slot, (expected,))
    if slot in (Slot.NEW, Slot.NAME) and heard in vocabulary and heard not in pool:
        return 0.0, None
    match = best_match(heard, pool)
    nearest = best_match(heard, vocabulary)
    return match.score, match.candidate if match.score >= nearest.score else None


def _align(words: Sequence[HeardWord], chant: Chant, slots, t: Thresholds):
    scores = {}

    def score(i: int, j: int) -> float:
        if (i, j) not in scores:
            scores[i, j] = _score(*slots[i], words[j].text, chant)[0]
        return scores[i, j]

    def swap(i: int, j: int) -> float | None:
        if slots[i][0] is not Slot.CHAIN or slots[i + 1][0] is not Slot.CHAIN:
            return None
        return 2.0 - score(i, j + 1) - score(i + 1, j) + 0.3

    return align(
        len(slots), len(words),
        lambda i, j: 1.0 - score(i, j),
        lambda j: 0.4 + 0.6 * words[j].confidence,
        lambda i: {Slot.HA: 0.3, Slot.NEW: 0.99}.get(slots[i][0], 1.0),
        swap,
    )


def _reading(hypothesis: Hypothesis, chant: Chant, ending: Ending | None, alignment, t: Thresholds) -> Reading:
    words = hypothesis.words
    slots = chant.template(ending)
    expected = tuple(w for _, w in slots)
    checks, issues, fit_confidences = [], [], []
    word = named = None
    matched_chain = 0

    def confident(*indices: int) -> bool:
        return all(0 <= j < len(words) and words[j].confidence >= t.confident for j in indices)

    for n, step in enumerate(alignment.steps):
        i, j = step.expected, step.heard
        if step.op is Op.MATCH:
            kind, want = slots[i]
            heard = words[j]
            sim, stands_for = _score(kind, want, heard.text, chant)
            checks.append(Check(step.op, want, heard.text, sim, heard.confidence))
            if sim >= t.match and stands_for is not None:
                if kind is not Slot.HA or chant.opening:  # after a chain, "Ha" may be left out
                    fit_confidences.append(heard.confidence)
                matched_chain += kind is Slot.CHAIN
                if kind is Slot.NEW:
                    word = stands_for
                elif kind is Slot.NAME:
                    named = stands_for
            elif kind is Slot.CHAIN and sim < t.clash:
                issues.append(Issue(i, (want,), (heard.text,), Mistake.WRONG_WORD,
                                    strong=heard.confidence >= t.confident))
            elif kind is Slot.CHAIN:
                issues.append(Issue(i, (want,), (heard.text,), Mistake.WRONG_WORD, Doubt.UNCLEAR_WORD))
            else:
                issues.append(Issue(i, (want,), (heard.text,), doubt=Doubt.UNCLEAR_WORD))
        elif step.op is Op.SWAP:
            first, second = words[j], words[j + 1]
            sims = (_score(*slots[i], second.text, chant)[0], _score(*slots[i + 1], first.text, chant)[0])
            checks.append(Check(step.op, f"{slots[i][1]} {slots[i + 1][1]}", f"{first.text} {second.text}",
                                min(sims), min(first.confidence, second.confidence)))
            issues.append(Issue(i, (slots[i][1], slots[i + 1][1]), (first.text, second.text), Mistake.SWAPPED,
                                strong=min(sims) >= t.match and confident(j, j + 1)))
        elif step.op is Op.DELETE:
            kind, want = slots[i]
            checks.append(Check(step.op, want, None))
            if kind is Slot.HA and not chant.opening:
                continue
            mistake = {Slot.CHAIN: Mistake.SKIPPED, Slot.NEW: Mistake.NO_NEW_WORD}.get(kind)
            before, after = _neighbours(alignment.steps, n)
            room = (before is not None and after is not None
                    and words[after].start - words[before].end >= t.skip_gap)
            neighbours = [k for k in (before, after) if k is not None]
            stopped = after is None and ending is None
            merged = any(_score(kind, want, words[k].text, chant)[1] is not None
                         and words[k].end - words[k].start >= t.merged for k in neighbours)
            strong = bool(neighbours) and confident(*neighbours) and not (room or stopped or merged)
            issues.append(Issue(i, (want,), (), mistake, None if mistake else Doubt.UNCLEAR_WORD,
                                strong and mistake is not None))
        else:
            heard = words[j]
            checks.append(Check(step.op, None, heard.text, 0.0, heard.confidence))
            if heard.confidence < t.confident:
                continue
            inside = 0 < n < len(alignment.steps) - 1
            stutter = j > 0 and words[j - 1].text == heard.text
            at = next((s.expected for s in alignment.steps[n:] if s.expected is not None), len(slots))
            issues.append(Issue(at, (), (heard.text,), Mistake.EXTRA_WORD, strong=inside and not stutter))
    issues += _ending_issues(chant, ending, expected, words, confident)
    longest = max(len(chant.template(e)) for e in (Ending.HA, Ending.OOGA_BOOGA))
    stopped_short = ending is None and (chant.opening or matched_chain * 2 < len(chant.chain))
    if stopped_short or len(words) > longest + t.talk:
        issues.insert(0, Issue(0, (), (), doubt=Doubt.NOT_A_CHANT))
    weakest = min(fit_confidences, default=0.0)
    return Reading(hypothesis.text, ending, word, named, tuple(checks), tuple(issues), weakest, expected)


def _ending_issues(chant: Chant, ending: Ending | None, expected, words, confident) -> list[Issue]:
    """The ending heard against the ending the rules expect."""
    if ending is chant.ending or (ending is None and chant.ending is Ending.HA):
        return []
    at = len(chant.chain) + 1
    tail = tuple(w.text for w in words[-len(expected[at:]):]) if expected[at:] else ()
    sure = confident(*range(len(words) - max(1, len(tail)), len(words)))
    mistake = {Ending.HA: Mistake.HA_ON_LAST_CARD, Ending.OOGA_BOOGA: Mistake.EARLY_OOGA_BOOGA,
               None: Mistake.NO_OOGA_BOOGA}[ending]
    want = chant.closing if chant.ending is Ending.OOGA_BOOGA else (*chant.ha, "<name>")
    return [Issue(at, want, tail, mistake, strong=sure)]


def _neighbours(steps, n: int) -> tuple[int | None, int | None]:
    """Indices of the heard words just before and just after step `n`."""
    before = next((s.heard + (1 if s.op is Op.SWAP else 0) for s in reversed(steps[:n]) if s.heard is not None),
                  None)
    after = next((s.heard for s in steps[n + 1:] if s.heard is not None), None)
    return before, after
