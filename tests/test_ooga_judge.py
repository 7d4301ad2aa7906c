"""Judging one chant (and the word matching under it), from typed and hand-built utterances."""

import pytest

from gm.matching import Op, align, best_match, phonetic_key, similarity
from gm.ooga_booga.judge import Chant, Doubt, Mistake, Right, Thresholds, Unsure, Wrong, judge
from gm.ooga_booga.rules import Ending, Reason
from gm.speech import HeardWord, Hypothesis, Utterance

DECK = ("pooka", "ska", "booga", "ooga", "zee", "aka", "iga", "cha", "toto", "ta", "aki", "ani", "gloo",
        "paya", "kiki", "moki", "yonka", "toka", "rumba")
NAMES = ("ana", "bo", "cy", "dee")


def chant(chain: str, ending: Ending = Ending.HA) -> Chant:
    return Chant(tuple(chain.split()), DECK, NAMES, ending)


def heard(text: str, confidences=None, gaps=None, lengths=None) -> Hypothesis:
    """A hypothesis with chosen confidences, pauses before each word and word lengths (seconds)."""
    words, t = [], 0.0
    for i, word in enumerate(text.split()):
        t += (gaps or {}).get(i, 0.05)
        length = (lengths or {}).get(i, 0.3)
        words.append(HeardWord(word, (confidences or {}).get(i, 0.95), t, t + length))
        t += length
    return Hypothesis(tuple(words))


def utterance(*hypotheses: Hypothesis) -> Utterance:
    return Utterance(tuple(hypotheses))


def typed(text: str, chain: str, ending: Ending = Ending.HA):
    return judge(Utterance.from_text(text), chant(chain, ending))


class TestMatching:
    def test_sound_alikes_share_a_key(self):
        assert phonetic_key("pooka") == phonetic_key("booka") == phonetic_key("boogah")
        assert phonetic_key("zee") != phonetic_key("ska")

    def test_similarity_ranks_sound_alikes_above_other_words(self):
        assert similarity("pooka", "pooka") == 1.0
        assert similarity("pooka", "booka") > 0.85
        assert similarity("pooka", "ska") < 0.6
        assert similarity("Pooka", "pooka") == 1.0

    def test_best_match_takes_the_nearest_candidate_and_the_first_of_a_tie(self):
        match = best_match("booka", ["ska", "pooka", "zee"])
        assert match.candidate == "pooka" and match.score > 0.8
        assert best_match("xx", ["aa", "oo"]).score == best_match("xx", ["oo", "aa"]).score
        assert best_match("xx", ["aa", "oo"]).candidate == "aa" and best_match("xx", ["oo", "aa"]).candidate == "oo"
        with pytest.raises(ValueError):
            best_match("x", [])

    def test_align_finds_swaps_skips_and_extras(self):
        def run(heard, expected):
            return align(len(expected), len(heard), lambda i, j: 1.0 - similarity(expected[i], heard[j]),
                         lambda j: 1.0, lambda i: 1.0,
                         lambda i, j: 2.0 - similarity(expected[i], heard[j + 1])
                         - similarity(expected[i + 1], heard[j]) + 0.3)
        assert [s.op for s in run(["b", "a"], ["a", "b"]).steps] == [Op.SWAP]
        assert [s.op for s in run(["a", "c"], ["a", "b", "c"]).steps] == [Op.MATCH, Op.DELETE, Op.MATCH]
        assert [s.op for s in run(["a", "x", "b"], ["a", "b"]).steps] == [Op.MATCH, Op.INSERT, Op.MATCH]


