"""Audio in: WAV files of any common format become 16 kHz mono 16-bit chunks; no microphone is a clear error."""

import wave

import numpy as np
import pytest

from gm.audio import (AudioChunk, AudioError, NoInputDevice, chunks_of, find_input_device, microphone_chunks,
                      read_wav, wav_chunks)
from gm.speech import SAMPLE_RATE


def write_tone(path, rate, channels, width, seconds=1.0, freq=440.0):
    t = np.arange(int(rate * seconds)) / rate
    tone = 0.5 * np.sin(2 * np.pi * freq * t)
    frames = np.repeat(tone[:, None], channels, axis=1).reshape(-1)
    if width == 1:
        data = (frames * 127 + 128).astype(np.uint8).tobytes()
    elif width == 2:
        data = (frames * 32767).astype("<i2").tobytes()
    elif width == 3:
        ints = (frames * (2 ** 23 - 1)).astype("<i4")
        data = b"".join(int(v).to_bytes(3, "little", signed=True) for v in ints)
    else:
        data = (frames * (2 ** 31 - 1)).astype("<i4").tobytes()
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(width)
        wav.setframerate(rate)
        wav.writeframes(data)


def dominant_frequency(pcm: bytes) -> float:
    samples = np.frombuffer(pcm, dtype="<i2").astype(float)
    spectrum = np.abs(np.fft.rfft(samples))
    return float(np.fft.rfftfreq(len(samples), 1 / SAMPLE_RATE)[np.argmax(spectrum)])


class TestReadWav:
    @pytest.mark.parametrize("rate,channels,width", [
        (16000, 1, 2), (44100, 2, 2), (48000, 1, 3), (22050, 2, 1), (8000, 1, 4), (11025, 6, 2)])
    def test_any_format_becomes_16k_mono_16bit_with_the_same_sound(self, tmp_path, rate, channels, width):
        path = tmp_path / "tone.wav"
        write_tone(path, rate, channels, width)
        pcm = read_wav(path)
        assert abs(len(pcm) / 2 - SAMPLE_RATE) <= 1
        assert abs(dominant_frequency(pcm) - 440.0) < 3
        level = np.abs(np.frombuffer(pcm, dtype="<i2")).max() / 32768
        assert 0.4 < level < 0.6

    def test_missing_file_is_a_clear_error(self, tmp_path):
        with pytest.raises(AudioError, match="no such audio file"):
            read_wav(tmp_path / "nothing.wav")

    def test_not_a_wav_is_a_clear_error(self, tmp_path):
        path = tmp_path / "notes.wav"
        path.write_text("this is not audio")
        with pytest.raises(AudioError, match="not a PCM WAV file"):
            read_wav(path)


class TestChunks:
    def test_chunks_carry_stream_times_and_cover_everything(self, tmp_path):
        path = tmp_path / "tone.wav"
        write_tone(path, 16000, 1, 2, seconds=1.05)
        chunks = list(wav_chunks(path))
        assert chunks[0] == AudioChunk(0.0, chunks[0].pcm)
        assert [round(c.start, 2) for c in chunks[:3]] == [0.0, 0.1, 0.2]
        assert sum(len(c.pcm) for c in chunks) == len(read_wav(path))
        assert round(chunks[-1].end, 2) == 1.05

    def test_chunks_of_starts_at_the_given_time(self):
        chunks = list(chunks_of(bytes(6400), start=2.0))
        assert [c.start for c in chunks] == [2.0, 2.1]


class TestNoMicrophone:
    def test_no_input_device_names_the_fix(self):
        with pytest.raises(NoInputDevice, match="--input FILE.wav"):
            find_input_device(None)

    def test_microphone_stream_fails_clearly(self):
        with pytest.raises(NoInputDevice):
            microphone_chunks()
