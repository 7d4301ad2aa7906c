"""The Ooga Booga rules core: setup, naming, endings, winning, losing, the chief, notation, undo."""

import random
import subprocess
import sys

import pytest

from gm.ooga_booga.rules import (
    Deal, Ending, Finish, Game, IllegalMoveError, Lose, NotationError, Outcome, Pass, Position, Reason,
    Refusal, SetupError, start_count,
)

FOUR = ["Ana", "Bo", "Cy", "Dee"]
WORDS = ("pooka", "ska", "zee", "aka")


def at(notation: str, winner_starts: bool = True) -> Game:
    position = Position.from_notation(notation)
    return Game(position.players, winner_starts=winner_starts, position=position)


class TestSetup:
    @pytest.mark.parametrize("players, cards", [(4, 3), (5, 3), (6, 3), (7, 2), (8, 2)])
    def test_cards_dealt_by_player_count(self, players, cards):
        position = Position.start([f"P{i}" for i in range(players)])
        assert position.hands == (cards,) * players
        assert position.dealt == cards * players

    @pytest.mark.parametrize("players", [0, 3, 9])
    def test_four_to_eight_players(self, players):
        with pytest.raises(SetupError):
            start_count(players)
        with pytest.raises(SetupError):
            Position.start([f"P{i}" for i in range(players)])

    def test_names_must_differ(self):
        with pytest.raises(SetupError, match="differ"):
            Position.start(["Ana", "Bo", "ana", "Dee"])

    def test_names_are_one_word(self):
        with pytest.raises(SetupError, match="one word"):
            Position.start(["Ana Maria", "Bo", "Cy", "Dee"])

    def test_first_player_starts_unless_told(self):
        assert Position.start(FOUR).player == "Ana"
        assert Position.start(FOUR, "cy").player == "Cy"
        with pytest.raises(SetupError):
            Position.start(FOUR, "Zed")

    def test_a_round_starts_with_an_empty_chain_and_no_namer(self):
        position = Position.start(FOUR)
        assert position.chain == () and position.namer is None and position.round == 1


class TestNaming:
    def test_the_first_chant_may_name_anyone_else(self):
        game = Game(FOUR)
        assert game.position.nameable() == ("Bo", "Cy", "Dee")
        game.push(Pass("pooka", "Bo"))
        assert game.position.player == "Bo" and game.position.namer == "Ana"
        assert game.position.chain == ("pooka",)
        assert game.position.hand("Ana") == 2

    def test_nobody_may_name_the_player_who_just_named_them(self):
        game = Game(FOUR)
        game.push(Pass("pooka", "Bo"))
        before = game.position
        with pytest.raises(IllegalMoveError) as error:
            game.push(Pass("ska", "Ana"))
        assert error.value.refusal is Refusal.NAMED_BACK
        assert game.position == before
        assert game.position.nameable() == ("Cy", "Dee")

    def test_naming_back_is_allowed_one_step_later(self):
        game = Game(FOUR)
        game.push(Pass("pooka", "Bo"))
        game.push(Pass("ska", "Cy"))
        game.push(Pass("zee", "Ana"))
        assert game.position.player == "Ana"

    @pytest.mark.parametrize("name, refusal", [("Ana", Refusal.NAMED_SELF), ("ana", Refusal.NAMED_SELF),
                                               ("Zed", Refusal.UNKNOWN_PLAYER)])
    def test_naming_yourself_or_a_stranger_is_refused(self, name, refusal):
        game = Game(FOUR)
        assert game.position.refusal(Pass("pooka", name)) is refusal
        with pytest.raises(IllegalMoveError):
            game.push(Pass("pooka", name))
        assert game.moves == []

    def test_names_are_matched_without_case(self):
        game = Game(FOUR)
        game.push(Pass("pooka", "dee"))
        assert game.position.player == "Dee"

    @pytest.mark.parametrize("word", ["", "two words", "Pooka"])
    def test_card_words_are_one_lower_case_word(self, word):
        assert Game(FOUR).position.refusal(Pass(word, "Bo")) is Refusal.BAD_WORD