class TestRight:
    def test_first_chant_of_a_round(self):
        verdict = typed("pooka ha bo", "")
        assert verdict == Right("pooka", Ending.HA, "bo", verdict.evidence)

    def test_chain_then_new_word_then_name(self):
        verdict = typed("pooka ska zee ha dee", "pooka ska")
        assert isinstance(verdict, Right) and (verdict.word, verdict.named) == ("zee", "dee")

    def test_the_new_word_may_repeat_a_chain_word(self):
        verdict = typed("pooka ska pooka ha dee", "pooka ska")
        assert isinstance(verdict, Right) and verdict.word == "pooka"

    def test_last_card_with_ooga_booga(self):
        verdict = typed("pooka ska zee ooga booga", "pooka ska", Ending.OOGA_BOOGA)
        assert verdict == Right("zee", Ending.OOGA_BOOGA, None, verdict.evidence)

    def test_card_words_ooga_and_booga_before_the_closing(self):
        verdict = typed("ooga booga ooga ooga booga", "ooga booga", Ending.OOGA_BOOGA)
        assert isinstance(verdict, Right) and verdict.word == "ooga"

    def test_no_name_yet(self):
        verdict = typed("pooka ska", "pooka")
        assert verdict == Right("ska", None, None, verdict.evidence)

    def test_a_sound_alike_outside_the_game_counts_as_the_word(self):
        verdict = typed("booka ska ha cy", "pooka")
        assert isinstance(verdict, Right) and verdict.word == "ska"

    def test_missing_ha_is_forgiven(self):
        verdict = typed("pooka ska cy", "pooka")
        assert isinstance(verdict, Right) and verdict.named == "cy"

    def test_a_faint_ha_costs_nothing(self):
        # "Ha" may be left out altogether, so how well it was heard cannot make a chant doubtful.
        verdict = judge(utterance(heard("pooka ska ha cy", {2: 0.05})), chant("pooka"))
        assert isinstance(verdict, Right) and verdict.named == "cy"

    def test_weak_words_pass_when_every_reading_agrees(self):
        weak = heard("pooka ska ha cy", {1: 0.2})
        alike = heard("booka ska ha cy", {1: 0.3})
        assert isinstance(judge(utterance(weak, alike), chant("pooka")), Right)

    def test_weak_words_alone_are_not_enough(self):
        weak = heard("pooka ska ha cy", {1: 0.2})
        verdict = judge(utterance(weak, weak), chant("pooka"))
        assert isinstance(verdict, Unsure) and verdict.doubt is Doubt.WEAK_WORDS

    def test_a_confident_best_reading_wins_over_a_wrong_alternative(self):
        verdict = judge(utterance(heard("pooka ska ha cy"), heard("toto ska ha cy")), chant("pooka"))
        assert isinstance(verdict, Right) and verdict.evidence.readings == 2 and verdict.evidence.fitting == 1


class TestOpeningChant:
    """A round's first chant is one card word and its ending; table talk holds many such words, so
    only a whole chant counts then, "Ha" heard."""

    def test_the_whole_opening_chant_is_right(self):
        assert isinstance(typed("pooka ha bo", ""), Right)

    @pytest.mark.parametrize("said, doubt", [
        (heard("pooka bo"), Doubt.UNCLEAR_WORD),  # a card word and a name, no "Ha"
        (heard("pooka"), Doubt.NOT_A_CHANT),  # a lone card word
        (heard("pooka ha cy", {1: 0.05}), Doubt.WEAK_WORDS),  # "Ha" heard faintly
    ])
    def test_an_opening_chant_short_of_whole_is_doubtful(self, said, doubt):
        verdict = judge(utterance(said), chant(""))
        assert isinstance(verdict, Unsure) and verdict.doubt is doubt

    def test_the_forced_right_reading_counts_its_ha(self):
        said = Utterance((heard("pooka cy"),), rivals=(
            Hypothesis(heard("pooka ha cy", {1: 0.1}).words, 0.0, "right"),))
        assert isinstance(judge(said, chant("")), Unsure)

    def test_a_short_chant_that_misfits_needs_confident_words_for_a_mistake(self):
        best = heard("zee ooga booga", {1: 0.6, 2: 0.7})
        forced = Hypothesis(heard("zee ha cy", {1: 0.0, 2: 0.0}).words, 0.0, "right")
        assert isinstance(judge(Utterance((best,), rivals=(forced,)), chant("")), Unsure)
        sure = heard("zee ooga booga")
        verdict = judge(Utterance((sure,), rivals=(forced,)), chant(""))
        assert isinstance(verdict, Wrong) and verdict.mistake is Mistake.EARLY_OOGA_BOOGA


