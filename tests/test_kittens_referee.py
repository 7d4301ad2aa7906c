"""The referee at the table, from transcripts: setup, Nope windows, refusals, odds, whole games."""

import pytest

from gm.events import Event
from gm.kittens.referee import KittensReferee
from gm.kittens.rules import SetupError
from gm.referee import Say
from gm.speech import Utterance


class Table:
    """A referee fed typed calls, with a clock that moves half a second per call."""

    def __init__(self, edition="exploding-kittens", players=("Ana", "Bo", "Cy"), **options):
        self.referee = KittensReferee(edition, list(players), **options)
        self.opening = self.referee.opening()
        self.t = 0.0

    def say(self, text):
        self.t += 0.5
        return self.referee.hear(Utterance.from_text(text, self.t), self.t)

    def wait(self, seconds=2.5):
        self.t += seconds
        return self.referee.tick(self.t)

    def play(self, *calls):
        """Say each call and let its Nope window close ("a / b" are said within one window)."""
        out = []
        for call in calls:
            for part in call.split(" / "):
                out += self.say(part)
            out += self.wait()
        return out

    @property
    def game(self):
        return self.referee.game


def said(outputs):
    return [o.text for o in outputs if isinstance(o, Say)]


def events(outputs, name):
    return [o.fields for o in outputs if isinstance(o, Event) and o.name == name]


class TestOpening:
    def test_base_seed_setup(self):
        table = Table(players=["Ana", "Bo", "Cy", "Dee"])
        text = " ".join(said(table.opening))
        assert "Exploding Kittens for 4 players." in text
        assert "deal 4 cards to each player" in text
        assert "Shuffle the 2 spare Defuses into the pile." in text
        assert "Shuffle 3 Exploding Kittens into the pile. The pile holds 35 cards." in text
        assert said(table.opening)[-1] == "Ana, your turn."
        assert events(table.opening, "setup")[0]["pile"] == 35
        assert events(table.opening, "turn") == [{"player": "Ana", "turns_owed": 1}]

    def test_current_printing_boxes_spare_defuses(self):
        table = Table(players=["Ana", "Bo"], printing="current", start="Bo")
        text = " ".join(said(table.opening))
        assert "deal 7 cards" in text and "Put 2 spare Defuses back in the box." in text
        assert said(table.opening)[-1] == "Bo, your turn."

    def test_party_pack_with_the_counted_pile(self):
        text = " ".join(said(Table("party-pack", ["Ana", "Bo", "Cy", "Dee"], pile=40).opening))
        assert "only the cards without the paw print" in text
        assert "Shuffle the spare Defuses into the pile." in text
        assert "You counted 40 cards in the pile." in text

    def test_zombie_setup(self):
        text = " ".join(said(Table("zombie-kittens", ["Ana", "Bo"]).opening))
        assert "only the cards with the paw print" in text
        assert "Give each player one Zombie Kitten" in text
        assert "Shuffle 1 Exploding Kitten into the pile. The pile holds 9 cards." in text

    def test_bad_setups_are_clear(self):
        with pytest.raises(SetupError, match="count the draw pile"):
            KittensReferee("party-pack", ["Ana", "Bo", "Cy"])
        with pytest.raises(SetupError, match="unknown edition"):
            KittensReferee("imploding-kittens", ["Ana", "Bo"])
        with pytest.raises(ValueError, match="sounds like a call"):
            KittensReferee("exploding-kittens", ["Ana", "Boom"])


