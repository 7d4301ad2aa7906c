"""The Ooga Booga referee, driven from typed utterances: whole games, every verdict path, the table's
decision, hesitation, naming back."""

import pytest

from gm.events import Event
from gm.ooga_booga.judge import Thresholds
from gm.ooga_booga.referee import OogaBoogaReferee
from gm.phrases import PhraseError, Phrases
from gm.referee import Say
from gm.speech import HeardWord, Hypothesis, Utterance

PLAYERS = ["Ana", "Bo", "Cy", "Dee"]


@pytest.fixture(scope="module")
def phrases():
    return Phrases.load("en", "ooga_booga")


@pytest.fixture
def referee(phrases):
    referee = OogaBoogaReferee(PLAYERS, phrases, hesitation=5.0)
    referee.opening()
    return referee


class Table:
    """Plays a referee from text, with a clock that moves three seconds per utterance."""

    def __init__(self, referee):
        self.referee, self.t, self.outputs = referee, 0.0, []

    def say(self, text: str) -> list:
        self.t += 1.0
        out = self.referee.hear(Utterance.from_text(text, at=self.t), self.t + 2.0)
        self.t += 2.0
        self.outputs += out
        return out

    def chant(self, word: str, to: str | None = None) -> list:
        """The right chant with a new card `word`, naming `to` (None: Ooga Booga)."""
        chain = " ".join(self.referee.game.position.chain)
        return self.say(f"{chain} {word} " + (f"ha {to}" if to else "ooga booga"))


def events(outputs, name: str) -> list[dict]:
    return [o.fields for o in outputs if isinstance(o, Event) and o.name == name]


def said(outputs) -> str:
    return " ".join(o.text for o in outputs if isinstance(o, Say))


class TestSetup:
    def test_opening_deals_and_names_the_starter(self, phrases):
        referee = OogaBoogaReferee(PLAYERS, phrases, start="Cy", hesitation=4)
        out = referee.opening()
        assert events(out, "deal") == [{"player": p, "cards": 3, "hand": 3} for p in PLAYERS]
        assert events(out, "turn") == [{"player": "Cy"}]
        text = said(out)
        assert phrases.say("opening", players="Ana, Bo, Cy and Dee", cards=3) in text
        assert phrases.say("hesitation_rule", seconds="4") in text
        assert phrases.say("round_start", round=1, player="Cy") in text

    def test_seven_players_take_two_cards(self, phrases):
        referee = OogaBoogaReferee(["A", "B", "C", "D", "E", "F", "G"], phrases)
        assert {e["cards"] for e in events(referee.opening(), "deal")} == {2}

    def test_vocabulary_has_the_deck_ha_names_and_closing(self, phrases):
        referee = OogaBoogaReferee(PLAYERS, phrases, extra_words=["Wumba", "zonk zip"])
        words = referee.vocabulary()
        for word in ["pooka", "rumba", "atrrr", "yanka", "ha", "ooga", "booga", "ana", "dee", "wumba", "zonk", "zip"]:
            assert word in words
        assert "right" not in words and "wrong" not in words
        assert len(words) == len(set(words))

    def test_missing_sentences_fail_at_construction(self, tmp_path):
        (tmp_path / "en").mkdir()
        (tmp_path / "en" / "common.toml").write_text("[say]\n")
        (tmp_path / "en" / "ooga_booga.toml").write_text('[say]\nturn = "{player}."\n')
        with pytest.raises(PhraseError, match="round_start"):
            OogaBoogaReferee(PLAYERS, Phrases.load("en", "ooga_booga", directory=tmp_path))


