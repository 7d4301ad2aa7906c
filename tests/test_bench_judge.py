"""The judging benchmark: referees seated at each sample's moment, how answers are scored, and a small
run of `gm bench judge` that writes its whole report and a real PNG."""

import json
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from gm.audio import AudioChunk
from gm.bench import judge
from gm.bench.corpus import Chant, build_corpus
from gm.speech import Utterance

CORPUS = build_corpus(0)
CHANTS = [s for s in CORPUS if s.kind == "chant"][:72]


def typed(table, text: str, at: float, start: float | None = None) -> list[str]:
    """The events a seated referee gives to typed words (a perfect recognizer)."""
    referee = table.seat(at)
    spoken = at if start is None else start
    return [o.name for o in referee.hear(Utterance.from_text(text, at=spoken), spoken) if judge._is_event(o)]


class TestSeatingChants:
    @pytest.mark.parametrize("sample", CHANTS, ids=lambda s: s.id)
    def test_the_right_chant_typed_is_accepted_at_every_moment(self, sample):
        events = typed(judge.ooga_table(sample.label), " ".join(sample.label.expected), 10.0, 10.3)
        assert events[:1] == ["chant_ok"]

    @pytest.mark.parametrize("sample", [s for s in CHANTS if s.label.mistake != "none"], ids=lambda s: s.id)
    def test_typed_mistakes_are_never_accepted_and_late_ones_lose(self, sample):
        events = typed(judge.ooga_table(sample.label), sample.text, 10.0, 10.0 + sample.lead_in)
        assert events[0] != "chant_ok"
        if sample.label.mistake == "late":
            assert events[0] == "round_lost"

    def test_a_last_card_is_reached_by_two_lost_rounds(self):
        chant = Chant(("pooka",), "ska", "cy", "ana", True)
        table = judge.ooga_table(chant)
        assert len(table.before) == 6
        assert typed(table, "pooka ska ooga booga", 5.0)[:1] == ["chant_ok"]
        assert "chant_wrong" in typed(table, "pooka ska ha bo", 5.0)

    def test_the_speaker_is_never_named_back_by_the_one_they_name(self):
        chant = Chant(("pooka", "ska", "zee"), "aka", "bo", "cy", False)
        table = judge.ooga_table(chant)
        assert typed(table, "pooka ska zee aka ha cy", 5.0)[:1] == ["chant_ok"]

    def test_a_setup_that_goes_wrong_is_an_error_not_a_silent_state(self):
        table = judge.Table("ooga-booga", ("ana", "bo", "cy", "dee"), "ana", (("pooka ha ana", "chant_ok"),))
        with pytest.raises(judge.SetupError):
            table.seat(0.0)


class TestSeatingCalls:
    @pytest.mark.parametrize("text, action", [
        ("nope", "nope"), ("defuse", "defused"), ("boom", "eliminated"), ("clairvoyance", "card"),
        ("zombie kitten bo", "zombie_saved"), ("targeted attack cy", "card"), ("dig deeper", "card"),
    ])
    def test_calls_that_need_a_moment_get_one(self, text, action):
        table = judge.kittens_table(text, "en", text.split()[-1] if text.endswith(("bo", "cy")) else "")
        assert judge.oracle(table, text, 3.0)[0]["event"] == action

    def test_words_that_are_no_call_get_a_plain_first_turn(self):
        table = judge.kittens_table("ana", "en", "ana")
        assert table.before == () and judge._no_call(judge.oracle(table, "ana", 1.0))

    def test_korean_calls_are_heard_with_korean_words_only(self):
        table = judge.kittens_table("미래 보기", "ko")
        assert judge.oracle(table, "미래 보기", 1.0)[0]["fields"]["card"] == "see_the_future"
        words = table.seat(0.0).vocabulary()
        assert words and all(not w.isascii() for w in words)


def result(*records, offset=10.0, speech_end=2.0):
    return {"records": list(records), "offset": offset, "speech_end": speech_end}


def event(name, cause="hear", t=12.3, wall=0.05, response=1, **fields):
    return {"event": name, "fields": fields, "t": t, "cause": cause, "wall": wall, "response": response}


