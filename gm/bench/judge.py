"""`gm bench judge`: how often the whole pipeline (recognizer -> referee -> events) gets the game right.

Every sample of the corpus is played through `gm.pipeline.run_audio` with a fresh referee put in the
moment its label describes, narration muted. The referee gets there the way a table would: typed
utterances played first through its own `hear` (the chain so far, rounds lost to bring a speaker down
to a last card, a kitten drawn before a Defuse). What the referee answers to the sample's own words,
typed, is the answer a perfect recognizer would get; a call is found when the audio gets that answer.

Chants go to the Ooga Booga referee, calls to the Exploding Kittens referee, chatter to both. Each
engine runs in its own process (as in `gm bench listen`) so its peak memory is its own: PocketSphinx
on the English samples, Vosk (only the packaged Korean model exists here) on the Korean calls, heard
through the kittens call path with the Korean words of `judge.toml`.
"""

from __future__ import annotations

import functools
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

SEED = 0
ENGINES = ("pocketsphinx", "vosk")
LANGUAGE = {"pocketsphinx": "en", "vosk": "ko"}
CALL_WORDS = Path(__file__).resolve().parent / "judge.toml"

HESITATION = 2.0
"""Seconds a named player may wait before starting: between the corpus's usual lead-in (0.3 s) and a
late talker's (2.5-4 s). Chatter is heard with no hesitation rule, so only words can cause actions."""
PARTY_PILE = 40
"""The Party Pack's draw pile as a table of five would count it after setup (the deck cannot say)."""
KITTEN_EDITIONS = ("exploding-kittens", "party-pack", "zombie-kittens")
PRELUDES = ((), ("skip",), ("exploding_kitten",), ("exploding_kitten", "defuse"),
            ("exploding_kitten", "zombie_kitten"), ("exploding_kitten", "boom"),
            ("exploding_kitten", "boom", "exploding_kitten"))
"""What may have happened before a call, tried in order until the call is a game action: nothing, a
card open to Nopes, a kitten drawn, a kitten put back (Defuse or Zombie Kitten), a player dead, a
player dead and another kitten drawn."""

QUIET = frozenset({"say_again", "not_understood", "refused", "turn", "resolved"})
"""Events that are no action of the utterance that caused them: asking again, refusing, saying whose
turn it is, settling a card played before (any call closes its Nope window)."""
VERDICTS = {"chant_ok": "accepted", "chant_wrong": "wrong", "round_lost": "wrong", "say_again": "again",
            "table_asked": "again", "refused": "again"}
"""The first of these events after a chant is the referee's verdict on it."""
CONDITIONS = ("clean", 24.0, 18.0, 12.0, 6.0)

TARGETS = {"clean": 0.99, "noisy": 0.98, "6 dB": 0.95, "false_lose": 0.005, "calls_12": 0.98, "spurious": 1.0,
           "again_clean": 0.03, "median": 0.200, "p95": 0.400}


class SetupError(ValueError):
    """The referee did not reach the moment a sample's label describes."""


# ---------------------------------------------------------------------------------------------
# Tables: a referee put in the moment a sample describes.

@dataclass(frozen=True)
class Table:
    """How to seat a referee: the game, the players, who starts, and what was said before.

    `before` holds typed utterances with the event each must first cause ("" for any event that is
    not a refusal)."""

    game: str
    players: tuple[str, ...]
    start: str
    before: tuple[tuple[str, str], ...] = ()
    hesitation: float | None = None
    language: str = "en"

    def seat(self, at: float):
        """A fresh referee after `before`, typed one second apart, the last at `at` seconds."""
        from gm.speech import Utterance

        referee = self._referee()
        referee.opening()
        for index, (text, expect) in enumerate(self.before):
            t = at - (len(self.before) - 1 - index)
            events = [o.name for o in referee.hear(Utterance.from_text(text, at=t), t) if _is_event(o)]
            if (expect and events[:1] != [expect]) or (not expect and (not events or events[0] in QUIET)):
                raise SetupError(f"{self.game}: {text!r} gave {events or 'no event'}, not {expect or 'an action'}")
        return referee

    def _referee(self):
        if self.game == "ooga-booga":
            from gm.bench.corpus import load_words
            from gm.ooga_booga.referee import OogaBoogaReferee
            return OogaBoogaReferee(self.players, ooga_phrases(), start=self.start,
                                    extra_words=load_words(self.language).card_words, hesitation=self.hesitation)
        from gm.kittens.referee import KittensReferee
        return KittensReferee(self.game, self.players, start=self.start, phrases=kittens_phrases(self.language),
                              pile=PARTY_PILE if self.game == "party-pack" else None)


