"""Vosk: streaming recognition limited to the words the game allows right now.

Vosk compiles a list of phrases into a small language model at run time (its "grammar"), so the
decoder hears only listed words, plus the model's unknown-word token where it has one, so that
unrelated speech has somewhere to go. Words the model cannot say are named up front and left out:
Vosk itself would only log them, and some malformed grammars crash it outright.

Vosk gives per-word confidences only for its single best reading, and n-best readings only without
them. So two decoders hear the same audio: one for the best reading with word confidences, one for
the n-best list, whose scores become posteriors (they sum to 1 over the list).
"""

from __future__ import annotations

import functools
import json
import math
import mmap
import struct
from pathlib import Path
from typing import Iterable, Iterator

from gm.audio import BYTES_PER_SECOND
from gm.speech import (SAMPLE_RATE, HeardWord, Hypothesis, Recognizer, RecognizerError, Utterance,
                       Vocabulary, normalize_words)

UNKNOWN_TOKENS = ("[unk]", "<unk>", "<UNK>")
"""How models spell "a word I do not know", in the order we prefer them."""

_FST_MAGIC = 0x7EB2FDD6
_SYMBOLS_MAGIC = 0x7EB2FB74
_HAS_INPUT_SYMBOLS = 1


def _vosk():
    """Import Vosk with its logging silenced (it logs every grammar and every missing word)."""
    import vosk
    vosk.SetLogLevel(-1)
    return vosk


class VoskModel:
    """A loaded model and the words it knows. Loading takes seconds and ~500 MB: share one."""

    def __init__(self, path: Path | str):
        self.path = Path(path).expanduser()
        if not self.path.is_dir():
            raise RecognizerError(f"no Vosk model at {self.path}: run `gm models download LANGUAGE` "
                                  "or give the folder of an unpacked model")
        if not (self.path / "am" / "final.mdl").is_file():
            raise RecognizerError(f"{self.path} is not a Vosk model folder (it has no am/final.mdl)")
        graph = self.path / "graph"
        if not ((graph / "Gr.fst").is_file() and (graph / "HCLr.fst").is_file()):
            raise RecognizerError(f"the model in {self.path} has a fixed vocabulary (no graph/Gr.fst and "
                                  "graph/HCLr.fst), so it cannot listen for the game's words: use a small "
                                  "or lgraph model")
        self._known = _read_word_list(graph)
        self._tokens: dict[str, str | None] = {}
        try:
            self.model = _vosk().Model(str(self.path))
        except Exception as error:
            raise RecognizerError(f"Vosk cannot load the model in {self.path} ({error}): "
                                  "it may be incomplete; download it again") from None
        self.unknown = next((t for t in UNKNOWN_TOKENS if self._has(t)), None)
        """The model's unknown-word token, or None if it has none."""

    @classmethod
    @functools.lru_cache(maxsize=2)
    def load(cls, path: Path | str) -> "VoskModel":
        """The model in this folder, loaded once per process."""
        return cls(path)

    def token_for(self, word: str) -> str | None:
        """How the model spells a (normalized, lower-case) word, or None if it does not know it."""
        if word not in self._tokens:
            self._tokens[word] = next((t for t in dict.fromkeys((word, word.upper())) if self._has(t)), None)
        return self._tokens[word]

    def _has(self, token: str) -> bool:
        return b"\n" + token.encode() + b"\n" in self._known


def _read_word_list(graph: Path) -> bytes:
    """Every word the model knows, as b"\\nword\\n...\\n" (a set of 500k words would cost ~70 MB).

    From graph/words.txt where the model has one, else from the symbol table inside graph/Gr.fst.
    """
    listed = graph / "words.txt"
    try:
        if listed.is_file():
            words = [line.split()[0] for line in listed.read_bytes().splitlines() if line.strip()]
        else:
            words = _fst_input_symbols(graph / "Gr.fst")
    except (OSError, ValueError, struct.error) as error:
        raise RecognizerError(f"cannot read the word list of the model in {graph.parent} ({error}): "
                              "it may be damaged; download it again") from None
    return b"\n" + b"\n".join(words) + b"\n"