class TestScoring:
    def test_the_first_verdict_event_counts(self):
        assert judge.verdict(result(event("say_again"), event("chant_wrong"))) == "again"
        assert judge.verdict(result(event("turn"), event("chant_wrong"), event("round_lost"))) == "wrong"
        assert judge.verdict(result(event("round_lost", cause="tick"))) == "wrong"
        assert judge.verdict(result(event("chant_ok", cause="finish"))) == "none"
        assert judge.verdict(result()) == "none"

    def test_latency_is_stream_time_past_the_speech_end_plus_processing(self):
        record = event("chant_ok", t=12.3, wall=0.05)
        assert judge._latency(record, result(record)) == pytest.approx(0.35)

    def test_a_chunk_waits_while_the_chunks_before_it_take_longer_than_the_audio_lasts(self):
        """Chunks of 0.1 s; the second takes 0.35 s to process (a reading made ahead), the others
        0.02 s: the third begins 0.25 s late, the fourth 0.17 s, and so on until they have caught up."""
        took = [0.02, 0.35, 0.02, 0.02, 0.02, 0.02, 0.02]
        chunks = [AudioChunk(round(0.1 * n, 1), bytes(3200)) for n in range(len(took))]
        clock = iter([sum(took[:n]) for n in range(len(took) + 1)])
        session = SimpleNamespace(cause="", chunk_began=0.0)
        late = []
        for n, _ in enumerate(judge._timed(chunks, session, lambda: next(clock))):
            late.append(round(sum(took[:n]) - session.chunk_began, 3))
        assert late == [0.0, 0.0, 0.25, 0.17, 0.09, 0.01, 0.0]

    def test_chants_read_word_for_word_are_counted_apart_from_misread_ones(self):
        said = [s for s in CHANTS if s.label.mistake == "none" and s.snr is None][:3]
        heard = [[said[0].text], [said[1].text], ["ooga"]]
        verdicts = ["chant_ok", "say_again", "chant_ok"]
        run = {"peak_mb": 1.0, "results": [
            {**result(event(v, t=20.0 * n + 1.5, wall=0.1), offset=20.0 * n, speech_end=1.0), "id": s.id,
             "heard": h, "seconds": 3.0, "decode": 0.3, "error": "", "game": "ooga-booga"}
            for n, (s, h, v) in enumerate(zip(said, heard, verdicts))]}
        found = judge.figures("pocketsphinx", run, said)
        assert found.readings == [("clean", 3, pytest.approx(2 / 3), 0.5, 1.0)]
        assert found.moments == pytest.approx([0.5] * 3)
        assert found.latency == pytest.approx([0.6] * 3)

    def test_not_understood_is_found_by_any_not_understood_without_an_action(self):
        expected = [{"event": "not_understood", "fields": {"words": "ana", "reason": "unknown"}}]
        asked = [[{"event": "not_understood", "fields": {"words": "ana ana", "reason": "unknown"}}]]
        acted = asked + [[{"event": "card", "fields": {"card": "attack"}}]]
        assert judge.answered(expected, asked)
        assert not judge.answered(expected, acted)
        assert not judge.answered(expected, [])

    def test_an_action_is_found_only_by_the_same_answer(self):
        expected = [{"event": "card", "fields": {"player": "ana", "card": "skip", "target": None}}]
        assert judge.answered(expected, [expected])
        assert not judge.answered(expected, [[{"event": "card", "fields": {"player": "ana", "card": "attack",
                                                                         "target": None}}]])

    def test_settling_an_earlier_card_is_no_action_of_the_utterance(self):
        answer = [{"event": "resolved", "fields": {"card": "skip"}}, {"event": "turn", "fields": {}},
                  {"event": "card", "fields": {"card": "attack"}}]
        assert judge._signature(answer) == ("card:attack",)
        assert judge._signature(answer[:2]) == ()


def test_the_chatter_that_once_crashed_pocketsphinx_is_judged():
    """Table talk that pauses and goes on, heard by the Ooga Booga referee: read ahead in a pause,
    then decoded live again. (Going on by decoding all its audio so far at once crashed PocketSphinx
    on this sample.)"""
    from gm.audio import to_pcm16
    from gm.recognizers import open_recognizer

    sample = next(s for s in CORPUS if s.id == "chatter-en-0426")
    recognizer, _ = open_recognizer("pocketsphinx", "en")
    result = judge.judge_sample(recognizer, sample, judge.tables_for(sample)[0], to_pcm16(sample.audio()), 0.0,
                                judge._session_class())
    assert result["heard"] and not judge._actions(result)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judge")
    report = folder / "judge.md"
    process = subprocess.run([sys.executable, "-m", "gm", "bench", "judge", "--small", "--report", str(report)],
                             capture_output=True, text=True, timeout=600)
    return process, report


class TestSmallRun:
    def test_it_runs_and_writes_the_report_it_prints(self, small_run):
        process, report = small_run
        assert process.returncode == 0, process.stderr[-2000:]
        assert report.read_text(encoding="utf-8").strip() == process.stdout.strip()
        raw = json.loads(report.with_suffix(".json").read_text(encoding="utf-8"))
        assert set(raw) == {"pocketsphinx", "vosk"} and all(run["results"] for run in raw.values())

    def test_the_report_has_every_section_and_figure(self, small_run):
        text = small_run[1].read_text(encoding="utf-8")
        for part in ["Machine:", "lost on a later piece", "## Targets", "## pocketsphinx", "## vosk", "### Chant verdicts by condition",
                     "| clean ", "| 24 dB ", "| 18 dB ", "| 12 dB ", "| 6 dB ", "say again", "wrong verdict",
                     "| talker ", "right verdicts, clean",
                     "false \"you lose\" on right chants", "mistakes missed", "\"say again\", overall",
                     "### Calls", "precision", "calls found", "### Chatter", "per 10 min",
                     "read word for word", "right verdicts, misread",
                     "verdict latency, median", "verdict latency, p95", "verdict decided at", "processing after", "real-time factor", "peak RSS (MB)"]:
            assert part in text, part
        assert re.search(r'false "you lose" on right chants +\| [\d.]+% \(\d+ of [1-9]\d*\)', text)
        targets = text.split("## Targets")[1].split("## pocketsphinx")[0]
        rows = [line for line in targets.splitlines() if "| pocketsphinx" in line]
        cells = [[c.strip() for c in line.split("|")[1:-1]] for line in rows]
        assert len(rows) == 9 and all(c[4] in ("met", "not met") or (c[2], c[4]) == ("-", "") for c in cells)
        assert sum(c[4] != "" for c in cells) >= 5

    def test_the_plot_is_a_real_png(self, small_run):
        data = small_run[1].with_suffix(".png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) > 5000