@functools.lru_cache(maxsize=None)
def ooga_phrases():
    from gm.phrases import Phrases
    return Phrases.load("en", "ooga_booga")


@functools.lru_cache(maxsize=None)
def kittens_phrases(language: str):
    """The kittens phrases of the game; for another language, its calls from `judge.toml` in place of
    the English ones (the sentences stay English: narration is muted)."""
    from gm.phrases import Phrases

    english = Phrases.load("en", "exploding_kittens")
    if language == "en":
        return english
    tables = {**english.tables, **{name: entries for name, entries in _call_words(language).items()
                                   if isinstance(entries, dict)}}
    return Phrases(language, tables, (*english.sources, CALL_WORDS))


def _call_words(language: str) -> dict:
    table = tomllib.loads(CALL_WORDS.read_text(encoding="utf-8")).get(language)
    if table is None:
        raise ValueError(f"{CALL_WORDS} has no [{language}] table")
    return table


def kitten_players(language: str) -> tuple[str, ...]:
    """Who sits at the kittens table: the corpus's players, or for Korean those of `judge.toml`."""
    from gm.bench.corpus import load_words
    return load_words("en").players if language == "en" else tuple(_call_words(language)["players"])


def ooga_table(chant, language: str = "en") -> Table:
    """The Ooga Booga moment of `chant`: its chain said by the others in turn, the last of them naming
    the speaker; for a last card, two rounds first in which the speaker plays two cards and others lose."""
    from gm.bench.corpus import load_words

    words = load_words(language)
    speaker, named, chain = chant.speaker, chant.named, chant.chain
    card, ha, closing = words.card_words[0], words.pass_word, words.closing
    others = [p for p in words.players if p != speaker]
    helpers = [p for p in others if p != named]
    before: list[tuple[str, str]] = []
    first = None
    if chant.last_card:
        one, two = helpers[:2]
        before = [(f"{card} {ha} {one}", "chant_ok"), (f"{card} {card} {closing}", "chant_wrong"),
                  (f"{card} {ha} {speaker}", "chant_ok"), (f"{card} {card} {ha} {two}", "chant_ok"),
                  (f"{card} {card} {card} {closing}", "chant_wrong")]
        first = two
    order = _chain_players(others, len(chain), first, named)
    if not order:
        if first:
            raise SetupError(f"a last card with no chain cannot be set up: {chant!r}")
        order = [speaker]
    for index in range(len(chain)):
        to = order[index + 1] if index + 1 < len(chain) else speaker
        before.append((f"{' '.join(chain[:index + 1])} {ha} {to}", "chant_ok"))
    return Table("ooga-booga", words.players, speaker if chant.last_card else order[0], tuple(before),
                 HESITATION, language)


def _chain_players(others: list[str], size: int, first: str | None, not_last: str) -> list[str]:
    """Who said each chain word: nobody twice in a row or named back, at most two cards each,
    `first` opening, and not `not_last` naming the speaker (the speaker could not name them back)."""
    def extend(order: list[str]) -> list[str] | None:
        if len(order) == size:
            return order if not order or order[-1] != not_last else None
        for player in ([first] if first and not order else others):
            if player in order[-2:] or order.count(player) >= 2:
                continue
            found = extend([*order, player])
            if found is not None:
                return found
        return None

    found = extend([])
    if found is None:
        raise SetupError(f"no seating says a chain of {size} before {not_last!r} is named")
    return found


def kittens_table(text: str, language: str = "en", seated: str = "") -> Table:
    """The first moment (prelude, edition, starter) at which the call `text` is a game action; if it
    never is (a question, a name alone, a card needing a name), a plain first turn."""
    players = kitten_players(language)
    chosen = (*players[:4], seated if seated and seated not in players[:4] else players[4])
    return _kittens_table(text, language, chosen)


@functools.lru_cache(maxsize=None)
def _kittens_table(text: str, language: str, players: tuple[str, ...]) -> Table:
    phrases = kittens_phrases(language)
    say = {**phrases.table("calls"), **phrases.table("card_calls")}
    for prelude in PRELUDES:
        for game in KITTEN_EDITIONS:
            for start in players:
                table = Table(game, players, start, tuple((say[action][0], "") for action in prelude),
                              language=language)
                try:
                    answer = oracle(table, text, 0.0)
                except ValueError:  # the prelude did not happen, or this edition has calls with no words here
                    continue
                if any("event" in o and o["event"] not in QUIET for o in answer):
                    return table
    return Table(KITTEN_EDITIONS[0], players, players[0], language=language)