class TestWrong:
    @pytest.mark.parametrize("text, mistake, at, expected, said", [
        ("pooka zee ha cy", Mistake.SKIPPED, 1, ("ska",), ()),
        ("ska pooka zee ha cy", Mistake.SWAPPED, 0, ("pooka", "ska"), ("ska", "pooka")),
        ("pooka toto zee ha cy", Mistake.WRONG_WORD, 1, ("ska",), ("toto",)),
        ("pooka ska toto zee ha cy", Mistake.EXTRA_WORD, 2, (), ("toto",)),
        ("pooka ska ha cy", Mistake.NO_NEW_WORD, 2, ("*",), ()),
        ("pooka ska zee ooga booga", Mistake.EARLY_OOGA_BOOGA, 3, ("ha", "<name>"), ("ooga", "booga")),
    ])
    def test_chain_mistakes(self, text, mistake, at, expected, said):
        verdict = typed(text, "pooka ska")
        assert isinstance(verdict, Wrong), verdict
        assert (verdict.mistake, verdict.at, verdict.expected, verdict.heard) == (mistake, at, expected, said)

    def test_ha_on_the_last_card(self):
        verdict = typed("pooka ska zee ha cy", "pooka ska", Ending.OOGA_BOOGA)
        assert isinstance(verdict, Wrong) and verdict.mistake is Mistake.HA_ON_LAST_CARD
        assert verdict.mistake.reason is Reason.NO_OOGA_BOOGA

    def test_forgetting_ooga_booga_on_the_last_card(self):
        verdict = typed("pooka ska zee", "pooka ska", Ending.OOGA_BOOGA)
        assert isinstance(verdict, Wrong) and verdict.mistake is Mistake.NO_OOGA_BOOGA

    def test_mistakes_map_to_the_rules_reasons(self):
        assert Mistake.SWAPPED.reason is Reason.WRONG_CHAIN
        assert Mistake.EARLY_OOGA_BOOGA.reason is Reason.EARLY_OOGA_BOOGA

    def test_the_verdict_keeps_its_evidence(self):
        verdict = judge(utterance(heard("pooka toto zee ha cy", {1: 0.9})), chant("pooka ska"))
        evidence = verdict.evidence
        assert evidence.heard_text == "pooka toto zee ha cy"
        assert evidence.expected == ("pooka", "ska", "*", "ha", "<name>")
        assert evidence.thresholds == Thresholds()
        check = evidence.checks[1]
        assert (check.expected, check.heard, check.confidence) == ("ska", "toto", 0.9)
        assert check.similarity < Thresholds().clash
        assert "ska~toto" in evidence.summary()

    def test_every_reading_must_show_a_mistake(self):
        verdict = judge(utterance(heard("pooka toto zee ha cy"), heard("pooka toka zee ha cy")), chant("pooka ska"))
        assert isinstance(verdict, Wrong) and verdict.evidence.readings == 2


class TestUnsure:
    def test_nothing_heard(self):
        assert typed("", "pooka").doubt is Doubt.NOTHING_HEARD

    def test_not_a_chant(self):
        verdict = typed("bo", "pooka ska zee toto")
        assert isinstance(verdict, Unsure) and verdict.doubt is Doubt.NOT_A_CHANT

    def test_a_faint_contradicting_word_is_not_evidence(self):
        verdict = judge(utterance(heard("pooka toto zee ha cy", {1: 0.5})), chant("pooka ska"))
        assert isinstance(verdict, Unsure) and verdict.doubt is Doubt.WEAK_MISTAKE

    def test_a_sound_alike_game_word_is_unclear(self):
        verdict = typed("booga ska zee ha cy", "pooka ska")
        assert isinstance(verdict, Unsure) and verdict.doubt is Doubt.UNCLEAR_WORD

    def test_a_right_alternative_blocks_a_wrong_verdict(self):
        verdict = judge(utterance(heard("pooka toto zee ha cy"), heard("pooka ska zee ha cy")), chant("pooka ska"))
        assert isinstance(verdict, Unsure) and verdict.doubt is Doubt.READINGS_DISAGREE
        assert verdict.reading.word == "zee"

    def test_weak_words_with_disagreeing_readings(self):
        verdict = judge(utterance(heard("pooka ska ha cy", {1: 0.2}), heard("pooka toka ha cy")), chant("pooka"))
        assert isinstance(verdict, Unsure) and verdict.doubt is Doubt.WEAK_WORDS

    def test_a_pause_long_enough_for_the_skipped_word(self):
        verdict = judge(utterance(heard("pooka zee ha cy", gaps={1: 0.6})), chant("pooka ska"))
        assert isinstance(verdict, Unsure)

    def test_a_long_word_next_to_a_skip_may_be_two_heard_as_one(self):
        verdict = judge(utterance(heard("pooka ska ha cy", lengths={1: 0.8})), chant("pooka ska"))
        assert isinstance(verdict, Unsure)

    def test_stopping_mid_chain_is_not_a_verdict(self):
        verdict = typed("pooka ska zee", "pooka ska zee toto moki")
        assert isinstance(verdict, Unsure)

    def test_an_extra_word_at_the_edge_may_be_noise(self):
        verdict = typed("toto pooka ska zee ha cy", "pooka ska")
        assert isinstance(verdict, Unsure) and verdict.doubt is Doubt.WEAK_MISTAKE

    def test_ooga_booga_missing_a_word_is_not_a_verdict_on_the_ending(self):
        verdict = judge(utterance(heard("pooka ska zee ooga", {3: 0.5})), chant("pooka ska", Ending.OOGA_BOOGA))
        assert isinstance(verdict, Unsure)