def _fst_input_symbols(path: Path) -> list[bytes]:
    """The input symbol table of an OpenFst binary file (header, then the table)."""
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        def string(at: int) -> tuple[bytes, int]:
            (length,) = struct.unpack_from("<i", data, at)
            return data[at + 4:at + 4 + length], at + 4 + length

        (magic,) = struct.unpack_from("<I", data, 0)
        if magic != _FST_MAGIC:
            raise ValueError(f"{path.name} is not an OpenFst file")
        _, at = string(4)
        _, at = string(at)
        _version, flags = struct.unpack_from("<ii", data, at)
        at += 8 + 8 + 3 * 8  # version and flags, properties, start state, state and arc counts
        if not flags & _HAS_INPUT_SYMBOLS:
            raise ValueError(f"{path.name} carries no word list")
        (magic,) = struct.unpack_from("<I", data, at)
        if magic != _SYMBOLS_MAGIC:
            raise ValueError(f"{path.name} has a damaged word list")
        _, at = string(at + 4)
        _available, count = struct.unpack_from("<qq", data, at)
        at += 16
        length_of = struct.Struct("<i").unpack_from
        words = []
        for _ in range(count):
            (length,) = length_of(data, at)
            words.append(data[at + 4:at + 4 + length])
            at += 4 + length + 8  # the word, then its 64-bit id
        return words


def check_grammar(grammar: str) -> None:
    """Refuse a grammar Vosk would choke on: anything but a non-empty JSON list of phrases, each
    non-empty words separated by single spaces. (Vosk crashes the process on some of these.)"""
    try:
        phrases = json.loads(grammar)
    except ValueError:
        raise RecognizerError(f"the Vosk grammar is not JSON: {grammar[:80]!r}") from None
    if not isinstance(phrases, list) or not phrases:
        raise RecognizerError(f"the Vosk grammar must be a non-empty list of phrases: {grammar[:80]!r}")
    for phrase in phrases:
        if not isinstance(phrase, str) or not phrase or phrase.split(" ") != phrase.split():
            raise RecognizerError(f"bad phrase {phrase!r} in the Vosk grammar")