def oracle(table: Table, text: str, at: float) -> list[dict]:
    """What the referee answers to `text` typed: what a perfect recognizer would get."""
    from gm.speech import Utterance
    return [_record(o) for o in table.seat(at).hear(Utterance.from_text(text, at=at), at)]


def tables_for(sample) -> list[Table]:
    """The referees a sample is heard by: chants Ooga Booga, calls Exploding Kittens, chatter both."""
    from gm.bench.corpus import load_words

    if sample.kind == "chant":
        return [ooga_table(sample.label, sample.language)]
    if sample.kind == "call":
        return [kittens_table(sample.text, sample.language, sample.label.player)]
    players = load_words("en").players
    return [Table("ooga-booga", players, players[0]), Table(KITTEN_EDITIONS[0], players[:5], players[0])]


def _is_event(output) -> bool:
    from gm.events import Event
    return isinstance(output, Event)


def _record(output) -> dict:
    return {"event": output.name, "fields": output.fields} if _is_event(output) else {"say": output.text}


# ---------------------------------------------------------------------------------------------
# Worker: runs in the engine's own process.

def _session_class():
    from gm.pipeline import Session

    @dataclass
    class Watched(Session):
        """A session that also keeps each output: stream time, cause (opening, hear, tick, finish), which
        utterance caused it, and the wall-clock seconds since its chunk arrived (`_timed`)."""

        records: list = field(default_factory=list)
        cause: str = "opening"
        chunk_began: float = 0.0
        responses: int = 0
        heard: list = field(default_factory=list)

        def emit(self, outputs, t: float) -> None:
            outputs, now = list(outputs), time.perf_counter()
            self.records += [{**_record(o), "t": t, "cause": self.cause, "response": self.responses,
                              "wall": now - self.chunk_began} for o in outputs]
            super().emit(outputs, t)

        def hear(self, utterance, t: float) -> None:
            if utterance.words:
                self.responses += 1
                self.heard.append(utterance.text)
            cause, self.cause = self.cause, "hear"
            try:
                super().hear(utterance, t)
            finally:
                self.cause = cause

    return Watched


def _timed(chunks, session, clock=time.perf_counter):
    """The chunks as a microphone gives them, in real time: each one's processing begins when it is
    taken or, if the chunks before it took longer than their audio lasts, that much later (work done
    ahead, such as reading an utterance while the talker is quiet, delays the chunks after it).
    `chunk_began`: when, on the wall clock, a live session would have begun on the chunk."""
    behind, previous = 0.0, None
    for chunk in chunks:
        now = clock()
        if previous is not None:
            # How late the chunk before began, plus how long it took, less how long this one lasts.
            behind = max(0.0, now - session.chunk_began - (chunk.end - previous.end))
        session.cause, session.chunk_began = "tick", now - behind
        previous = chunk
        yield chunk
    session.cause = "finish"


def judge_sample(recognizer, sample, table: Table, pcm: bytes, offset: float, watched) -> dict:
    """Play one sample through the real pipeline at stream time `offset`; what came out, and when."""
    import io

    from gm.audio import BYTES_PER_SECOND, chunks_of
    from gm.events import EventLog
    from gm.narration import Narrator
    from gm.pipeline import run_audio

    expected = oracle(table, sample.text, offset + sample.lead_in) if sample.kind == "call" else None
    quiet = io.StringIO()
    session = watched(table.seat(offset), Narrator(quiet), EventLog(None), out=quiet)
    began = time.perf_counter()
    run_audio(session, recognizer, _timed(chunks_of(pcm, offset), session))
    recognizer.end_utterance()
    return {"id": sample.id, "game": table.game, "offset": offset, "seconds": len(pcm) / BYTES_PER_SECOND,
            "decode": time.perf_counter() - began, "expected": expected, "heard": session.heard,
            "records": [r for r in session.records if r["cause"] != "opening"], "error": ""}


def work(manifest: dict) -> dict:
    from gm.audio import BYTES_PER_SECOND
    from gm.bench.corpus import build_corpus
    from gm.bench.listen import status_mb
    from gm.recognizers import open_recognizer

    samples = {s.id: s for s in build_corpus(manifest["seed"], manifest["small"])}
    baseline = status_mb("VmRSS")
    recognizer, _ = open_recognizer(manifest["engine"], manifest["language"])
    watched, results, offset = _session_class(), [], 0.0
    for item in manifest["samples"]:
        sample, pcm = samples[item["id"]], Path(item["pcm"]).read_bytes()
        for number, table in enumerate(tables_for(sample)):
            try:
                result = judge_sample(recognizer, sample, table, pcm, offset, watched)
            except Exception as failure:  # counted against the run; the other samples still run
                recognizer.end_utterance()
                result = {"id": sample.id, "game": table.game, "offset": offset, "seconds": len(pcm) / BYTES_PER_SECOND,
                          "decode": 0.0, "expected": None, "heard": [], "records": [],
                          "error": f"{type(failure).__name__}: {failure}"}
            results.append({**result, "referee": number, "speech_end": item["speech_end"]})
            offset += result["seconds"] + 1.0
    recognizer.close()
    return {"baseline_mb": baseline, "peak_mb": status_mb("VmHWM"), "results": results}


