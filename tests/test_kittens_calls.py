"""The voice protocol: recognized words -> a call, or NotUnderstood (never a guess)."""

import pytest

from gm.kittens.calls import Call, CallBook, CallBookError, NotUnderstood
from gm.kittens.deck import load_deck
from gm.kittens.rules import EDITIONS
from gm.phrases import PhraseError, Phrases

PLAYERS = ["Ana", "Bo", "Cy"]


def book(edition="party-pack", players=PLAYERS, phrases=None):
    game = EDITIONS[edition](load_deck(edition), players, pile=30)
    return CallBook(phrases or Phrases.load("en", "exploding_kittens"), players, game.cards)


def parse(text, edition="party-pack"):
    return book(edition).parse(text.split())


def edited(tmp_path, old, new):
    """The English phrases with one piece of the exploding_kittens file changed."""
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "common.toml").write_text("[say]\n")
    text = Phrases.load("en", "exploding_kittens").sources[-1].read_text()
    assert old in text
    (tmp_path / "en" / "exploding_kittens.toml").write_text(text.replace(old, new))
    return Phrases.load("en", "exploding_kittens", directory=tmp_path)


class TestCalls:
    @pytest.mark.parametrize("text, call", [
        ("attack", Call("attack")),
        ("targeted attack bo", Call("targeted_attack", None, "Bo")),
        ("skip", Call("skip")),
        ("nope", Call("nope")),
        ("bo nope", Call("nope", "Bo")),
        ("see the future", Call("see_the_future")),
        ("favor bo", Call("favor", None, "Bo")),
        ("cy favor ana", Call("favor", "Cy", "Ana")),
        ("two of a kind cy", Call("pair", None, "Cy")),
        ("pair cy", Call("pair", None, "Cy")),
        ("five different cards", Call("five_different")),
        ("draw", Call("draw")),
        ("draw from the bottom", Call("draw_from_the_bottom")),
        ("exploding kitten", Call("exploding_kitten")),
        ("bo exploding kitten", Call("exploding_kitten", "Bo")),
        ("defuse", Call("defuse")),
        ("boom", Call("boom")),
        ("odds", Call("odds")),
        ("whose turn", Call("whose_turn")),
    ])
    def test_party_pack_calls(self, text, call):
        assert parse(text) == call

    @pytest.mark.parametrize("text, call", [
        ("zombie kitten ana", Call("zombie_kitten", None, "Ana")),
        ("zombie kitten", Call("zombie_kitten")),
        ("ana feed the dead bo", Call("feed_the_dead", "Ana", "Bo")),
        ("attack of the dead", Call("attack_of_the_dead")),
        ("clone", Call("clone")),
        ("clone bo", Call("clone", None, "Bo")),
        ("dig deeper", Call("dig_deeper")),
    ])
    def test_zombie_calls(self, text, call):
        assert parse(text, "zombie-kittens") == call

    def test_words_are_normalized(self):
        assert book().parse(["Targeted", "ATTACK", "Bo!"]) == Call("targeted_attack", None, "Bo")


class TestNotUnderstood:
    @pytest.mark.parametrize("text", ["attack attack", "favor zed", "bo", "targeted bo", "nope bo",
                                      "pass me the chips", "skip ana", "boom boom"])
    def test_unknown_words_are_never_guessed(self, text):
        result = parse(text)
        assert isinstance(result, NotUnderstood) and result.reason == "unknown"

    def test_empty(self):
        assert parse("") == NotUnderstood((), "empty")

    def test_safe_is_no_call(self):
        # White and pink noise come out as "safe" at full confidence: it would end turns nobody played.
        assert isinstance(parse("safe"), NotUnderstood)

    @pytest.mark.parametrize("text, action", [("favor", "favor"), ("targeted attack", "targeted_attack"),
                                              ("bo three of a kind", "three_of_a_kind")])
    def test_partial_call_needs_a_name(self, text, action):
        result = parse(text)
        assert isinstance(result, NotUnderstood)
        assert (result.reason, result.action) == ("needs_target", action)

    def test_card_of_another_edition(self):
        assert isinstance(parse("feed the dead bo", "exploding-kittens"), NotUnderstood)