class TestNopeWindow:
    def test_card_waits_for_the_window(self):
        table = Table()
        out = table.say("attack")
        assert events(out, "card") == [{"player": "Ana", "card": "attack", "target": None}]
        assert said(out) == ["Ana: Attack."] and table.game.current == "Ana"
        assert table.referee.tick(table.t + 1.0) == []
        out = table.referee.tick(table.t + 2.0)
        assert events(out, "resolved") == [{"card": "attack", "applied": True, "nopes": 0}]
        assert said(out) == ["Bo, you owe 2 turns."]

    def test_each_nope_reopens_the_window(self):
        table = Table()
        table.say("attack")
        table.t += 1.5
        out = table.say("bo nope")
        assert events(out, "nope") == [{"player": "Bo", "count": 1}]
        assert table.referee.tick(table.t + 1.9) == []
        out = table.say("cy nope")
        assert said(out) == ["Cy: Nope number 2."]
        out = table.wait()
        assert said(out) == ["Two Nopes: the Attack stands.", "Bo, you owe 2 turns."]

    @pytest.mark.parametrize("nopes, verdict, current", [
        (1, "One Nope: the Attack is cancelled.", "Ana"),
        (3, "Three Nopes: the Attack is cancelled.", "Ana"),
        (4, "Four Nopes: the Attack stands.", "Bo"),
        (5, "Five Nopes: the Attack is cancelled.", "Ana"),
    ])
    def test_chains(self, nopes, verdict, current):
        table = Table()
        table.say("attack")
        for i in range(nopes):
            table.say(["bo", "cy", "ana"][i % 3] + " nope")
        out = table.wait()
        assert said(out)[0] == verdict and table.game.current == current
        assert events(out, "resolved")[0]["applied"] is (nopes % 2 == 0)

    def test_another_call_closes_the_window(self):
        table = Table()
        table.say("favor bo")
        out = table.say("skip")
        assert said(out) == ["Favor: Bo chooses the card to give Ana.", "Ana: Skip."]
        assert events(out, "resolved")[0]["card"] == "favor"

    def test_questions_keep_the_window_open(self):
        table = Table()
        table.say("attack")
        table.say("odds")
        assert table.game.state.pending is not None
        assert said(table.say("bo nope")) == ["Bo: Nope."]

    def test_finish_settles_the_open_window(self):
        table = Table()
        table.say("skip")
        out = table.referee.finish(table.t)
        assert events(out, "resolved") and table.game.current == "Bo"

    def test_nope_with_nothing_to_nope(self):
        assert said(Table().say("bo nope")) == ["There is nothing to Nope."]

    def test_kitten_cannot_be_noped(self):
        table = Table()
        table.say("exploding kitten")
        assert said(table.say("bo nope")) == ["There is nothing to Nope."]


class TestRefusals:
    def test_out_of_turn_skip(self):
        table = Table()
        out = table.say("bo skip")
        assert said(out) == ["Bo, it is not your turn: no Skip now."]
        assert events(out, "refused")[0]["reason"] == "not_your_turn"
        assert table.game.state.pending is None and table.game.current == "Ana"

    def test_targeted_attack_on_an_eliminated_player(self):
        table = Table("party-pack", ["Ana", "Bo", "Cy", "Dee"], pile=30)
        table.play("exploding kitten", "boom")
        out = table.say("targeted attack ana")
        assert said(out) == ["Ana is out of the game."] and table.game.current == "Bo"

    def test_dead_players_attack(self):
        table = Table("zombie-kittens", ["Ana", "Bo", "Cy", "Dee"])
        table.play("exploding kitten", "boom")
        assert said(table.say("ana attack")) == [
            "Ana is dead: the dead may play only Nope and the special cards."]

    def test_feed_the_dead_with_nobody_dead(self):
        table = Table("zombie-kittens", ["Ana", "Bo", "Cy", "Dee"])
        assert said(table.say("feed the dead bo")) == ["Nobody is dead: no Feed the Dead now."]

    def test_favor_from_the_dead(self):
        table = Table("zombie-kittens", ["Ana", "Bo", "Cy", "Dee"])
        table.play("exploding kitten", "boom")
        assert said(table.say("favor ana")) == [
            "Nobody may take from, or attack, a dead player: Ana is dead."]

    def test_card_missing_from_this_game(self):
        assert said(Table().say("zombie kitten")) == ["There is no Zombie Kitten in this game."]

    def test_not_understood_changes_nothing(self):
        table = Table()
        before = table.game.state
        out = table.say("pass me the chips")
        assert said(out) == ["Sorry, I did not get that. Please say it again."]
        assert events(out, "not_understood") == [{"words": "pass me the chips", "reason": "unknown"}]
        assert said(table.say("favor")) == ["Favor needs a player's name. Please say it again with the name."]
        assert table.game.state == before

    def test_defuse_without_a_kitten(self):
        assert said(Table().say("defuse")) == ["Ana has not drawn an Exploding Kitten."]