class TestRivalReadings:
    """The engine's readings of the same audio as the right chant only and as a mistake only."""

    @staticmethod
    def with_rivals(best, *rivals):
        return Utterance((best,), rivals=rivals)

    @staticmethod
    def rival(text, kind, confidences=None, score=0.0):
        return Hypothesis(heard(text, confidences).words, score, kind)

    def test_a_well_fitting_right_chant_wins_over_a_garbled_free_reading(self):
        said = self.with_rivals(heard("pooka ta zee ha cy", {1: 0.3}),
                                self.rival("pooka ska zee ha cy", "right", {1: 0.7}))
        verdict = judge(said, chant("pooka ska"))
        assert isinstance(verdict, Right) and (verdict.word, verdict.named) == ("zee", "cy")

    def test_a_right_chant_that_fits_only_partly_proves_nothing(self):
        said = self.with_rivals(heard("pooka ta zee ha cy", {1: 0.3}),
                                self.rival("pooka ska zee ha cy", "right", {1: 0.3}))
        assert isinstance(judge(said, chant("pooka ska")), Unsure)

    def test_a_right_chant_that_cannot_fit_backs_a_weaker_mistake(self):
        best = heard("pooka toto zee ha cy", {1: 0.5})
        assert isinstance(judge(utterance(best), chant("pooka ska")), Unsure)
        said = self.with_rivals(best, self.rival("pooka ska zee ha cy", "right", {1: 0.0}))
        verdict = judge(said, chant("pooka ska"))
        assert isinstance(verdict, Wrong) and verdict.mistake is Mistake.WRONG_WORD

    def test_the_mistake_reading_names_the_mistake_when_the_free_reading_cannot(self):
        said = self.with_rivals(heard("pooka bo", {1: 0.9}),
                                self.rival("pooka zee toka ha cy", "right", {0: 0.0}),
                                self.rival("zee pooka toka ha cy", "mistake"))
        verdict = judge(said, chant("pooka zee"))
        assert isinstance(verdict, Wrong) and verdict.mistake is Mistake.SWAPPED

    def test_a_mistake_reading_that_fits_worse_than_the_right_chant_proves_nothing(self):
        """Noise can mask a word of the right chant and still fit it better than any mistake."""
        for mistake_score, proven in ((-0.0040, False), (-0.0036, True)):
            said = self.with_rivals(heard("pooka bo", {1: 0.9}),
                                    self.rival("pooka zee toka ha cy", "right", {0: 0.0}, score=-0.0038),
                                    self.rival("zee pooka toka ha cy", "mistake", score=mistake_score))
            assert isinstance(judge(said, chant("pooka zee")), Wrong) is proven

    def test_a_sure_mistake_that_fits_worse_than_the_right_chant_proves_nothing(self):
        """The engine's search, narrower than the forced reading's, can lose its way: "gloo" heard as
        "pooka" at 0.94 in pink noise, in a reading that fit the audio worse than the right chant."""
        for best_score, proven in ((-0.0035, False), (-0.0032, True)):
            best = Hypothesis(heard("pooka iga moki ha dee", {1: 0.6}).words, best_score, "mistake")
            said = self.with_rivals(best, self.rival("gloo iga moki ha dee", "right", {0: 0.4}, score=-0.0033))
            verdict = judge(said, chant("gloo iga"))
            assert isinstance(verdict, Wrong) is proven
            if not proven:
                assert verdict.doubt is Doubt.READINGS_DISAGREE

    def test_without_the_right_chant_failing_a_mistake_reading_is_not_enough(self):
        said = self.with_rivals(heard("pooka bo", {1: 0.9}), self.rival("zee pooka toka ha cy", "mistake"))
        assert isinstance(judge(said, chant("pooka zee")), Unsure)