class VoskRecognizer(Recognizer):
    """A Vosk model listening for a vocabulary; see the module docstring for how it reads results."""

    name = "vosk"

    def __init__(self, model: VoskModel | Path | str, alternatives: int = 3):
        self.model = model if isinstance(model, VoskModel) else VoskModel.load(Path(model).expanduser().resolve())
        self.alternatives = max(1, alternatives)
        """How many readings to ask for; 1 runs a single decoder (half the work, no n-best)."""
        self._grammar: str | None = None
        self._spelling: dict[str, str] = {}
        self._decoders: tuple = ()
        self._origin = 0.0
        """Stream seconds at which the decoders' own clock reads zero."""
        self._fed = 0.0
        """Seconds of audio the decoders have taken."""
        self._partial: tuple[str, ...] = ()

    def set_vocabulary(self, words: Iterable[str]) -> Vocabulary:
        """Listen for these words (or phrases) from now on; an unfinished utterance is dropped.

        Entries are normalized like everything else (lower case, no punctuation). Words the model
        does not know come back in `missing` and are not listened for; if none is left, nothing is
        heard until the next vocabulary.
        """
        phrases, heard, missing, spelling = [], [], [], {}
        for entry in [words] if isinstance(words, str) else words:
            tokens = normalize_words(entry) if isinstance(entry, str) else []
            if not tokens:
                missing.append(str(entry))
            known = []
            for word in tokens:
                token = self.model.token_for(word)
                if token is None:
                    missing.append(word)
                    continue
                known.append(token)
                spelling[token] = word
                heard.append(word)
            if known:
                phrases.append(" ".join(known))
        vocabulary = Vocabulary(tuple(dict.fromkeys(heard)), tuple(dict.fromkeys(missing)))
        grammar = None
        if phrases:
            listed = list(dict.fromkeys(phrases + ([self.model.unknown] if self.model.unknown else [])))
            grammar = json.dumps(listed, ensure_ascii=False)
            check_grammar(grammar)
        if grammar != self._grammar or not self._decoders:
            self._grammar, self._spelling = grammar, spelling
            self._decoders = self._new_decoders(grammar) if grammar else ()
            self._fed, self._partial = 0.0, ()
        return vocabulary

    def _new_decoders(self, grammar: str) -> tuple:
        vosk = _vosk()
        try:
            best = vosk.KaldiRecognizer(self.model.model, SAMPLE_RATE, grammar)
            best.SetWords(True)
            best.SetPartialWords(True)
            if self.alternatives == 1:
                return (best,)
            nbest = vosk.KaldiRecognizer(self.model.model, SAMPLE_RATE, grammar)
            nbest.SetWords(True)
            nbest.SetMaxAlternatives(self.alternatives)
        except Exception as error:
            raise RecognizerError(f"Vosk cannot listen for this vocabulary ({error})") from None
        return best, nbest

    def feed(self, pcm: bytes, start: float) -> Iterator[Utterance]:
        """Yields at most one utterance per chunk: a final one at an endpoint, else a changed partial.

        Times follow the chunks' `start`: a stream that jumps (a new recording) is placed correctly.
        """
        if not self._decoders:
            return
        self._origin = start - self._fed
        self._fed += len(pcm) / BYTES_PER_SECOND
        ended = [decoder.AcceptWaveform(pcm) for decoder in self._decoders]
        if any(ended):
            utterance = self._finish([d.Result() if e else d.FinalResult() for d, e in zip(self._decoders, ended)])
            if utterance is not None:
                yield utterance
            return
        words, unknown = self._heard(json.loads(self._decoders[0].PartialResult()).get("partial_result", []))
        texts = tuple(w.text for w in words)
        if texts != self._partial:
            self._partial = texts
            yield Utterance((Hypothesis(words, 0.0, unknown=unknown),), final=False, engine=self.name)

    def end_utterance(self, skip_rest: bool = False) -> Utterance | None:
        """Close now. (`skip_rest` is not needed: Vosk's own endpointer joins the rest of the speech
        to the next utterance only after a pause, and a bare fragment rarely fits the grammar.)"""
        if not self._decoders:
            return None
        return self._finish([decoder.FinalResult() for decoder in self._decoders])

    def close(self) -> None:
        self._decoders, self._grammar = (), None

    def _finish(self, results: list[str]) -> Utterance | None:
        """The final utterance from the decoders' JSON results (None if nothing was heard)."""
        self._partial = ()
        best_words, best_unknown = self._heard(json.loads(results[0]).get("result", []))
        if not best_words and not best_unknown:
            return None
        if len(results) == 1:
            return Utterance((Hypothesis(best_words, 1.0, unknown=best_unknown),), True, self.name)
        alternatives = json.loads(results[1]).get("alternatives", [])
        readings = [self._heard(a.get("result", [])) for a in alternatives]
        scores = _posteriors([a.get("confidence", 0.0) for a in alternatives])
        texts = [tuple(w.text for w in words) for words, _ in readings]
        best_texts = tuple(w.text for w in best_words)
        others: dict[tuple[str, ...], Hypothesis] = {}
        for (words, unknown), text, score in zip(readings, texts, scores):
            if text != best_texts and text not in others and (words or unknown):
                sure = tuple(HeardWord(w.text, _word_posterior(w, readings, scores), w.start, w.end) for w in words)
                others[text] = Hypothesis(sure, score, unknown=unknown)
        best_score = sum(score for text, score in zip(texts, scores) if text == best_texts) if readings else 1.0
        return Utterance((Hypothesis(best_words, best_score, unknown=best_unknown), *others.values()), True, self.name)

    def _heard(self, raw: list[dict]) -> tuple[tuple[HeardWord, ...], int]:
        """Vosk's word dicts as HeardWords in stream time; unknown-word tokens are counted, not kept."""
        words, unknown = [], 0
        for item in raw:
            token = item.get("word", "")
            if token in UNKNOWN_TOKENS:
                unknown += 1
                continue
            words.append(HeardWord(self._spelling.get(token, token), float(item.get("conf", 1.0)),
                                   round(self._origin + item.get("start", 0.0), 3),
                                   round(self._origin + item.get("end", 0.0), 3)))
        return tuple(words), unknown


def _posteriors(scores: list[float]) -> list[float]:
    """Vosk's n-best scores (log-domain, higher is better) as probabilities over the list."""
    if not scores:
        return []
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    return [w / sum(weights) for w in weights]


def _word_posterior(word: HeardWord, readings: list[tuple[tuple[HeardWord, ...], int]],
                    scores: list[float]) -> float:
    """How much of the n-best mass has this word at an overlapping time: its confidence there."""
    return min(1.0, sum(score for (words, _), score in zip(readings, scores)
                        if any(o.text == word.text and o.start < word.end and word.start < o.end for o in words)))
