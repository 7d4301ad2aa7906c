"""How alike heard words are to expected ones: spelling, sound, nearest candidates, alignment.

Recognizers confuse words that sound alike ("pooka" / "booka"), so similarity blends the spelling
with a cheap phonetic key that folds voiced and voiceless consonants and vowel spellings together.
Nothing here knows a game: the judges build on `similarity`, `best_match` and `align`.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Callable, Iterable

from rapidfuzz import fuzz

_DIGRAPHS = (
    ("tch", "c"), ("ch", "c"), ("sh", "s"), ("ph", "f"), ("th", "t"), ("ck", "k"), ("qu", "kw"),
    ("oo", "u"), ("ou", "u"), ("ee", "i"), ("ea", "i"), ("ey", "i"), ("ie", "i"), ("ai", "e"),
    ("ay", "e"),
)
_LETTERS = str.maketrans({
    "b": "p", "d": "t", "g": "k", "c": "k", "q": "k", "x": "s", "z": "s", "v": "f", "j": "c",
    "m": "n", "y": "i", "h": "",
})


@functools.lru_cache(maxsize=4096)
def phonetic_key(word: str) -> str:
    """A rough sound of `word`: voiced/voiceless pairs and vowel spellings folded, doubles merged
    ("pooka", "booka" and "boogah" all give "puka")."""
    key = "".join(c for c in word.lower() if c.isalpha())
    for spelling, sound in _DIGRAPHS:
        key = key.replace(spelling, sound)
    key = key.translate(_LETTERS)
    return "".join(c for i, c in enumerate(key) if i == 0 or c != key[i - 1])


@functools.lru_cache(maxsize=65536)
def similarity(a: str, b: str) -> float:
    """0.0 (nothing alike) to 1.0 (the same word): the mean of spelling and sound likeness, never
    below the spelling likeness alone."""
    a, b = a.lower(), b.lower()
    if a == b:
        return 1.0
    spelling = fuzz.ratio(a, b) / 100.0
    sound = fuzz.ratio(phonetic_key(a), phonetic_key(b)) / 100.0
    return max(spelling, (spelling + sound) / 2.0)


@dataclass(frozen=True)
class Match:
    """The candidate nearest to a heard word, and how alike they are."""

    word: str
    candidate: str
    score: float


def best_match(word: str, candidates: Iterable[str]) -> Match:
    """The candidate most like `word` (ties: the first listed). Raises ValueError with none."""
    scored = [(similarity(word, c), -i, c) for i, c in enumerate(dict.fromkeys(candidates))]
    if not scored:
        raise ValueError("best_match needs at least one candidate")
    score, _, candidate = max(scored)
    return Match(word, candidate, score)


class Op(enum.Enum):
    MATCH = "match"
    """An expected item paired with a heard one (alike or not: see the step's cost)."""
    INSERT = "insert"
    """A heard item with no expected one: an extra word."""
    DELETE = "delete"
    """An expected item nothing was heard for: a skipped word."""
    SWAP = "swap"
    """Expected items i, i+1 heard as j+1, j: two words swapped."""


_MOVES = {Op.MATCH: (1, 1), Op.SWAP: (2, 2), Op.DELETE: (1, 0), Op.INSERT: (0, 1)}
"""How far each kind of step moves through the expected and the heard items."""


@dataclass(frozen=True)
class Step:
    op: Op
    expected: int | None
    """Index into the expected sequence (the first of the pair for SWAP)."""
    heard: int | None
    """Index into the heard sequence (the first of the pair for SWAP)."""
    cost: float


@dataclass(frozen=True)
class Alignment:
    steps: tuple[Step, ...]
    cost: float


def align(
    expected: int,
    heard: int,
    substitute: Callable[[int, int], float],
    insert: Callable[[int], float],
    delete: Callable[[int], float],
    swap: Callable[[int, int], float | None] | None = None,
) -> Alignment:
    """The cheapest way to read `heard` items as `expected` ones (weighted edit distance with
    adjacent swaps). Costs come from the callbacks: `substitute(i, j)` pairs expected i with heard j,
    `insert(j)` drops heard j, `delete(i)` skips expected i, `swap(i, j)` pairs expected i, i+1 with
    heard j+1, j (None: not allowed). Ties prefer matches, then skips, then extras."""
    inf = float("inf")
    cost = [[inf] * (heard + 1) for _ in range(expected + 1)]
    back: list[list[tuple[Op, float] | None]] = [[None] * (heard + 1) for _ in range(expected + 1)]
    cost[0][0] = 0.0
    for i in range(expected + 1):
        for j in range(heard + 1):
            best, choice = inf, None
            # Candidates in order of preference: an exact tie keeps the earlier one.
            if i and j:
                c = substitute(i - 1, j - 1)
                best, choice = cost[i - 1][j - 1] + c, (Op.MATCH, c)
            if i > 1 and j > 1 and swap is not None:
                c = swap(i - 2, j - 2)
                if c is not None and cost[i - 2][j - 2] + c < best - 1e-9:
                    best, choice = cost[i - 2][j - 2] + c, (Op.SWAP, c)
            if i:
                c = delete(i - 1)
                if cost[i - 1][j] + c < best - 1e-9:
                    best, choice = cost[i - 1][j] + c, (Op.DELETE, c)
            if j:
                c = insert(j - 1)
                if cost[i][j - 1] + c < best - 1e-9:
                    best, choice = cost[i][j - 1] + c, (Op.INSERT, c)
            if choice is not None:
                cost[i][j], back[i][j] = best, choice
    steps = []
    i, j = expected, heard
    while i or j:
        op, c = back[i][j]
        di, dj = _MOVES[op]
        i, j = i - di, j - dj
        steps.append(Step(op, i if di else None, j if dj else None, c))
    return Alignment(tuple(reversed(steps)), cost[expected][heard])