class TestChantGrammar:
    """The grammar a recognizer listens with: every phrase of kind "right" is judged right from text,
    every phrase of kind "mistake" is judged wrong."""

    @staticmethod
    def expand(phrase):
        import itertools
        return [" ".join(w for w in words if w) for words in itertools.product(*phrase.slots)]

    @pytest.mark.parametrize("chain", [(), ("pooka",), ("pooka", "ska"), ("ska", "ska", "zee")])
    @pytest.mark.parametrize("ending", [Ending.HA, Ending.OOGA_BOOGA])
    def test_phrase_kinds_agree_with_the_judge(self, chain, ending):
        from gm.ooga_booga.judge import RIGHT
        chant = Chant(chain, ("pooka", "ska", "zee"), ("ana", "bo"), ending)
        grammar = chant.grammar()
        assert [p.kind for p in grammar.phrases][:1] == [RIGHT]
        assert set(grammar.loop) == set(chant.vocabulary)
        for phrase in grammar.phrases:
            for text in self.expand(phrase):
                verdict = judge(Utterance.from_text(text), chant)
                expected = Right if phrase.kind == RIGHT else Wrong
                assert isinstance(verdict, expected), (phrase.kind, text, verdict)

    def test_every_single_mistake_is_listened_for(self):
        chant = Chant(("pooka", "ska", "zee"), ("pooka", "ska", "zee", "aka"), ("ana", "bo"), Ending.HA)
        said = {text for p in chant.grammar().phrases[1:] for text in self.expand(p)}
        assert "pooka zee aka ha bo" in said          # skipped
        assert "ska pooka zee aka ha bo" in said      # swapped
        assert "pooka aka zee aka ha bo" in said      # replaced
        assert "pooka ska zee ha bo" in said          # no new word
        assert "pooka ska zee aka ooga booga" in said  # wrong ending


class TestOneMistakeAtATime:
    """A player makes one mistake; several at once is more likely a recognizer that lost its way."""

    CHANT = Chant(("pooka", "ska", "zee"), ("pooka", "ska", "zee", "rumba", "toka"), ("ana", "bo"), Ending.HA)

    def test_one_clear_mistake_is_wrong(self):
        assert isinstance(judge(Utterance.from_text("pooka rumba zee toka ha bo"), self.CHANT), Wrong)

    def test_two_mistakes_at_once_are_unsure(self):
        verdict = judge(Utterance.from_text("ska pooka rumba toka ha bo"), self.CHANT)
        assert isinstance(verdict, Unsure)


def test_table_talk_far_longer_than_any_chant_is_not_a_chant():
    talk = "toto po pooka bo iga booga eli ska zee"
    verdict = judge(utterance(heard(talk)), chant("pooka"))
    assert isinstance(verdict, Unsure) and verdict.doubt is Doubt.NOT_A_CHANT
    three_extra = judge(utterance(heard("pooka ska ha bo " + "ta " * 3)), chant("pooka"))
    assert getattr(three_extra, "doubt", None) is not Doubt.NOT_A_CHANT


def test_a_reading_half_made_of_guesses_proves_no_mistake():
    """A right chant heard as "cha yonka cha rumba": "yonka" fairly sure, the rest guesses."""
    said = heard("cha yonka cha ha bo", {2: 0.0, 3: 0.34})
    assert isinstance(judge(utterance(said), chant("cha ta"), Thresholds(confident=0.5)), Unsure)
    assert isinstance(judge(utterance(heard("cha yonka cha ha bo")), chant("cha ta"), Thresholds(confident=0.5)), Wrong)
