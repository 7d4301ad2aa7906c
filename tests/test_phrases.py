"""Phrase files: sentences come from editable TOML files; a broken file is a clear error, never a crash."""

import pytest

from gm.phrases import PhraseError, Phrases


def write(folder, name, text):
    (folder / "xx").mkdir(exist_ok=True)
    (folder / "xx" / f"{name}.toml").write_text(text, encoding="utf-8")


def test_sentences_are_filled_in(tmp_path):
    write(tmp_path, "common", '[say]\nturn = "{player}, your turn."\n')
    assert Phrases.load("xx", directory=tmp_path).say("turn", player="Ana") == "Ana, your turn."


def test_later_files_override_common(tmp_path):
    write(tmp_path, "common", '[say]\nturn = "common"\n')
    write(tmp_path, "game", '[say]\nturn = "game"\n')
    assert Phrases.load("xx", "game", directory=tmp_path).say("turn") == "game"


def test_broken_file_names_file_and_line(tmp_path):
    write(tmp_path, "common", '[say]\nturn = "unclosed\n')
    with pytest.raises(PhraseError, match=r"common\.toml cannot be read.*line 2"):
        Phrases.load("xx", directory=tmp_path)


def test_missing_file_is_named(tmp_path):
    write(tmp_path, "common", "")
    with pytest.raises(PhraseError, match="game.toml is missing"):
        Phrases.load("xx", "game", directory=tmp_path)


def test_missing_sentence_is_named(tmp_path):
    write(tmp_path, "common", '[say]\nturn = "x"\n')
    phrases = Phrases.load("xx", directory=tmp_path)
    with pytest.raises(PhraseError, match="'winner'"):
        phrases.say("winner")
    with pytest.raises(PhraseError, match="winner, chief"):
        phrases.require("turn", "winner", "chief")


def test_sentence_with_wrong_placeholder_is_a_clear_error(tmp_path):
    write(tmp_path, "common", '[say]\nturn = "{plaeyr}, go"\n')
    with pytest.raises(PhraseError, match="cannot be filled"):
        Phrases.load("xx", directory=tmp_path).say("turn", player="Ana")


def test_a_table_that_is_not_a_table_is_refused(tmp_path):
    write(tmp_path, "common", 'say = "oops"\n')
    with pytest.raises(PhraseError, match="must be a table"):
        Phrases.load("xx", directory=tmp_path)


def test_shipped_english_files_load():
    phrases = Phrases.load("en")
    phrases.require("engine_chosen", "no_speaker")
    assert "attack" in phrases.table("listen")["words"]