class TestEndings:
    def test_last_card_must_end_with_ooga_booga(self):
        game = at(">Ana:1 Bo:3 Cy:3 Dee:3 | pooka | by Bo | round 1 dealt 12 aside 0")
        assert game.position.expected_ending() is Ending.OOGA_BOOGA
        assert game.position.refusal(Pass("ska", "Cy")) is Refusal.WRONG_ENDING
        assert game.position.is_legal(Finish("ska"))

    def test_ooga_booga_only_on_the_last_card(self):
        game = Game(FOUR)
        assert game.position.expected_ending() is Ending.HA
        assert game.position.refusal(Finish("pooka")) is Refusal.WRONG_ENDING

    def test_loss_reasons_fit_the_hand(self):
        last = Position.from_notation(">Ana:1 Bo:3 Cy:3 Dee:3 | pooka | by Bo | round 1 dealt 12 aside 0")
        more = Position.start(FOUR)
        assert last.is_legal(Lose(Reason.NO_OOGA_BOOGA)) and not more.is_legal(Lose(Reason.NO_OOGA_BOOGA))
        assert more.is_legal(Lose(Reason.EARLY_OOGA_BOOGA)) and not last.is_legal(Lose(Reason.EARLY_OOGA_BOOGA))
        assert last.refusal(Lose(Reason.EARLY_OOGA_BOOGA)) is Refusal.WRONG_REASON


class TestWinning:
    NOTATION = "Ana:2 Bo:1 >Cy:1 Dee:5 | pooka ska zee | by Bo | round 1 dealt 12 aside 0"

    def test_last_card_and_ooga_booga_wins_the_round_and_a_token(self):
        game = at(self.NOTATION)
        end = game.push(Finish("aka"))
        assert end.won and end.player == "Cy" and end.tokens == 1 and not end.chief
        assert game.position.tokens_of("Cy") == 1

    def test_everyone_back_to_the_start_count_token_holders_one_more(self):
        game = at(self.NOTATION)
        end = game.push(Finish("aka"))
        assert end.deals == (Deal("Ana", 1, 3), Deal("Bo", 2, 3), Deal("Cy", 4, 4), Deal("Dee", 0, 3))
        position = game.position
        assert position.hands == (3, 3, 4, 3)
        assert position.chain == () and position.namer is None and position.round == 2
        assert position.aside == 4 + 2  # the chain of four, and the two extra cards Dee put aside
        assert position.dealt == 12 + 7

    def test_the_winner_starts_the_next_round_by_default(self):
        game = at(self.NOTATION)
        game.push(Finish("aka"))
        assert game.position.player == "Cy"

    def test_the_first_player_starts_after_a_win_when_configured(self):
        game = Game(FOUR, starter="Bo", winner_starts=False)
        for move in [Pass("pooka", "Ana"), Pass("ska", "Cy"), Pass("zee", "Dee"), Pass("aka", "Ana"),
                     Pass("pooka", "Cy"), Pass("ska", "Dee"), Pass("zee", "Ana")]:
            game.push(move)
        assert game.push(Finish("ska")).player == "Ana"  # Ana's third card
        assert game.position.player == "Bo"


class TestLosing:
    NOTATION = "Ana:2 Bo:2 >Cy:3 Dee:3 | pooka ska | by Bo | round 1 dealt 12 aside 0"

    @pytest.mark.parametrize("reason", [Reason.WRONG_CHAIN, Reason.EARLY_OOGA_BOOGA])
    def test_a_wrong_chant_loses_and_the_loser_takes_the_start_count_on_top(self, reason):
        game = at(self.NOTATION)
        end = game.push(Lose(reason))
        assert not end.won and end.player == "Cy" and end.reason is reason
        assert end.deals == (Deal("Cy", 3, 5),)  # played one of three, then takes three
        position = game.position
        assert position.hands == (2, 2, 5, 3)
        assert position.player == "Cy" and position.chain == () and position.aside == 3

    def test_hesitating_loses_without_playing_a_card(self):
        game = at(self.NOTATION)
        end = game.push(Lose(Reason.HESITATED, played=False))
        assert end.reason is Reason.HESITATED and end.deals == (Deal("Cy", 3, 6),)
        assert game.position.aside == 2

    def test_ha_on_the_last_card_loses(self):
        game = at("Ana:2 Bo:2 >Cy:1 Dee:3 | pooka ska | by Bo | round 1 dealt 12 aside 0")
        end = game.push(Lose(Reason.NO_OOGA_BOOGA))
        assert end.deals == (Deal("Cy", 3, 3),)

    def test_a_loser_with_a_token_takes_one_more(self):
        game = at("Ana:2 Bo:2 >Cy:3*1 Dee:3 | pooka ska | by Bo | round 2 dealt 20 aside 0")
        end = game.push(Lose(Reason.WRONG_CHAIN))
        assert end.deals == (Deal("Cy", 4, 6),) and end.tokens == 1

    def test_everyone_else_keeps_their_cards(self):
        game = at(self.NOTATION)
        game.push(Lose(Reason.WRONG_CHAIN))
        assert [game.position.hand(p) for p in ("Ana", "Bo", "Dee")] == [2, 2, 3]