class TestIsComplete:
    def test_ha_and_a_name_or_ooga_booga_end_a_chant(self, referee):
        assert referee.is_complete(["pooka", "ha", "bo"])
        assert referee.is_complete(["pooka", "ooga", "booga"])
        assert not referee.is_complete(["pooka", "ha"])
        assert not referee.is_complete(["pooka"])

    def test_ooga_booga_inside_the_chain_does_not_end_it(self, referee):
        Table(referee).chant("ooga", "bo")
        Table(referee).chant("booga", "cy")
        assert not referee.is_complete(["ooga", "booga"])
        assert referee.is_complete(["ooga", "booga", "ska", "ha", "dee"])

    def test_after_a_chain_a_name_ends_a_chant_without_ha(self, referee):
        # The recognizer often misses "Ha", and the judge forgives it after a chain; an opening
        # chant must be whole.
        assert not referee.is_complete(["pooka", "bo"])
        Table(referee).chant("pooka", "bo")
        assert referee.is_complete(["pooka", "ska", "cy"])
        assert not referee.is_complete(["pooka", "cy"])


class TestRightChants:
    def test_a_right_chant_passes_the_turn(self, referee):
        table = Table(referee)
        out = table.chant("pooka", "bo")
        assert events(out, "chant_ok") == [{"player": "Ana", "chain": ["pooka"]}]
        assert events(out, "turn") == [{"player": "Bo"}]
        assert said(out) == "Bo."
        assert referee.game.position.chain == ("pooka",)

    def test_a_chant_without_a_name_asks_for_one(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        assert not referee.grammar().room_sound  # a chant is long: judged on fine differences
        out = table.say("pooka ska")
        assert said(out) == "Bo, who is next? Say Ha and a name."
        assert referee.game.position.chain == ("pooka",)
        assert referee.grammar().room_sound  # a short answer
        out = table.say("ha dee")
        assert events(out, "turn") == [{"player": "Dee"}]
        assert referee.game.position.chain == ("pooka", "ska")

    def test_a_lone_card_word_opens_no_round(self, referee):
        # Table talk at a round's start is full of words that sound like a card word or a name.
        table = Table(referee)
        for talk in ("pooka", "pooka dee"):
            out = table.say(talk)
            assert events(out, "say_again") and not events(out, "chant_ok") and not events(out, "name_asked")
        assert referee.game.position.chain == ()
        assert events(table.say("pooka ha dee"), "turn") == [{"player": "Dee"}]


class TestNaming:
    def test_naming_back_is_refused_without_a_loss(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        out = table.chant("ska", "ana")
        assert events(out, "refused") == [{"player": "Bo", "named": "Ana", "why": "named_back"}]
        assert "you cannot name them back" in said(out)
        assert not events(out, "round_lost")
        assert referee.game.position.player == "Bo"
        out = table.say("cy")
        assert events(out, "turn") == [{"player": "Cy"}]
        assert referee.game.position.chain == ("pooka", "ska")

    def test_naming_yourself_is_refused(self, referee):
        out = Table(referee).chant("pooka", "ana")
        assert events(out, "refused")[0]["why"] == "named_self"
        assert referee.game.position.chain == ()

    def test_repeating_the_whole_chant_after_a_refusal(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        table.chant("ska", "ana")
        out = table.say("pooka ska ha dee")
        assert events(out, "turn") == [{"player": "Dee"}]


class TestWrongChants:
    def test_a_wrong_chain_loses_the_round(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        table.chant("ska", "cy")
        out = table.say("ska pooka zee ha dee")
        wrong = events(out, "chant_wrong")[0]
        assert wrong["player"] == "Cy" and wrong["mistake"] == "swapped"
        assert wrong["expected"] == ["pooka", "ska", "*", "ha", "<name>"] and wrong["heard"] == "ska pooka zee ha dee"
        text = said(out)
        assert "Cy said ska before pooka." in text and "The chain was: pooka ska." in text
        assert events(out, "round_lost") == [{"player": "Cy", "reason": "wrong_chain"}]
        assert events(out, "deal") == [{"player": "Cy", "cards": 3, "hand": 5}]
        assert "Cy takes 3 cards." in text
        assert events(out, "turn") == [{"player": "Cy"}]
        assert referee.game.position.chain == ()

    def test_ha_on_the_last_card_loses(self, phrases):
        referee = OogaBoogaReferee(["Ana", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus"], phrases)
        referee.opening()
        table = Table(referee)
        table.chant("pooka", "bo")
        table.chant("ska", "cy")
        table.chant("zee", "ana")
        out = table.chant("toto", "dee")
        assert events(out, "chant_wrong")[0]["mistake"] == "ha_on_last_card"
        assert events(out, "round_lost") == [{"player": "Ana", "reason": "no_ooga_booga"}]
        assert events(out, "deal") == [{"player": "Ana", "cards": 2, "hand": 2}]

    def test_ooga_booga_with_cards_in_hand_loses(self, referee):
        out = Table(referee).chant("pooka")
        assert "Ana said Ooga Booga with 3 cards still in hand." in said(out)
        assert events(out, "round_lost") == [{"player": "Ana", "reason": "early_ooga_booga"}]


class TestUnsureChants:
    def faint(self, text: str, at: float) -> Utterance:
        """Words heard below the bar a right chant's weakest word must reach."""
        weak = Thresholds().accept - 0.1
        words = tuple(HeardWord(w, weak, at + i * 0.3, at + i * 0.3 + 0.25) for i, w in enumerate(text.split()))
        return Utterance((Hypothesis(words),))

    def test_say_again_twice_then_the_table_decides_right(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        for attempt in range(2):
            out = referee.hear(self.faint("pooka toto ha cy", 4.0 + attempt), 4.5 + attempt)
            assert events(out, "say_again")[0]["player"] == "Bo"
            assert said(out) == "Bo, I am not sure I heard that right. Say it again, please."
        out = referee.hear(self.faint("pooka toto ha cy", 6.0), 6.5)
        assert events(out, "table_asked")[0]["player"] == "Bo"
        assert "Was Bo right? Say right or wrong." in said(out)
        assert "right" in referee.vocabulary() and "wrong" in referee.vocabulary() and referee.grammar().room_sound
        assert not referee.is_complete(["right"]), "the answer is taken when the table stops talking"
        assert said(table.say("ska")) == "Say right or wrong, please."
        out = table.say("right")
        assert events(out, "table_decided") == [{"player": "Bo", "right": True}]
        assert events(out, "turn") == [{"player": "Cy"}]
        assert referee.game.position.chain == ("pooka", "toto")
        assert "right" not in referee.vocabulary()

    def test_the_table_decides_wrong(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        for attempt in range(3):
            referee.hear(self.faint("pooka toto ha cy", 4.0 + attempt), 4.5 + attempt)
        out = table.say("wrong")
        assert "The table says wrong." in said(out)
        assert events(out, "round_lost") == [{"player": "Bo", "reason": "wrong_chain"}]

    def test_sound_alike_words_ask_again(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        out = table.say("booga ska ha cy")
        assert events(out, "say_again")[0]["why"] == "unclear_word"
        assert referee.game.position.chain == ("pooka",)

    def test_a_clear_chant_after_a_say_again_counts(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        table.say("booga ska ha cy")
        out = table.chant("ska", "cy")
        assert events(out, "turn") == [{"player": "Cy"}]

    @pytest.mark.parametrize("utterance", [Utterance(()), Utterance.from_text("bo")])
    def test_empty_or_garbage_changes_nothing(self, referee, utterance):
        table = Table(referee)
        table.chant("pooka", "bo")
        table.chant("ska", "cy")
        before = referee.game.position
        for _ in range(4):
            out = referee.hear(utterance, 7.0)
            assert said(out) == "Cy, I did not catch that. Say your chant again."
        assert referee.game.position == before and not events(table.outputs, "table_asked")


class TestHesitation:
    def test_waiting_too_long_loses(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")  # the turn passes at t = 3
        assert referee.tick(7.5) == []
        out = referee.tick(8.5)
        assert "Too slow! Bo waited too long." in said(out)
        assert events(out, "round_lost") == [{"player": "Bo", "reason": "hesitated"}]
        assert events(out, "deal") == [{"player": "Bo", "cards": 3, "hand": 6}]

    def test_starting_late_loses_even_with_a_right_chant(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        out = referee.hear(Utterance.from_text("pooka ska ha cy", at=9.0), 10.5)
        assert events(out, "round_lost") == [{"player": "Bo", "reason": "hesitated"}]

    @pytest.mark.parametrize("heard", ["", "miti miti miti miti miti miti miti miti miti"])
    def test_a_player_asked_to_chant_again_gets_the_time_again(self, referee, heard):
        """Nothing made out (or table talk): the game master asks again, and the limit counts from
        that question, not from the turn (a long chant heard as noise must not lose on time)."""
        table = Table(referee)
        table.chant("pooka", "bo")  # the turn passes at t = 3
        words = tuple(HeardWord(w, 0.9, 4.0 + i * 0.3, 4.25 + i * 0.3) for i, w in enumerate(heard.split()))
        out = referee.hear(Utterance((Hypothesis(words),)), 7.5)
        assert events(out, "say_again") and not events(out, "round_lost")
        assert referee.tick(12.0) == []
        assert events(referee.tick(13.0), "round_lost") == [{"player": "Bo", "reason": "hesitated"}]

    def test_a_voice_that_gives_no_utterance_is_asked_again_not_called_too_slow(self, referee):
        """In loud noise a chant may never stand out enough to be heard as an utterance: the voice
        is all the game master knows of it. The limit counts the quiet after it; when it is reached
        the player is asked again (laughter that stops before the player chants costs nothing)."""
        table = Table(referee)
        table.chant("pooka", "bo")  # the turn passes at t = 3
        assert referee.tick(4.0) == []
        assert all(referee.tick(t, talking_since=4.2) == [] for t in (4.5, 6.0, 8.5, 9.9))
        assert referee.tick(10.0) == [] and referee.tick(14.9) == []
        out = referee.tick(15.1)
        assert events(out, "say_again") == [{"player": "Bo", "why": "nothing_heard"}]
        assert not events(out, "round_lost")
        assert referee.tick(20.0) == []
        assert events(referee.tick(20.2), "round_lost") == [{"player": "Bo", "reason": "hesitated"}]

    def test_a_voice_heard_while_a_name_is_due_asks_for_the_name_again(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")
        table.say("pooka ska")  # Bo is asked for a name at t = 6
        assert referee.tick(6.5, talking_since=6.2) == [] and referee.tick(7.0) == []
        out = referee.tick(12.1)
        assert events(out, "name_asked") == [{"player": "Bo"}] and not events(out, "round_lost")
        assert said(out) == "Bo, who is next? Say Ha and a name."

    def test_a_chant_after_laughter_is_judged_without_asking_again(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")  # the turn passes at t = 3
        assert referee.tick(3.5, talking_since=3.2) == [] and referee.tick(4.5) == []
        out = referee.hear(Utterance.from_text("pooka ska ha cy", at=5.0), 6.5)
        assert events(out, "chant_ok") and not events(out, "say_again")

    def test_a_chant_whose_start_was_lost_in_the_noise_is_not_late(self, referee):
        """The voice began in time; the recognizer made out only the chant's last words."""
        table = Table(referee)
        table.chant("pooka", "bo")
        assert referee.tick(4.0) == [] and referee.tick(4.5, talking_since=4.2) == []
        out = referee.hear(Utterance.from_text("pooka ska ha cy", at=9.0), 10.5)
        assert not events(out, "round_lost") and events(out, "chant_ok")

    def test_talk_going_on_when_the_turn_began_restarts_the_limit_when_it_stops(self, referee):
        table = Table(referee)
        table.chant("pooka", "bo")  # the turn passes at t = 3
        assert referee.tick(4.0) == []
        assert all(referee.tick(t, talking_since=2.5) == [] for t in (4.1, 7.0, 9.0))
        assert referee.tick(9.1) == [] and referee.tick(14.0) == []
        assert events(referee.tick(14.2), "round_lost") == [{"player": "Bo", "reason": "hesitated"}]

    def test_the_first_clock_starts_at_the_first_tick(self, referee):
        assert referee.tick(100.0) == []
        assert events(referee.tick(105.5), "round_lost") == [{"player": "Ana", "reason": "hesitated"}]

    def test_no_limit_without_hesitation(self, phrases):
        referee = OogaBoogaReferee(PLAYERS, phrases)
        referee.opening()
        assert referee.tick(0.0) == [] and referee.tick(1000.0) == []


class TestWholeGame:
    def test_rounds_to_a_chief(self, phrases):
        referee = OogaBoogaReferee(PLAYERS, phrases)
        referee.opening()
        table = Table(referee)
        # Round 1: Ana plays her three cards and wins.
        for word, to in [("pooka", "bo"), ("ska", "cy"), ("zee", "ana"), ("toto", "dee"), ("aki", "bo"),
                         ("gloo", "ana")]:
            table.chant(word, to)
        out = table.chant("moki")
        assert events(out, "round_won") == [{"player": "Ana"}]
        assert events(out, "token") == [{"player": "Ana", "tokens": 1}]
        assert [(d["player"], d["hand"]) for d in events(out, "deal")] == [("Ana", 4), ("Bo", 3), ("Cy", 3), ("Dee", 3)]
        assert "Everyone takes cards until they hold 3. Ana holds 4, one more for the token." in said(out)
        assert events(out, "turn") == [{"player": "Ana"}]
        # Round 2: Bo gets the chain wrong.
        table.chant("gloo", "bo")
        out = table.say("toto ska ha cy")
        assert events(out, "round_lost") == [{"player": "Bo", "reason": "wrong_chain"}]
        assert events(out, "turn") == [{"player": "Bo"}]
        # Round 3: Bo starts; Ana plays her last three cards and becomes the chief.
        for word, to in [("pooka", "ana"), ("ska", "cy"), ("zee", "dee"), ("toto", "ana"), ("aki", "bo"),
                         ("moki", "cy"), ("kiki", "ana")]:
            table.chant(word, to)
        out = table.chant("paya")
        assert events(out, "chief") == [{"player": "Ana"}]
        assert "Ana has won a second round and is the chief!" in said(out)
        assert referee.is_over() and referee.game.outcome().chief == "Ana"
        assert referee.hear(Utterance.from_text("pooka ha bo"), 99.0) == []
        assert referee.tick(200.0) == []

    def test_the_first_player_starts_after_a_win_when_configured(self, phrases):
        referee = OogaBoogaReferee(PLAYERS, phrases, start="Bo", winner_starts=False)
        referee.opening()
        table = Table(referee)
        for word, to in [("pooka", "ana"), ("ska", "cy"), ("zee", "dee"), ("toto", "ana"), ("aki", "bo"),
                         ("moki", "cy"), ("kiki", "ana")]:
            table.chant(word, to)
        out = table.chant("paya")
        assert events(out, "round_won") == [{"player": "Ana"}]
        assert events(out, "turn") == [{"player": "Bo"}]

    def test_every_sentence_comes_from_the_phrase_file(self, phrases):
        custom = Phrases(phrases.language, {**phrases.tables, "say": {k: f"<{k}>" for k in phrases.table("say")}},
                         phrases.sources)
        referee = OogaBoogaReferee(PLAYERS, custom, hesitation=3, thresholds=Thresholds())
        outputs = referee.opening()
        table = Table(referee)
        outputs += table.chant("pooka", "bo") + table.say("zee ha cy") + referee.tick(100) + referee.tick(104)
        texts = [o.text for o in outputs if isinstance(o, Say)]
        assert texts and all(t.startswith("<") and t.endswith(">") for t in texts)