class TestBook:
    def test_vocabulary_holds_calls_and_names(self):
        words = book("exploding-kittens").words
        assert {"attack", "see", "future", "exploding", "kitten", "ana", "bo"} <= set(words)
        assert "targeted" not in words

    def test_complete_calls(self):
        calls = book()
        assert calls.is_complete(["attack"]) and calls.is_complete(["favor", "bo"])
        assert not calls.is_complete(["draw"])  # could become "draw from the bottom"
        assert not calls.is_complete(["favor"]) and not calls.is_complete(["bo"])
        assert calls.is_complete(["draw", "from", "the", "bottom"])

    def test_name_that_sounds_like_a_call(self):
        with pytest.raises(CallBookError, match="Skip"):
            book(players=["Ana", "Skip"])

    def test_two_calls_read_alike(self, tmp_path):
        with pytest.raises(CallBookError, match="two calls"):
            book(phrases=edited(tmp_path, 'skip = ["skip"]', 'skip = ["skip", "shuffle"]'))

    def test_missing_words_for_a_card(self, tmp_path):
        with pytest.raises(PhraseError, match="favor"):
            book(phrases=edited(tmp_path, 'favor = ["favor"]\n', ""))


class TestSureness:
    @staticmethod
    def words(text, confidences):
        from gm.speech import HeardWord
        return [HeardWord(w, c, i * 0.3, i * 0.3 + 0.25) for i, (w, c) in enumerate(zip(text.split(), confidences))]

    def test_linking_words_do_not_count(self):
        assert book().sureness(self.words("see the future", (0.9, 0.1, 0.8))) == 0.8
        assert book().sureness(self.words("two of a kind cy", (0.9, 0.0, 0.1, 0.7, 0.95))) == 0.7

    def test_every_telling_word_counts(self):
        assert book().sureness(self.words("favor bo", (0.9, 0.2))) == 0.2
        assert book().sureness(self.words("bo nope", (0.3, 0.9))) == 0.3
        assert book().sureness([]) == 0.0

    def test_a_name_is_never_a_linking_word(self, tmp_path):
        made = book(phrases=edited(tmp_path, 'linking = ["the"', 'linking = ["bo", "the"'))
        assert made.sureness(self.words("favor bo", (0.9, 0.2))) == 0.2

    def test_linking_words_must_be_a_list_of_words(self, tmp_path):
        with pytest.raises(PhraseError, match="linking"):
            book(phrases=edited(tmp_path, 'linking = ["the", "of", "from", "a", "i"]', 'linking = "the"'))


def test_the_grammar_holds_exactly_the_sentences_the_book_understands():
    from gm.kittens.calls import CALL
    from gm.kittens.referee import KittensReferee
    referee = KittensReferee("zombie-kittens", ["Ana", "Bo", "Cy"])
    grammar = referee.calls.grammar()
    sentences = [" ".join(w for (w,) in phrase.slots) for phrase in grammar.phrases]
    assert {phrase.kind for phrase in grammar.phrases} == {CALL} and grammar.room_sound  # calls are short
    assert "attack" in sentences and "bo nope" in sentences and "zombie kitten ana" in sentences
    assert all(not isinstance(referee.calls.parse(s.split()), NotUnderstood) or
               referee.calls.parse(s.split()).reason == "needs_target" for s in sentences)
    assert set(grammar.words()) == set(referee.vocabulary())


def test_saves_are_listened_for_only_while_a_kitten_is_out():
    from gm.kittens.referee import KittensReferee
    from gm.speech import Utterance
    referee = KittensReferee("exploding-kittens", ["Ana", "Bo", "Cy"])

    def sentences():
        return {" ".join(w for (w,) in phrase.slots) for phrase in referee.grammar().phrases}

    assert "attack" in sentences() and "defuse" not in sentences() and "boom" not in sentences()
    referee.hear(Utterance.from_text("exploding kitten", 1.0), 1.0)
    assert {"defuse", "boom", "odds"} <= sentences() and "attack" not in sentences()