class TestChief:
    NOTATION = "Ana:2 Bo:1 >Cy:1*1 Dee:3 | pooka ska | by Bo | round 3 dealt 20 aside 6"

    def test_winning_a_round_while_holding_a_token_ends_the_game(self):
        game = at(self.NOTATION)
        end = game.push(Finish("zee"))
        assert end.won and end.chief and end.tokens == 2 and end.deals == ()
        assert game.is_over() and game.outcome() == Outcome("Cy", 3)

    def test_nothing_is_legal_after_the_game(self):
        game = at(self.NOTATION)
        game.push(Finish("zee"))
        assert list(game.position.generate_legal_moves(WORDS)) == []
        with pytest.raises(IllegalMoveError) as error:
            game.push(Lose(Reason.WRONG_CHAIN))
        assert error.value.refusal is Refusal.GAME_OVER

    def test_no_outcome_while_playing(self):
        assert Game(FOUR).outcome() is None


class TestNotation:
    def test_round_trip_and_paste_able_repr(self):
        game = at(TestChief.NOTATION)
        game.push(Finish("zee"))
        position = game.position
        assert Position.from_notation(position.notation()) == position
        assert eval(repr(position)) == position
        assert position.notation().endswith("| chief Cy")

    @pytest.mark.parametrize("text", ["", "Ana:3 Bo:3 Cy:3 Dee:3 | - | by - | round 1 dealt 12 aside 0",
                                      ">Ana:x Bo:3 Cy:3 Dee:3 | - | by - | round 1 dealt 12 aside 0",
                                      ">Ana:3 Bo:3 | - | by - | round 1 dealt 6 aside 0",
                                      ">Ana:3 Bo:3 Cy:3 Dee:3 | - | by Zed | round 1 dealt 12 aside 0"])
    def test_bad_notation_is_a_clear_error(self, text):
        with pytest.raises(NotationError):
            Position.from_notation(text)


class TestRandomPlay:
    """Seeded random games: cards are conserved, undo restores every position, a chief ends each."""

    @pytest.mark.parametrize("seed", range(40))
    def test_random_game(self, seed):
        rng = random.Random(seed)
        players = [f"P{i}" for i in range(rng.randint(4, 8))]
        game = Game(players, starter=rng.choice(players), winner_starts=rng.random() < 0.5)
        history = [game.position]
        while not game.is_over():
            assert len(game.moves) < 5000
            moves = list(game.position.generate_legal_moves(WORDS))
            assert moves, game.position
            plays = [m for m in moves if not isinstance(m, Lose)]
            move = rng.choice(plays if rng.random() < 0.9 else moves)
            game.push(move)
            position = game.position
            assert position.cards_in_play() + position.aside == position.dealt
            assert all(h >= 1 for h in position.hands) or position.is_over()
            history.append(position)
        assert game.outcome().chief in players
        assert sorted(game.position.tokens)[-1] == 2 and sorted(game.position.tokens)[-2] <= 1
        while game.moves:
            history.pop()
            game.pop()
            assert game.position == history[-1]
        with pytest.raises(IndexError):
            game.pop()


def test_rules_import_only_the_standard_library():
    code = ("import sys, gm.ooga_booga.rules; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'rapidfuzz', 'vosk', "
            "'pocketsphinx', 'sounddevice') or m in ('gm.speech', 'gm.audio')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
