"""The narrator: real pyttsx3/espeak-ng speech into a session WAV on the timeline; no speaker is a clear message."""

import io

import numpy as np
import pytest

from gm.audio import read_wav
from gm.narration import FileNarrator, Narrator, NoOutputDevice, SpeakerNarrator, Voice
from gm.speech import SAMPLE_RATE


def loud_spans(pcm: bytes, threshold=0.02):
    """(start, end) seconds of the stretches with sound, in 50 ms frames."""
    samples = np.abs(np.frombuffer(pcm, dtype="<i2") / 32768)
    frame = SAMPLE_RATE // 20
    loud = [samples[i:i + frame].max() > threshold for i in range(0, len(samples), frame)]
    spans, begin = [], None
    for i, on in enumerate(loud + [False]):
        if on and begin is None:
            begin = i
        if not on and begin is not None:
            spans.append((begin / 20, i / 20))
            begin = None
    return spans


def test_voice_renders_speech_as_16k_pcm():
    pcm = Voice("en").render("Ana takes four cards.")
    assert 0.8 < len(pcm) / 2 / SAMPLE_RATE < 4
    assert loud_spans(pcm)


def test_file_narrator_puts_each_sentence_at_its_time(tmp_path):
    out = io.StringIO()
    narrator = FileNarrator(tmp_path / "narration.wav", out=out)
    first = narrator.say("Ana, your turn.", 0.5)
    second = narrator.say("Bo loses the round.", 6.0)
    narrator.close()
    pcm = read_wav(tmp_path / "narration.wav")
    spans = loud_spans(pcm)
    assert 0.4 <= spans[0][0] <= 0.8
    assert any(5.9 <= begin <= 6.3 for begin, _ in spans)
    assert not any(0.5 + first + 0.1 < begin < 5.9 for begin, _ in spans)
    assert 6.0 + second <= len(pcm) / 2 / SAMPLE_RATE + 0.01
    assert "Ana, your turn." in out.getvalue() and "Bo loses the round." in out.getvalue()


def test_overlapping_sentences_queue_one_after_the_other(tmp_path):
    narrator = FileNarrator(tmp_path / "n.wav", out=io.StringIO())
    first = narrator.say("Everyone takes three cards.", 1.0)
    second = narrator.say("Ana starts.", 1.0)
    narrator.close()
    assert second > first


def test_printed_narrator_talks_for_no_time():
    out = io.StringIO()
    assert Narrator(out).say("Bo, your turn.", 2.0) == 0.0
    assert "Bo, your turn." in out.getvalue()


def test_no_speaker_is_a_clear_error():
    with pytest.raises(NoOutputDevice, match="no speaker"):
        SpeakerNarrator()