class TestDrawsAndOdds:
    def test_odds_on_request(self):
        table = Table(pile=12)
        assert said(table.say("odds")) == ["12 cards, 2 kittens: 17 percent."]

    def test_odds_at_every_turn(self):
        table = Table(odds=True)
        assert said(table.opening)[-1] == "39 cards, 2 kittens: 5 percent."
        out = table.say("draw")
        assert said(out) == ["Safe. 38 cards left.", "Bo, your turn.", "38 cards, 2 kittens: 5 percent."]

    def test_whose_turn(self):
        table = Table()
        table.play("attack")
        assert said(table.say("whose turn")) == ["Bo, you owe 2 turns."]

    def test_exploding_kitten_is_drawn_by_the_current_player(self):
        table = Table()
        table.say("draw")
        out = table.say("exploding kitten")
        assert events(out, "exploded") == [{"player": "Bo"}]

    def test_the_drawer_corrects_a_draw(self):
        table = Table()
        table.say("draw")
        out = table.say("ana exploding kitten")
        assert events(out, "exploded") == [{"player": "Ana"}]
        assert events(out, "draw") == [{"player": "Ana", "pile": 38, "kittens": 1}]
        out = table.say("defuse")
        assert said(out) == ["Defused. Ana, put the kitten back anywhere in the pile, in secret.",
                             "Bo, your turn."]
        assert (table.game.state.pile, table.game.state.kittens) == (39, 2)

    def test_draw_from_the_bottom(self):
        table = Table("party-pack", ["Ana", "Bo", "Cy", "Dee"], pile=30)
        out = table.play("draw from the bottom")
        assert "Ana, draw from the bottom, then say draw, or exploding kitten." in said(out)
        assert said(table.say("skip")) == ["Ana must draw now, as the card said."]
        assert said(table.say("draw"))[-1] == "Bo, your turn."


class TestWholeGames:
    def test_base_game_to_its_winner(self):
        table = Table(players=["Ana", "Bo", "Cy"], pile=10)
        out = table.play(
            "see the future", "attack",                    # Bo owes 2
            "bo attack / ana nope / cy nope",              # two Nopes: stands, Cy owes 4
            "draw", "exploding kitten", "defuse",          # Cy: 2 turns done
            "skip", "favor ana", "draw",                   # Cy's turns done
            "exploding kitten", "boom",                    # Ana is out
            "pair cy", "draw",                             # Bo
            "exploding kitten", "defuse",                  # Cy
            "draw", "draw",                                # Bo, Cy
            "exploding kitten", "boom",                    # Bo is out
        )
        assert events(out, "eliminated") == [{"player": "Ana"}, {"player": "Bo"}]
        assert events(out, "winner") == [{"player": "Cy"}]
        assert said(out)[-1] == "Cy wins the game!" and table.referee.is_over()
        assert said(table.say("draw")) == ["The game is over."]

    def test_party_pack_to_its_winner(self):
        table = Table("party-pack", ["Ana", "Bo", "Cy", "Dee"], pile=20)
        out = table.play(
            "targeted attack cy",                          # Cy owes 2, Bo skipped
            "skip", "alter the future", "draw",            # Cy done
            "five different cards", "exploding kitten", "boom",   # Dee out
            "draw", "draw from the bottom", "exploding kitten", "defuse",
            "bo nope",                                     # nothing to Nope
            "cy exploding kitten", "boom",                 # Cy out
            "shuffle", "draw",                             # Ana
            "three of a kind ana", "draw",                 # Bo
            "exploding kitten", "boom",                    # Ana out
        )
        assert [e["player"] for e in events(out, "eliminated")] == ["Dee", "Cy", "Ana"]
        assert events(out, "winner") == [{"player": "Bo"}]

    def test_zombie_kittens_to_its_winner(self):
        table = Table("zombie-kittens", ["Ana", "Bo", "Cy", "Dee"])
        out = table.play(
            "exploding kitten", "boom",                    # Ana dies
            "ana shuffle", "bo attack / ana nope",         # dead Ana Nopes: Bo still to play
            "exploding kitten", "zombie kitten ana",       # Bo saved, Ana revived
            "super skip",                                  # Cy
            "dig deeper", "exploding kitten", "boom",      # Dee dies
            "cy clairvoyance",                             # nothing put back just now
            "feed the dead dee", "draw",                   # Ana
            "exploding kitten", "boom",                    # Bo dies
            "attack of the dead",                          # Cy: Ana owes 2
            "draw", "exploding kitten", "boom",            # Ana dies
        )
        assert [e["player"] for e in events(out, "died")] == ["Ana", "Dee", "Bo", "Ana"]
        assert events(out, "revived") == [{"player": "Ana", "by": "Bo"}]
        assert events(out, "winner") == [{"player": "Cy"}]
        assert "Cy, you owe 2 turns." not in said(out) and "Ana, you owe 2 turns." in said(out)