def _worker_main(argv: list[str]) -> int:
    manifest_path, result_path = Path(argv[0]), Path(argv[1])
    try:
        report = work(json.loads(manifest_path.read_text()))
    except Exception as error:  # reported to the parent as data: one engine failing must not stop the others
        report = {"error": f"{type(error).__name__}: {error}"}
    result_path.write_text(json.dumps(report, ensure_ascii=False))
    return 0


# ---------------------------------------------------------------------------------------------
# Parent: renders the corpus, runs the workers, turns their results into figures.

def run(args) -> int:
    from gm.bench.corpus import build_corpus

    engines = ENGINES if args.engine == "all" else (args.engine,)
    samples = build_corpus(SEED, small=args.small)
    runs = {}
    with tempfile.TemporaryDirectory(prefix="gm-judge-") as folder:
        for engine in engines:
            runs[engine] = _spawn(_manifest(engine, samples, Path(folder), args.small), Path(folder), engine)
    measured = {engine: figures(engine, run, samples) for engine, run in runs.items()}
    report_path = args.report or Path("BENCHMARKS-judge.md")
    plot_path = report_path.with_suffix(".png")
    plot_path.parent.mkdir(parents=True, exist_ok=True)
    text = report(measured, args.small, plot_path.name)
    from gm.bench.plot import plot_by_condition
    plot_by_condition(plot_path, {label: values for m in measured.values() for label, values in m.lines.items()},
                      [_condition_name(c) for c in CONDITIONS], "right answers (%)",
                      f"gm bench judge ({'small' if args.small else 'full'} corpus)")
    print(text, flush=True)
    if args.report:
        args.report.write_text(text + "\n", encoding="utf-8")
        args.report.with_suffix(".json").write_text(json.dumps(runs, ensure_ascii=False), encoding="utf-8")
        print(f"report written to {args.report}, what each sample got in {args.report.with_suffix('.json')}",
              file=sys.stderr)
    print(f"plot written to {plot_path}", file=sys.stderr)
    return 0 if all(not m.error for m in measured.values()) else 1


def _manifest(engine: str, samples, folder: Path, small: bool) -> Path:
    """Render the engine's samples to raw PCM files, each with the second its last word ends."""
    from gm.audio import to_pcm16

    language = LANGUAGE[engine]
    mine = [s for s in samples if s.language == language]
    listed = []
    for index, sample in enumerate(mine):
        path = folder / f"{sample.id}.pcm"
        print(f"\rrendering {language} audio {index + 1}/{len(mine)}", end="", file=sys.stderr, flush=True)
        path.write_bytes(to_pcm16(sample.audio()))
        listed.append({"id": sample.id, "pcm": str(path),
                       "speech_end": sample.last_word_end()})
    print(file=sys.stderr)
    manifest = folder / f"{engine}-judge.json"
    manifest.write_text(json.dumps({"engine": engine, "language": language, "seed": SEED, "small": small,
                                    "samples": listed}, ensure_ascii=False))
    return manifest


def _spawn(manifest: Path, folder: Path, engine: str) -> dict:
    result = folder / f"{engine}-judge-result.json"
    print(f"judging with {engine} ...", file=sys.stderr, flush=True)
    process = subprocess.run([sys.executable, "-m", "gm.bench.judge", "--worker", str(manifest), str(result)],
                             capture_output=True, text=True)
    if not result.exists():
        tail = " ".join(process.stderr.strip().splitlines()[-2:])
        return {"error": f"the worker stopped (exit {process.returncode}): {tail or 'no message'}"}
    return json.loads(result.read_text())


# ---------------------------------------------------------------------------------------------
# Figures

