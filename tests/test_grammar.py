"""Grammars: phrases of kinds with optional slots, and their JSGF form for PocketSphinx."""

from gm.recognizers.jsgf import to_jsgf
from gm.speech import Grammar, Phrase

CALL = Phrase((("", "ana", "bo"), ("attack",), ("", "bo")), "call")
GRAMMAR = Grammar((CALL, Phrase.of("see the future", "call"), Phrase.of("attack bo", "odd", 0.1)), ("pass", "chips"))


class TestPhrase:
    def test_optional_slots_may_be_left_out(self):
        assert CALL.matches(["attack"]) and CALL.matches(["ana", "attack"]) and CALL.matches(["ana", "attack", "bo"])

    def test_other_words_do_not_match(self):
        assert not CALL.matches(["attack", "ana"]) and not CALL.matches([]) and not CALL.matches(["bo", "bo"])

    def test_of_reads_a_fixed_phrase(self):
        assert Phrase.of("See the Future!", "call").slots == (("see",), ("the",), ("future",))


class TestGrammar:
    def test_words_each_once(self):
        assert GRAMMAR.words() == ("ana", "bo", "attack", "see", "the", "future", "pass", "chips")

    def test_kind_of_prefers_the_likelier_phrase(self):
        assert GRAMMAR.kind_of(["attack", "bo"]) == "call"
        assert GRAMMAR.kind_of(["chips", "pass"]) == "loop"
        assert GRAMMAR.kind_of(["attack", "chips"]) == ""

    def test_kinds(self):
        assert GRAMMAR.kinds() == ("call", "odd", "loop")
        assert Grammar.word_loop(["a", "b", "a"]).loop == ("a", "b")


class TestJsgf:
    def test_weights_optional_slots_and_loop(self):
        text = to_jsgf(GRAMMAR, set(GRAMMAR.words()))
        assert text.startswith("#JSGF V1.0;")
        assert "/1/ ( [ ( ana | bo ) ] ( attack ) [ ( bo ) ] )" in text
        assert "/0.1/ ( ( attack ) ( bo ) )" in text
        assert "/1/ ( ( pass | chips )+ )" in text

    def test_unknown_words_drop_out(self):
        text = to_jsgf(GRAMMAR, {"attack", "see", "the", "pass"})
        assert "future" not in text and "see" not in text     # a phrase missing a word is left out
        assert "( attack )" in text and "( pass )+" in text

    def test_nothing_known_is_nothing(self):
        assert to_jsgf(GRAMMAR, set()) is None

    def test_room_sound_may_stand_before_and_after_whatever_is_said(self):
        text = to_jsgf(GRAMMAR, set(GRAMMAR.words()), edges="_hiss_")
        assert "public <utterance> = [ _hiss_+ ] ( /1/ (" in text and ") [ _hiss_+ ] ;" in text
        assert "_hiss_" not in to_jsgf(GRAMMAR, set(GRAMMAR.words()))


def test_only_one_kind_of_a_grammar():
    grammar = Grammar((Phrase.of("pooka ska", "right"), Phrase.of("ska pooka", "mistake"),
                       Phrase.of("pooka", "mistake")), ("pooka", "ska"), 0.1)
    assert grammar.only("mistake").phrases == grammar.phrases[1:] and grammar.only("mistake").loop == ()
    assert grammar.only("loop") == Grammar((), ("pooka", "ska"))
    assert grammar.only("call") == Grammar()
    short = Grammar((Phrase.of("nope", "call"),), ("chips",), room_sound=True)
    assert short.only("call").room_sound and short.only("loop").room_sound