class TestListening:
    def test_vocabulary(self):
        words = Table().referee.vocabulary()
        assert {"attack", "nope", "exploding", "kitten", "boom", "odds", "ana", "cy"} <= set(words)

    def test_complete_utterances(self):
        referee = Table().referee
        assert referee.is_complete(["see", "the", "future"])
        assert not referee.is_complete(["see", "the"])
        assert not referee.is_complete(["favor"])


class TestWhoNopes:
    def test_an_unnamed_nope_is_nobodys_in_particular(self):
        table = Table()
        out = table.say("attack") + table.say("nope") + table.say("nope")
        assert [e["player"] for e in events(out, "nope")] == [None, None]
        assert said(out)[-2:] == ["Nope!", "Nope number 2!"]

    def test_a_named_nope_is_that_players(self):
        table = Table()
        out = table.say("attack") + table.say("bo nope")
        assert events(out, "nope") == [{"player": "Bo", "count": 1}]
        assert said(out)[-1] == "Bo: Nope."


class TestUnsureCalls:
    def test_a_call_heard_unsurely_is_asked_again_and_changes_nothing(self):
        from gm.speech import HeardWord, Hypothesis
        table = Table()
        before = table.game.state
        heard = Utterance((Hypothesis((HeardWord("boom", 0.3, 1.0, 1.4),)),))
        out = table.referee.hear(heard, 1.5)
        assert events(out, "not_understood") == [{"words": "boom", "reason": "unsure", "confidence": 0.3}]
        assert said(out) == ["Sorry, I did not get that. Please say it again."]
        assert table.game.state == before

    def test_a_faint_linking_word_does_not_make_a_call_unsure(self):
        from gm.speech import HeardWord, Hypothesis
        table = Table()
        words = tuple(HeardWord(w, c, 1.0 + i * 0.3, 1.25 + i * 0.3)
                      for i, (w, c) in enumerate(zip(("see", "the", "future"), (0.9, 0.1, 0.8))))
        out = table.referee.hear(Utterance((Hypothesis(words),)), 2.0)
        assert events(out, "card") and not events(out, "not_understood")

    def test_a_call_that_fits_far_worse_than_free_speech_is_asked_again(self):
        """Table talk forced onto the calls comes out as a call with sure-looking words; the audio
        then fits free speech far better than that call."""
        from gm.kittens.referee import FREE_GAP
        from gm.speech import FREE, HeardWord, Hypothesis
        call = Hypothesis((HeardWord("attack", 0.95, 1.0, 1.4),), score=-0.005)
        for free_score, taken in ((-0.005 + FREE_GAP / 2, True), (-0.005 + 2 * FREE_GAP, False)):
            table = Table()
            out = table.referee.hear(Utterance((call,), rivals=(Hypothesis((), free_score, FREE),)), 1.5)
            assert bool(events(out, "card")) is taken
            assert bool(events(out, "not_understood")) is not taken

    def test_a_call_said_amid_talk_the_engine_could_not_name_is_asked_again(self):
        from gm.speech import HeardWord, Hypothesis
        table = Table()
        before = table.game.state
        call = (HeardWord("shuffle", 1.0, 1.0, 1.4),)
        out = table.referee.hear(Utterance((Hypothesis(call, unknown=1),)), 4.0)
        assert events(out, "not_understood") == [{"words": "shuffle", "reason": "talk"}]
        assert table.game.state == before
        assert events(table.referee.hear(Utterance((Hypothesis(call),)), 6.0), "card")

    def test_a_call_that_puts_a_player_out_must_be_heard_surer(self):
        """Table knocks were heard as "boom" at 0.86 when "defuse" was said: being out cannot be undone."""
        from gm.speech import HeardWord, Hypothesis
        for confidence, out in ((0.86, False), (0.95, True)):
            table = Table("party-pack", ["Ana", "Bo", "Cy", "Dee"], pile=30)
            table.play("exploding kitten")
            heard = Utterance((Hypothesis((HeardWord("boom", confidence, 5.0, 5.4),)),))
            answer = table.referee.hear(heard, 5.5)
            assert bool(events(answer, "eliminated")) is out
            assert bool(events(answer, "not_understood")) is not out