@dataclass
class Figures:
    """One engine's judging figures; None where the engine heard no such samples."""

    engine: str
    error: str = ""
    rows: list = field(default_factory=list)
    """Verdicts per condition: (condition, chants, right, again, wrong verdict, none)."""
    mistakes: list = field(default_factory=list)
    """Right verdicts per kind of mistake: (mistake, chants, right)."""
    talkers: list = field(default_factory=list)
    """Right verdicts per kind of talker: (talker, chants, right, clean chants, right of those)."""
    readings: list = field(default_factory=list)
    """What the recognizer's reading allows, per condition: (condition, chants heard, share read word for
    word, right verdicts on those, right verdicts on the rest). Typed, every chant is judged right (the
    tests), so this splits what the recognizer loses from what the judge does."""
    right: dict = field(default_factory=dict)
    false_lose: float | None = None
    right_chants: int = 0
    """How many right chants `false_lose` is counted over."""
    later_lose: float | None = None
    """Right chants lost on a later piece of the same chant, heard after a first answer (with narration
    muted the microphone is never deaf, so the rest of a chant split in two is judged as a new one)."""
    missed: float | None = None
    again_clean: float | None = None
    again_all: float | None = None
    calls: list = field(default_factory=list)
    """Per card: (card, samples, found, precision; None when the call is no game action, "none given"
    when no answer of its kind was given)."""
    calls_by_condition: dict = field(default_factory=dict)
    spurious: dict = field(default_factory=dict)
    """Per referee: (actions, minutes of chatter)."""
    latency: list = field(default_factory=list)
    moments: list = field(default_factory=list)
    """Of each timed verdict: the stream time it was decided at, after the last word."""
    call_latency: list = field(default_factory=list)
    rtf: float | None = None
    peak_mb: float | None = None
    audio: float = 0.0
    failed: list = field(default_factory=list)
    lines: dict = field(default_factory=dict)
    """Plot lines: label -> right answers (%) per condition."""


def figures(engine: str, run: dict, samples) -> Figures:
    """Everything the report shows, from one engine's results."""
    if "error" in run:
        return Figures(engine, run["error"])
    by_id = {s.id: s for s in samples}
    found = Figures(engine, peak_mb=run["peak_mb"])
    results = run["results"]
    found.failed = [(r["id"], r["error"]) for r in results if r["error"]]
    good = [(by_id[r["id"]], r) for r in results if not r["error"]]
    found.audio = sum(r["seconds"] for r in results)
    decode = sum(r["decode"] for _, r in good)
    found.rtf = decode / sum(r["seconds"] for _, r in good) if good else None
    _chant_figures(found, [(s, r) for s, r in good if s.kind == "chant"])
    _call_figures(found, [(s, r) for s, r in good if s.kind == "call"],
                  [r for s, r in good if s.kind == "chatter" and r["game"] != "ooga-booga"])
    for s, r in good:
        if s.kind == "chatter":
            actions, minutes = found.spurious.get(r["game"], (0, 0.0))
            found.spurious[r["game"]] = (actions + len(_actions(r)), minutes + r["seconds"] / 60)
    return found


def _condition(sample):
    return "clean" if sample.snr is None else sample.snr


def _condition_name(condition) -> str:
    return condition if condition == "clean" else f"{condition:g} dB"


def verdict(result: dict) -> str:
    """The referee's first verdict on a chant: accepted, wrong, again, or none."""
    return next((VERDICTS[r["event"]] for r in result["records"]
                 if r.get("event") in VERDICTS and r["cause"] != "finish"), "none")


def is_right(sample, result: dict) -> bool:
    return verdict(result) == ("accepted" if sample.label.mistake == "none" else "wrong")


def _chant_figures(found: Figures, chants) -> None:
    from gm.bench.corpus import MISTAKES, talker_groups

    if not chants:
        return
    for condition in CONDITIONS:
        pairs = [(s, r) for s, r in chants if _condition(s) == condition]
        if pairs:
            counts = [sum(verdict(r) == v for _, r in pairs) for v in ("again", "none")]
            right = sum(is_right(s, r) for s, r in pairs)
            found.right[condition] = right / len(pairs)
            found.rows.append((_condition_name(condition), len(pairs), right / len(pairs), counts[0] / len(pairs),
                               (len(pairs) - right - counts[0] - counts[1]) / len(pairs), counts[1] / len(pairs)))
    found.lines[f"{found.engine}: chant verdicts right"] = [
        None if c not in found.right else 100 * found.right[c] for c in CONDITIONS]
    for mistake in MISTAKES:
        pairs = [(s, r) for s, r in chants if s.label.mistake == mistake]
        if pairs:
            found.mistakes.append((mistake, len(pairs), sum(is_right(s, r) for s, r in pairs) / len(pairs)))
    _reading_figures(found, [(s, r) for s, r in chants if s.label.mistake != "late"])
    for name, test in talker_groups():
        pairs = [(s, r) for s, r in chants if test(s.voice)]
        clean = [(s, r) for s, r in pairs if s.snr is None]
        if pairs:
            found.talkers.append((name, len(pairs), sum(is_right(s, r) for s, r in pairs) / len(pairs), len(clean),
                                  sum(is_right(s, r) for s, r in clean) / len(clean) if clean else None))
    right = [r for s, r in chants if s.label.mistake == "none"]
    wrong = [r for s, r in chants if s.label.mistake != "none"]
    if right:
        found.right_chants = len(right)
        found.false_lose = sum(verdict(r) == "wrong" for r in right) / len(right)
        found.later_lose = sum(verdict(r) != "wrong" and any(x.get("event") in ("chant_wrong", "round_lost")
                                                             for x in r["records"]) for r in right) / len(right)
    if wrong:
        found.missed = sum(verdict(r) == "accepted" for r in wrong) / len(wrong)
    clean = [r for s, r in chants if s.snr is None]
    found.again_clean = sum(verdict(r) == "again" for r in clean) / len(clean) if clean else None
    found.again_all = sum(verdict(r) == "again" for _, r in chants) / len(chants)
    for s, r in chants:
        first = next((x for x in r["records"] if x.get("event") in VERDICTS), None)
        if first and first["cause"] == "hear" and s.label.mistake != "late":
            found.latency.append(_latency(first, r))
            found.moments.append(_moment(first, r))


