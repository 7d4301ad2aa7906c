"""The command line: complete help, one clear line and exit status 2 for every missing device or bad file."""

import subprocess
import sys

import pytest

from gm.cli import build_parser, main

COMMANDS = [["play"], ["listen"], ["say"], ["devices"], ["models"], ["models", "list"], ["models", "download"],
            ["bench"]]


def gm(*args, check=False):
    """Run the real `gm` command in a subprocess (as a user would)."""
    return subprocess.run([sys.executable, "-m", "gm", *args], capture_output=True, text=True, timeout=120)


class TestHelp:
    def test_top_level_help_lists_every_command(self):
        result = gm("--help")
        assert result.returncode == 0
        for command in ("play", "listen", "say", "devices", "models", "bench"):
            assert command in result.stdout

    @pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
    def test_every_command_has_help_with_an_example(self, command, capsys):
        with pytest.raises(SystemExit) as exit_:
            main([*command, "--help"])
        assert exit_.value.code == 0
        text = capsys.readouterr().out
        assert "Example" in text

    def test_every_option_is_described(self):
        parser = build_parser()
        for action in parser._subparsers._group_actions[0].choices.values():
            for option in action._actions:
                if option.option_strings and option.dest != "help":
                    assert option.help, f"{action.prog} {option.option_strings} has no help"


class TestNoDevices:
    def test_listen_without_microphone_says_what_to_do(self):
        result = gm("listen", "--engine", "pocketsphinx")
        assert result.returncode == 2
        assert "no microphone found" in result.stderr and "--input" in result.stderr
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1

    def test_play_without_microphone_says_what_to_do(self):
        result = gm("play", "ooga-booga", "--players", "Ana,Bo,Cy,Dee", "--mute")
        assert result.returncode == 2
        assert "no microphone found" in result.stderr and "Traceback" not in result.stderr

    def test_say_without_speaker_prints_instead(self):
        result = gm("say", "Ana takes four cards")
        assert result.returncode == 2
        assert "No speaker found" in result.stderr and "Traceback" not in result.stderr
        assert "Ana takes four cards" in result.stdout

    def test_devices_says_there_are_none(self):
        result = gm("devices")
        assert result.returncode == 0
        assert "no sound devices found" in result.stdout


class TestBadFiles:
    def test_missing_input_file(self, tmp_path):
        result = gm("listen", "--input", str(tmp_path / "none.wav"))
        assert result.returncode == 2 and "no such audio file" in result.stderr
        assert "Traceback" not in result.stderr

    def test_input_that_is_not_audio(self, tmp_path):
        path = tmp_path / "x.wav"
        path.write_bytes(b"RIFF garbage")
        result = gm("listen", "--input", str(path))
        assert result.returncode == 2 and "not a PCM WAV file" in result.stderr

    def test_broken_phrase_file(self, tmp_path):
        (tmp_path / "en").mkdir()
        (tmp_path / "en" / "common.toml").write_text("[say\n")
        result = subprocess.run([sys.executable, "-m", "gm", "say", "hello", "--speak-to", str(tmp_path / "o.wav")],
                                capture_output=True, text=True, env={"GM_PHRASES": str(tmp_path), "PATH": ""})
        assert result.returncode == 2
        assert "common.toml cannot be read" in result.stderr and "Traceback" not in result.stderr


def test_say_writes_speech_to_a_file(tmp_path):
    result = gm("say", "Bo, your turn.", "--speak-to", str(tmp_path / "say.wav"))
    assert result.returncode == 0
    assert (tmp_path / "say.wav").stat().st_size > 10000
