"""The benchmark corpus: deterministic from a seed, labels that match what is spoken, noise at the SNR
asked for; and `gm bench listen --small` runs and reports its figures."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from gm.bench.corpus import (CLEAN, LATE_LEAD_IN, LEAD_IN, MISTAKES, NOISES, PITCHES, SNRS, TAIL, Call, Chant,
                             Chatter, build_corpus, load_words, talker_groups, vocabulary)
from gm.speech import SAMPLE_RATE, normalize_words
from gm.synth import PIPER, Voice, rms

FULL = build_corpus(seed=0)
SMALL = build_corpus(seed=0, small=True)
CHANTS = [s for s in FULL if s.kind == "chant"]
WORDS = load_words("en")

CARD_CALLS = ["attack", "targeted attack", "skip", "super skip", "nope", "favor", "shuffle", "see the future",
              "alter the future", "draw from the bottom", "dig deeper", "clone", "feed the dead", "grave robber",
              "clairvoyance", "attack of the dead", "defuse", "zombie kitten"]
"""The card names of the three editions."""


class TestDeterminism:
    def test_the_same_seed_gives_the_same_samples_and_labels(self):
        assert build_corpus(seed=0) == FULL
        assert build_corpus(seed=7, small=True) == build_corpus(seed=7, small=True)

    def test_a_voice_with_sox_effects_speaks_the_same_every_time(self):
        """sox dithers with a random seed unless told to repeat itself: the corpus would change
        from run to run, and so would every figure measured on it."""
        from gm.synth import speak
        voice = Voice("espeak", "en-us", 160, pitch=2, tempo=0.9, reverb=25)
        assert np.array_equal(speak("pooka ska", voice), speak("pooka ska", voice))

    def test_another_seed_gives_other_samples(self):
        other = build_corpus(seed=1)
        assert [s.text for s in other] != [s.text for s in FULL]
        assert [s.label for s in other] != [s.label for s in FULL]

    def test_sample_ids_are_unique(self):
        assert len({s.id for s in FULL}) == len(FULL)


class TestChantLabels:
    @pytest.mark.parametrize("sample", CHANTS, ids=lambda s: s.id)
    def test_the_label_says_what_was_spoken(self, sample):
        chant, spoken, expected = sample.label, list(sample.words), list(sample.label.expected)
        assert isinstance(chant, Chant)
        assert 1 <= len(chant.chain) <= 7
        assert set(chant.chain) | {chant.new_word} <= set(WORDS.card_words)
        assert chant.named != chant.speaker
        assert expected[-2:] == (["ooga", "booga"] if chant.last_card else ["ha", chant.named])
        if chant.mistake in ("none", "late"):
            assert spoken == expected and chant.at == ()
        elif chant.mistake == "skip":
            (i,) = chant.at
            assert i < len(chant.chain)
            assert spoken == expected[:i] + expected[i + 1:]
        elif chant.mistake == "swap":
            i, j = chant.at
            assert j == i + 1 <= len(chant.chain)
            assert spoken[i] == expected[j] and spoken[j] == expected[i] and spoken[i] != spoken[j]
            assert spoken[:i] + spoken[j + 1:] == expected[:i] + expected[j + 1:]
        elif chant.mistake == "wrong":
            (i,) = chant.at
            assert i < len(chant.chain)
            assert [k for k, (a, b) in enumerate(zip(spoken, expected)) if a != b] == [i]
            assert len(spoken) == len(expected) and spoken[i] in WORDS.card_words
        elif chant.mistake == "ha_on_last":
            assert chant.last_card and chant.at == (len(chant.chain) + 1,)
            assert spoken == [*chant.chain, chant.new_word, "ha", chant.named]
        else:
            pytest.fail(f"unknown mistake {chant.mistake!r}")

    def test_a_right_chant_called_wrong_is_counted_over_enough_right_chants(self):
        """The target for right chants called wrong is 0.5%: one of 200."""
        assert sum(s.label.mistake == "none" for s in CHANTS) >= 200

    def test_only_late_chants_start_late(self):
        for sample in CHANTS:
            if sample.label.mistake == "late":
                assert LATE_LEAD_IN[0] <= sample.lead_in <= LATE_LEAD_IN[1]
            else:
                assert sample.lead_in == LEAD_IN

    @pytest.mark.parametrize("corpus", [FULL, SMALL], ids=["full", "small"])
    def test_every_mistake_occurs(self, corpus):
        assert {s.label.mistake for s in corpus if s.kind == "chant"} == set(MISTAKES)

    def test_last_cards_end_both_ways(self):
        endings = {tuple(s.words[-2:]) == ("ooga", "booga") for s in CHANTS if s.label.last_card}
        assert endings == {True, False}


class TestCalls:
    def test_every_card_call_is_spoken(self):
        calls = {s.label.call for s in FULL if s.kind == "call" and s.language == "en"}
        assert set(CARD_CALLS) <= calls
        assert {"draw", "exploding kitten", "boom", "odds", "whose turn"} <= calls

    def test_every_player_name_is_spoken_alone_and_after_aimed_calls(self):
        names = {s.label.player for s in FULL if isinstance(s.label, Call) and s.label.call == ""}
        assert names == set(WORDS.players)
        for sample in FULL:
            if isinstance(sample.label, Call) and sample.label.call in ("targeted attack", "zombie kitten"):
                assert sample.label.player in WORDS.players

    def test_the_text_is_the_call_then_the_player(self):
        for sample in FULL:
            if isinstance(sample.label, Call):
                assert sample.words == tuple(normalize_words(f"{sample.label.call} {sample.label.player}"))

    def test_korean_calls_are_korean_and_heard_with_korean_words(self):
        korean = [s for s in FULL if s.language == "ko"]
        assert {s.label.call for s in korean} == set(load_words("ko").calls)
        assert all(s.voice.engine == "espeak" and s.voice.name == "ko" for s in korean)
        assert {w for s in korean for w in s.words} <= set(vocabulary("call", "ko"))

    def test_vocabularies_hold_every_spoken_game_word(self):
        for sample in FULL:
            if sample.language == "en" and sample.kind != "chatter":
                assert set(sample.words) <= set(vocabulary(sample.kind))


class TestChatter:
    def test_chatter_is_table_talk_labelled_as_chatter(self):
        chatter = [s for s in FULL if s.kind == "chatter"]
        assert len(chatter) >= 30
        for sample in chatter:
            assert sample.label == Chatter(len(sample.text.split(". ")))
            assert all(line in WORDS.chatter for line in sample.text.split(". "))


class TestVoicesAndRooms:
    def test_every_noise_at_every_snr_and_clean_rooms(self):
        rooms = {(s.noise, s.snr) for s in FULL}
        assert {(n, snr) for n in NOISES for snr in SNRS} | {(CLEAN, None)} == rooms

    def test_many_voices(self):
        english = [s.voice for s in FULL if s.language == "en"]
        assert {v.engine for v in english} == {"piper", "espeak"}
        assert len({v.name for v in english if v.engine == "espeak"}) >= 4
        assert len({v.length_scale for v in english if v.engine == "piper"}) >= 3
        assert len({v.speed for v in english if v.engine == "espeak"}) >= 3
        assert {v.pitch for v in english} >= {0.0, -2.0, 2.0}
        assert any(v.reverb for v in english) and any(v.tempo != 1.0 for v in english)
        assert any(v.word_gap for v in english)

    def test_every_talker_falls_in_one_synthesizer_group_and_one_pitch_group(self):
        groups = dict(talker_groups())
        pitches = [name for name in groups if "pitch" in name]
        assert pitches == ["pitch shift -4", "pitch shift -2", "no pitch shift", "pitch shift +2", "pitch shift +3"]
        for voice in {s.voice for s in FULL if s.language == "en"}:
            assert [g for g in ("piper", "espeak") if groups[g](voice)] == [voice.engine]
            assert [p for p in pitches if groups[p](voice)] == [pitches[sorted(set(PITCHES)).index(voice.pitch)]]
            assert groups["no sox effects"](voice) == (not voice.pitch and voice.tempo == 1.0 and not voice.reverb)
        assert {s.voice.pitch for s in FULL if s.language == "en"} == set(PITCHES)


class TestSmallMode:
    def test_a_few_dozen_utterances_of_every_kind(self):
        assert 20 <= len(SMALL) <= 40
        assert {s.kind for s in SMALL} == {"chant", "call", "chatter"}
        assert {s.language for s in SMALL} == {"en", "ko"}
        assert len(FULL) > 10 * len(SMALL)


class TestAudio:
    SPOKEN = dataclasses.replace(FULL[0], text="see the future", voice=PIPER, noise=CLEAN, snr=None)

    @staticmethod
    def measured_snr(sample) -> float:
        """Split the mix into the talker and the rest (the noise is uncorrelated with the speech)."""
        speech, mixed = sample.speech(), sample.audio()
        scale = float(np.dot(mixed, speech) / np.dot(speech, speech))
        talking = speech[int(sample.lead_in * SAMPLE_RATE): len(speech) - int(TAIL * SAMPLE_RATE)] * scale
        rest = mixed - speech * scale
        return 20 * np.log10(rms(talking) / np.sqrt(np.mean(rest ** 2)))

    @pytest.mark.parametrize("noise", NOISES)
    @pytest.mark.parametrize("snr", SNRS)
    def test_noise_is_mixed_at_the_snr_asked(self, noise, snr):
        sample = dataclasses.replace(self.SPOKEN, noise=noise, snr=snr, seed=11)
        assert abs(self.measured_snr(sample) - snr) < 1.0

    def test_the_snr_is_set_by_the_speech_not_by_a_late_start(self):
        late = dataclasses.replace(self.SPOKEN, noise="pink", snr=12.0, lead_in=3.5)
        assert abs(self.measured_snr(late) - 12.0) < 1.0

    def test_a_late_start_is_room_sound_then_speech(self):
        late = dataclasses.replace(self.SPOKEN, noise="white", snr=18.0, lead_in=3.0)
        audio = late.audio()
        assert len(audio) / SAMPLE_RATE > 3.0 + TAIL + 0.3
        assert rms(audio[: 3 * SAMPLE_RATE]) < rms(audio[3 * SAMPLE_RATE:]) / 4

    def test_the_last_word_ends_before_the_synthesizer_falls_silent(self):
        """Latency counts from the end of the last word, not from the end of a synthesizer's audio,
        which trails off in quiet of its own."""
        sample = dataclasses.replace(self.SPOKEN, voice=Voice("espeak", "en-us", 160))
        speech = sample.speech()
        end = sample.last_word_end()
        assert LEAD_IN + 0.5 < end < len(speech) / SAMPLE_RATE - TAIL - 0.15
        assert rms(speech[int(end * SAMPLE_RATE):]) < rms(speech) / 30 < rms(speech[int((end - 0.1) * SAMPLE_RATE):])

    def test_a_clean_room_still_has_a_noise_floor(self):
        audio = self.SPOKEN.audio()
        assert 0 < np.sqrt(np.mean(audio[: int(LEAD_IN * SAMPLE_RATE)] ** 2)) < rms(audio) / 20

    def test_audio_is_cached_and_mixing_is_repeatable(self, tmp_path):
        sample = dataclasses.replace(FULL[1], voice=Voice("espeak", "en-us", speed=175), noise="pink", snr=12.0)
        first = sample.audio(tmp_path)
        assert len(list(tmp_path.glob("speech-*.wav"))) == 1
        assert np.array_equal(sample.audio(tmp_path), first)
        assert np.max(np.abs(first)) <= 1.0
        assert not list(tmp_path.glob("*.partial.wav"))


class TestBenchListen:
    def test_small_run_prints_figures_for_each_engine(self, tmp_path):
        report = tmp_path / "listen.md"
        result = subprocess.run([sys.executable, "-m", "gm", "bench", "listen", "--small", "--report", str(report)],
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
        for engine in ("## pocketsphinx", "## vosk"):
            section = result.stdout.split(engine, 1)[1].split("\n## ", 1)[0]
            for figure in ("model load (s)", "real-time factor, CPU time, 1 core", "peak RSS (MB)", "word accuracy",
                           "talker: espeak"):
                assert figure in section, f"{engine}: no {figure}"
            assert "not measured" not in section
        assert "Korean" in result.stdout
        assert "Machine:" in result.stdout
        assert report.read_text().strip() == result.stdout.strip()