def _reading_figures(found: Figures, chants) -> None:
    """Right verdicts on chants whose first reading was word for word what was said, and on the rest."""
    def right(group) -> float | None:
        return sum(is_right(s, r) for s, r in group) / len(group) if group else None

    for condition in CONDITIONS:
        exact, misread = [], []
        for s, r in chants:
            if _condition(s) == condition:
                (exact if r["heard"][:1] == [s.text] else misread).append((s, r))
        if exact or misread:
            heard = len(exact) + len(misread)
            found.readings.append((_condition_name(condition), heard, len(exact) / heard, right(exact), right(misread)))


def _moment(record: dict, result: dict) -> float:
    """Seconds from the end of the last word to the stream time of the chunk an output was decided at."""
    return record["t"] - (result["offset"] + result["speech_end"])


def _latency(record: dict, result: dict) -> float:
    """Seconds from the end of the last word to the output: its moment in the stream, plus the
    wall-clock time from that chunk's arrival to the output (the wait behind slower chunks included)."""
    return _moment(record, result) + record["wall"]


def _responses(result: dict) -> list[list[dict]]:
    """What the referee answered to each utterance heard, as the oracle writes answers."""
    answers: dict[int, list[dict]] = {}
    for r in result["records"]:
        if r["cause"] == "hear":
            answers.setdefault(r["response"], []).append({k: r[k] for k in ("event", "fields", "say") if k in r})
    return list(answers.values())


def _signature(answer: list[dict]) -> tuple[str, ...]:
    """The kind of game action an answer is ("card:attack", "draw", ...); empty when it changes nothing."""
    events = [o for o in answer if "event" in o and o["event"] not in QUIET]
    return tuple(o["event"] + (f":{o['fields']['card']}" if "card" in o["fields"] else "") for o in events)


def answered(expected: list[dict], responses: list[list[dict]]) -> bool:
    """The audio got the typed call's answer; when that answer is "not understood" (a name alone, words
    that are no call), any "not understood" will do, so long as nothing happened in the game."""
    if expected[:1] and expected[0].get("event") == "not_understood":
        return (any(a[:1] and a[0].get("event") == "not_understood" for a in responses)
                and not any(_signature(a) for a in responses))
    return expected in responses


def _no_call(expected: list[dict]) -> bool:
    """The typed words are no call of the game at all (a name alone, other words)."""
    return bool(expected[:1]) and expected[0].get("event") == "not_understood" and \
        expected[0]["fields"].get("reason") == "unknown"


def _actions(result: dict) -> list[list[dict]]:
    return [a for a in _responses(result) if _signature(a)]


def _card(sample) -> str:
    return sample.label.call or "(a name alone)"


def _call_figures(found: Figures, calls, chatter: list[dict]) -> None:
    """Recall per card (the audio got the typed call's answer) and precision (of the answers of that
    kind given anywhere, in calls and in chatter, how many were said)."""
    if not calls:
        return
    hit = {s.id: answered(r["expected"], _responses(r)) for s, r in calls}
    kinds: dict[str, set] = {}
    for s, r in calls:
        if _signature(r["expected"]):
            kinds.setdefault(_card(s), set()).add(_signature(r["expected"]))
    given = [a for _, r in calls for a in _actions(r)] + [a for r in chatter for a in _actions(r)]
    for card in dict.fromkeys(_card(s) for s, _ in calls):
        mine = [s for s, _ in calls if _card(s) == card]
        claimed = sum(_signature(a) in kinds.get(card, ()) for a in given)
        right = sum(hit[s.id] for s in mine)
        precision = (right / claimed if claimed else "none given") if card in kinds else None
        found.calls.append((card, len(mine), right / len(mine), precision))
    real = [(s, r) for s, r in calls if not _no_call(r["expected"])]
    for condition in CONDITIONS:
        mine = [s for s, _ in real if _condition(s) == condition]
        if mine:
            found.calls_by_condition[condition] = sum(hit[s.id] for s in mine) / len(mine)
    language = calls[0][0].language
    label = f"{found.engine}: calls found" + ("" if language == "en" else f" ({language})")
    found.lines[label] = [100 * found.calls_by_condition[c] if c in found.calls_by_condition else None
                          for c in CONDITIONS]
    for s, r in calls:
        first = next((x for x in r["records"] if x["cause"] == "hear"), None)
        if first and hit[s.id]:
            found.call_latency.append(_latency(first, r))


# ---------------------------------------------------------------------------------------------
# Report

def report(measured: dict[str, Figures], small: bool, plot_name: str) -> str:
    from gm.bench.listen import machine

    lines = [f"# gm bench judge ({'small' if small else 'full'} corpus, seed {SEED})", "", machine(), "",
             f"Each sample through the whole pipeline (recognizer, referee, events; narration muted), the "
             f"referee first put in the sample's moment by typed utterances. Hesitation limit {HESITATION:g} s. "
             f"Right answers vs SNR: `{plot_name}`.", ""]
    lines += ["## Targets", ""] + _targets(measured) + [""]
    for m in measured.values():
        lines += [f"## {m.engine}", ""]
        if m.engine == "vosk":
            lines += ["Vosk has only the packaged Korean model here (the English model cannot be downloaded): "
                      "it hears the corpus's Korean calls, spoken by espeak-ng, through the kittens call path "
                      "with the Korean words of gm/bench/judge.toml. No chants, no chatter.", ""]
        if m.error:
            lines += [f"not measured: {m.error}", ""]
            continue
        lines += _sections(m)
    return "\n".join(lines).rstrip()


def _targets(measured: dict[str, Figures]) -> list[str]:
    rows = []

    def row(name: str, target: str, value, ok, fmt=lambda v: f"{100 * v:.1f}%") -> None:
        for m in measured.values():
            figure = value(m)
            shown, met = ("-", "") if figure is None else (fmt(figure), "met" if ok(figure) else "not met")
            rows.append((name, m.engine, shown, target, met))

    noisy = lambda m: (statistics.mean(m.right[c] for c in CONDITIONS[1:])  # noqa: E731
                       if all(c in m.right for c in CONDITIONS[1:]) else None)
    worst = lambda m: (max(a / mn * 10 for a, mn in m.spurious.values())  # noqa: E731
                       if m.spurious else None)
    row("right verdicts, clean", ">= 99%", lambda m: m.right.get("clean"), lambda v: v >= TARGETS["clean"])
    row("right verdicts, mean of 24-6 dB", ">= 98%", noisy, lambda v: v >= TARGETS["noisy"])
    row("right verdicts, 6 dB", ">= 95%", lambda m: m.right.get(6.0), lambda v: v >= TARGETS["6 dB"])
    row("false \"you lose\" on right chants", "<= 0.5%", lambda m: m.false_lose, lambda v: v <= TARGETS["false_lose"])
    row("\"say again\", clean", "<= 3%", lambda m: m.again_clean, lambda v: v <= TARGETS["again_clean"])
    row("calls found, 12 dB", ">= 98%", lambda m: m.calls_by_condition.get(12.0), lambda v: v >= TARGETS["calls_12"])
    row("spurious actions per 10 min of chatter (worst referee)", "<= 1", worst,
        lambda v: v <= TARGETS["spurious"], lambda v: f"{v:.1f}")
    row("verdict latency, median", "<= 200 ms", lambda m: _quantile(m.latency, 0.5),
        lambda v: v <= TARGETS["median"], lambda v: f"{1000 * v:.0f} ms")
    row("verdict latency, p95", "<= 400 ms", lambda m: _quantile(m.latency, 0.95),
        lambda v: v <= TARGETS["p95"], lambda v: f"{1000 * v:.0f} ms")
    return markdown_table(("figure", "engine", "value", "target", ""), rows)


def _sections(m: Figures) -> list[str]:
    from gm.bench.corpus import LAST_WORD_DB

    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    lines = []
    if m.rows:
        lines += ["### Chant verdicts by condition", ""]
        lines += markdown_table(("condition", "chants", "right", "say again", "wrong verdict", "no verdict"),
                        [(c, str(n), *(pct(v) for v in values)) for c, n, *values in m.rows]) + [""]
        lines += markdown_table(("mistake", "chants", "right verdicts"),
                        [(k, str(n), pct(v)) for k, n, v in m.mistakes]) + [""]
        lines += markdown_table(("talker", "chants", "right verdicts", "clean chants", "right verdicts, clean"),
                        [(k, str(n), pct(v), str(nc), pct(vc)) for k, n, v, nc, vc in m.talkers]) + [""]
        lines += ["What the reading allows: chants (late ones left out) whose first reading was word for word what "
                  "was said, and the right verdicts on those and on the rest. Typed, every chant of the corpus "
                  "is judged right.", ""]
        lines += markdown_table(("condition", "chants", "read word for word", "right verdicts, read so",
                                 "right verdicts, misread"),
                                [(c, str(n), *(pct(v) for v in values)) for c, n, *values in m.readings]) + [""]
        lines += markdown_table(("chant figure", "value"), [
            ("false \"you lose\" on right chants", pct(m.false_lose) if m.false_lose is None else
             f"{pct(m.false_lose)} ({round(m.false_lose * m.right_chants)} of {m.right_chants})"),
            ("right chants lost on a later piece, after a first answer", pct(m.later_lose)),
            ("mistakes missed (wrong chant accepted)", pct(m.missed)),
            ("\"say again\", clean", pct(m.again_clean)),
            ("\"say again\", overall", pct(m.again_all)),
        ]) + [""]
    if m.calls:
        lines += ["### Calls", "",
                  "Found: the audio got the answer the typed call gets. Precision: of the answers of that kind "
                  "given anywhere (calls and chatter), the share that was said; '-' where the call changes "
                  "nothing in the game (a question, a name alone, a card said without its name). Calls found "
                  "by condition leave out words that are no call (a name alone, other words).", ""]
        lines += markdown_table(("call", "samples", "found", "precision"),
                        [(c, str(n), pct(r), p if isinstance(p, str) else pct(p)) for c, n, r, p in m.calls])
        lines += [""]
        lines += markdown_table(("condition", "calls found"), [(_condition_name(c), pct(v))
                                                        for c, v in m.calls_by_condition.items()]) + [""]
    if m.spurious:
        lines += ["### Chatter", ""]
        lines += markdown_table(("referee", "chatter (min)", "game actions", "per 10 min"),
                        [(game, f"{mn:.1f}", str(a), f"{a / mn * 10:.1f}") for game, (a, mn) in m.spurious.items()])
        lines += [""]
    ms = lambda v: "-" if v is None else f"{1000 * v:.0f}"  # noqa: E731
    lines += ["### Latency and cost", "",
              f"Latency: from the end of the last word (where the talker's sound falls {LAST_WORD_DB:g} dB under "
              "its loudest) to the event, as the stream time of the chunk it was decided at plus that chunk's "
              "processing time and any wait behind chunks before it that took longer than their audio lasts. "
              "Late chants (lost to the hesitation limit before they start) are left out.", ""]
    lines += markdown_table(("figure", "value"), [
        ("verdict latency, median (ms)", ms(_quantile(m.latency, 0.5))),
        ("verdict latency, p95 (ms)", ms(_quantile(m.latency, 0.95))),
        ("verdicts timed", str(len(m.latency))),
        ("verdict decided at, after the last word, median (ms)", ms(_quantile(m.moments, 0.5))),
        ("processing after that moment, median (ms)",
         ms(_quantile([t - at for t, at in zip(m.latency, m.moments)], 0.5))),
        ("call answer latency, median (ms)", ms(_quantile(m.call_latency, 0.5))),
        ("call answer latency, p95 (ms)", ms(_quantile(m.call_latency, 0.95))),
        ("real-time factor (whole pipeline)", "-" if m.rtf is None else f"{m.rtf:.3f}"),
        ("peak RSS (MB)", "-" if m.peak_mb is None else f"{m.peak_mb:.0f}"),
        ("audio judged (s)", f"{m.audio:.0f}"),
    ]) + [""]
    if m.failed:
        lines += [f"{len(m.failed)} runs failed (left out of every figure), first: {m.failed[0][0]}: "
                  f"{m.failed[0][1]}", ""]
    return lines


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def markdown_table(header, rows):
    from gm.bench.listen import markdown_table as table
    return table(header, rows)


if __name__ == "__main__" and sys.argv[1:2] == ["--worker"]:
    sys.exit(_worker_main(sys.argv[2:]))
