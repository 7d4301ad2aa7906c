"""The rules core from text: turns owed, Attack stacking, Nope chains, draws, kittens, the dead."""

import pytest

from gm.kittens.deck import load_deck
from gm.kittens.rules import (
    DEAD, DRAWING, EXPLODING, NOPE_WINDOW, OUT, PLAY, Boom, Defuse, Draw, ExplodingKittens,
    IllegalMove, Nope, Outcome, PartyPack, Play, Resolve, ZombieKittens, ZombieSave,
)

PLAYERS = ["Ana", "Bo", "Cy", "Dee"]


def base(players=PLAYERS, **kw):
    return ExplodingKittens(load_deck("exploding-kittens"), players, **kw)


def party(players=PLAYERS, pile=30, **kw):
    return PartyPack(load_deck("party-pack"), players, pile=pile, **kw)


def zombie(players=PLAYERS, **kw):
    return ZombieKittens(load_deck("zombie-kittens"), players, **kw)


def play(game, player, card, target=None, nopes=()):
    """Play a card, Nope it by each named player, and close the window."""
    game.push(Play(player, card, target))
    for noper in nopes:
        game.push(Nope(noper))
    game.push(Resolve())


def turn(game):
    return game.current, game.state.owed


def refused(game, move, reason):
    before = game.state
    with pytest.raises(IllegalMove) as error:
        game.push(move)
    assert error.value.reason == reason
    assert game.state == before


class TestTurns:
    def test_drawing_ends_the_turn(self):
        game = base()
        game.push(Draw("Ana"))
        assert turn(game) == ("Bo", 1) and game.state.pile == 34

    def test_play_goes_round_the_table(self):
        game = base(start="Cy")
        for player in ["Cy", "Dee", "Ana", "Bo", "Cy"]:
            assert game.current == player
            game.push(Draw(player))

    @pytest.mark.parametrize("card, target", [("favor", "Bo"), ("see_the_future", None),
                                              ("shuffle", None), ("pair", "Cy"), ("three_of_a_kind", "Dee")])
    def test_cards_other_than_skip_and_attack_never_end_a_turn(self, card, target):
        game = base()
        play(game, "Ana", card, target)
        assert turn(game) == ("Ana", 1) and game.phase == PLAY

    def test_skip_ends_the_turn_without_drawing(self):
        game = base()
        play(game, "Ana", "skip")
        assert turn(game) == ("Bo", 1) and game.state.pile == 35


class TestAttackStacking:
    def test_not_under_attack_passes_two(self):
        game = base()
        play(game, "Ana", "attack")
        assert turn(game) == ("Bo", 2) and game.state.attacked

    def test_attacked_and_attack_at_once_passes_four(self):
        game = base()
        play(game, "Ana", "attack")
        play(game, "Bo", "attack")
        assert turn(game) == ("Cy", 4)

    def test_attacked_one_turn_done_then_attack_passes_three(self):
        game = base()
        play(game, "Ana", "attack")
        game.push(Draw("Bo"))
        assert turn(game) == ("Bo", 1)
        play(game, "Bo", "attack")
        assert turn(game) == ("Cy", 3)

    def test_two_turns_then_back_to_normal(self):
        game = base()
        play(game, "Ana", "attack")
        game.push(Draw("Bo"))
        game.push(Draw("Bo"))
        assert turn(game) == ("Cy", 1) and not game.state.attacked
        play(game, "Cy", "attack")
        assert turn(game) == ("Dee", 2)

    def test_noped_attack_leaves_it_the_attackers_turn(self):
        game = base()
        play(game, "Ana", "attack", nopes=["Bo"])
        assert turn(game) == ("Ana", 1)

    def test_targeted_attack_skips_those_between(self):
        game = party()
        play(game, "Ana", "targeted_attack", "Cy")
        assert turn(game) == ("Cy", 2)
        game.push(Draw("Cy"))
        game.push(Draw("Cy"))
        assert game.current == "Dee"

    def test_targeted_attack_answer_stacks(self):
        game = party()
        play(game, "Ana", "attack")
        play(game, "Bo", "targeted_attack", "Ana")
        assert turn(game) == ("Ana", 4)

    def test_targeted_attack_refusals(self):
        game = party()
        refused(game, Play("Ana", "targeted_attack"), "needs_target")
        refused(game, Play("Ana", "targeted_attack", "Ana"), "target_self")
        refused(game, Play("Ana", "targeted_attack", "Zed"), "unknown_player")
        game.push(Draw("Ana"))
        game.push(Draw("Bo", kitten=True))
        game.push(Boom("Bo"))
        refused(game, Play("Cy", "targeted_attack", "Bo"), "target_out")

    def test_attack_of_the_dead_gives_the_next_player_two(self):
        game = zombie(["Ana", "Bo", "Cy", "Dee", "Eve"])
        play(game, "Ana", "attack")
        play(game, "Bo", "attack_of_the_dead")
        assert turn(game) == ("Cy", 2)

    def test_attack_skips_the_out(self):
        game = base(["Ana", "Bo", "Cy"])
        game.push(Draw("Ana"))
        game.push(Draw("Bo", kitten=True))
        game.push(Boom("Bo"))
        game.push(Draw("Cy"))
        play(game, "Ana", "attack")
        assert turn(game) == ("Cy", 2)


class TestSkips:
    def test_skip_against_two_owed_leaves_one(self):
        game = party()
        play(game, "Ana", "attack")
        play(game, "Bo", "skip")
        assert turn(game) == ("Bo", 1)

    def test_two_skips_clear_both(self):
        game = party()
        play(game, "Ana", "attack")
        play(game, "Bo", "skip")
        play(game, "Bo", "skip")
        assert turn(game) == ("Cy", 1)

    def test_super_skip_ends_all_owed_turns(self):
        game = zombie()
        play(game, "Ana", "attack")
        play(game, "Bo", "attack")
        assert turn(game) == ("Cy", 4)
        play(game, "Cy", "super_skip")
        assert turn(game) == ("Dee", 1) and not game.state.attacked

    def test_out_of_turn_skip_is_refused(self):
        refused(base(), Play("Bo", "skip"), "not_your_turn")


class TestNope:
    @pytest.mark.parametrize("nopes, applied", [(0, True), (1, False), (2, True), (3, False),
                                                (4, True), (5, False)])
    def test_chain_parity(self, nopes, applied):
        game = base()
        game.push(Play("Ana", "attack"))
        for i in range(nopes):
            game.push(Nope(PLAYERS[(i + 1) % 4]))
        assert game.state.pending.nopes == nopes
        assert game.state.pending.cancelled is not applied
        game.push(Resolve())
        assert turn(game) == (("Bo", 2) if applied else ("Ana", 1))

    def test_no_more_nopes_than_the_deck_holds(self):
        game = base()
        game.push(Play("Ana", "skip"))
        for _ in range(5):
            game.push(Nope("Bo"))
        refused(game, Nope("Cy"), "no_more_nopes")

    def test_nothing_to_nope(self):
        refused(base(), Nope("Bo"), "nothing_to_nope")

    def test_kitten_and_defuse_cannot_be_noped(self):
        game = base()
        game.push(Draw("Ana", kitten=True))
        refused(game, Nope("Bo"), "nothing_to_nope")
        game.push(Defuse("Ana"))
        refused(game, Nope("Bo"), "nothing_to_nope")
        assert game.current == "Bo"

    def test_combos_can_be_noped(self):
        game = party()
        game.push(Play("Ana", "five_different"))
        game.push(Nope("Cy"))
        assert game.phase == NOPE_WINDOW and game.state.pending.cancelled

    def test_the_out_cannot_nope(self):
        game = base(["Ana", "Bo", "Cy"])
        game.push(Draw("Ana", kitten=True))
        game.push(Boom("Ana"))
        game.push(Play("Bo", "attack"))
        refused(game, Nope("Ana"), "out")

    def test_the_dead_may_nope(self):
        game = zombie(["Ana", "Bo", "Cy"])
        game.push(Draw("Ana", kitten=True))
        game.push(Boom("Ana"))
        play(game, "Bo", "skip", nopes=["Ana"])
        assert turn(game) == ("Bo", 1)

    def test_nothing_else_while_the_window_is_open(self):
        game = base()
        game.push(Play("Ana", "favor", "Bo"))
        refused(game, Play("Ana", "skip"), "window_open")
        refused(game, Draw("Ana"), "window_open")
        assert game.phase == NOPE_WINDOW

    def test_resolve_needs_a_card(self):
        refused(base(), Resolve(), "nothing_to_resolve")


class TestDrawsAndKittens:
    def test_explode_then_defuse_puts_the_kitten_back(self):
        game = base()
        game.push(Draw("Ana", kitten=True))
        assert game.phase == EXPLODING and (game.state.pile, game.state.kittens) == (34, 2)
        refused(game, Play("Ana", "skip"), "exploding")
        refused(game, Draw("Ana"), "exploding")
        game.push(Defuse("Ana"))
        assert (game.state.pile, game.state.kittens) == (35, 3) and turn(game) == ("Bo", 1)

    def test_defuse_under_attack_uses_one_turn(self):
        game = base()
        play(game, "Ana", "attack")
        game.push(Draw("Bo", kitten=True))
        game.push(Defuse("Bo"))
        assert turn(game) == ("Bo", 1)

    def test_boom_eliminates_and_the_last_player_wins(self):
        game = base(["Ana", "Bo", "Cy"])
        game.push(Draw("Ana", kitten=True))
        game.push(Boom("Ana"))
        assert game.status("Ana") == OUT and turn(game) == ("Bo", 1) and game.state.kittens == 1
        game.push(Draw("Bo", kitten=True))
        game.push(Boom("Bo"))
        assert game.outcome() == Outcome("Cy") and game.is_game_over()
        refused(game, Draw("Cy"), "game_over")

    def test_elimination_drops_owed_turns(self):
        game = base()
        play(game, "Ana", "attack")
        game.push(Draw("Bo", kitten=True))
        game.push(Boom("Bo"))
        assert turn(game) == ("Cy", 1)

    def test_defuse_without_a_kitten(self):
        refused(base(), Defuse("Ana"), "not_exploding")
        refused(base(), Boom("Ana"), "not_exploding")

    def test_only_the_exploding_player_saves(self):
        game = base()
        game.push(Draw("Ana", kitten=True))
        refused(game, Defuse("Bo"), "not_exploding")

    def test_out_of_turn_draw(self):
        refused(base(), Draw("Bo"), "not_your_turn")

    def test_counts_that_cannot_be_refuse(self):
        game = base(["Ana", "Bo"], pile=1)
        refused(game, Draw("Ana"), "only_kittens")
        game.push(Draw("Ana", kitten=True))
        game.push(Defuse("Ana"))
        game = base(["Ana", "Bo"])
        game.push(Draw("Ana", kitten=True))
        game.push(Defuse("Ana"))
        game.push(Draw("Bo", kitten=True))
        game.push(Boom("Bo"))
        assert game.state.kittens == 0 and game.outcome() == Outcome("Ana")

    def test_draw_from_the_bottom_ends_the_turn_with_one_draw(self):
        game = party()
        play(game, "Ana", "draw_from_the_bottom")
        assert game.phase == DRAWING and game.state.pile == 30
        refused(game, Play("Ana", "skip"), "must_draw")
        game.push(Draw("Ana"))
        assert turn(game) == ("Bo", 1) and game.state.pile == 29 and game.phase == PLAY

    def test_dig_deeper_takes_exactly_one_card(self):
        game = zombie()
        pile = game.state.pile
        play(game, "Ana", "dig_deeper")
        game.push(Draw("Ana", kitten=True))
        assert game.state.pile == pile - 1 and game.phase == EXPLODING

    def test_odds(self):
        game = base(["Ana", "Bo", "Cy"], pile=12)
        odds = game.odds()
        assert (odds.pile, odds.kittens, odds.percent) == (12, 2, 17)


class TestZombies:
    def dead_ana(self):
        game = zombie()
        game.push(Draw("Ana", kitten=True))
        game.push(Boom("Ana"))
        return game

    def test_dying_is_allowed_with_a_zombie_kitten_in_hand(self):
        game = self.dead_ana()
        assert game.status("Ana") == DEAD and game.current == "Bo" and game.dead() == ("Ana",)

    def test_the_dead_take_no_turns(self):
        game = self.dead_ana()
        for player in ["Bo", "Cy", "Dee", "Bo"]:
            assert game.current == player
            game.push(Draw(player))

    def test_the_dead_play_nope_and_special_cards_only(self):
        game = self.dead_ana()
        refused(game, Play("Ana", "attack"), "dead")
        refused(game, Play("Ana", "skip"), "dead")
        play(game, "Ana", "shuffle")
        play(game, "Ana", "feed_the_dead", "Ana")
        assert game.current == "Bo"

    def test_the_living_play_special_cards_out_of_turn(self):
        game = self.dead_ana()
        play(game, "Dee", "shuffle")
        play(game, "Cy", "feed_the_dead", "Ana")
        refused(game, Play("Dee", "grave_robber", "Ana"), "not_your_turn")

    def test_nobody_steals_from_the_dead(self):
        game = self.dead_ana()
        for card in ["favor", "pair", "three_of_a_kind"]:
            refused(game, Play("Bo", card, "Ana"), "target_dead")

    def test_feed_the_dead_needs_someone_dead(self):
        game = zombie()
        refused(game, Play("Ana", "feed_the_dead", "Bo"), "nobody_dead")
        refused(game, Play("Ana", "grave_robber", "Bo"), "nobody_dead")
        game = self.dead_ana()
        refused(game, Play("Bo", "grave_robber", "Cy"), "target_not_dead")
        play(game, "Bo", "grave_robber", "Ana")

    def test_zombie_kitten_with_nobody_dead(self):
        game = zombie()
        game.push(Draw("Ana", kitten=True))
        refused(game, ZombieSave("Ana", "Bo"), "revive_not_dead")
        refused(game, Defuse("Ana"), "not_in_deck")
        game.push(ZombieSave("Ana"))
        assert turn(game) == ("Bo", 1) and game.state.kittens == 3

    def test_zombie_kitten_must_revive_and_both_kittens_go_back(self):
        game = self.dead_ana()
        pile = game.state.pile
        game.push(Draw("Bo", kitten=True))
        refused(game, ZombieSave("Bo"), "must_revive")
        refused(game, ZombieSave("Bo", "Cy"), "revive_not_dead")
        game.push(ZombieSave("Bo", "Ana"))
        assert game.living() == ("Ana", "Bo", "Cy", "Dee") and game.dead() == ()
        assert game.state.kittens == 3 and game.state.pile == pile + 1
        assert game.current == "Cy"

    def test_the_last_living_player_wins(self):
        game = zombie(["Ana", "Bo"])
        game.push(Draw("Ana", kitten=True))
        game.push(Boom("Ana"))
        assert game.outcome() == Outcome("Bo")

    def test_clone_copies_the_card_under_it(self):
        game = zombie()
        refused(game, Play("Ana", "clone"), "clone_nothing")
        play(game, "Ana", "attack")
        play(game, "Bo", "clone")
        assert turn(game) == ("Cy", 4)

    def test_clone_not_on_clone_or_special(self):
        game = zombie()
        play(game, "Ana", "see_the_future")
        play(game, "Ana", "clone")
        refused(game, Play("Ana", "clone"), "clone_nothing")
        play(game, "Bo", "shuffle")
        refused(game, Play("Ana", "clone"), "clone_nothing")

    def test_clone_of_favor_needs_a_living_target(self):
        game = zombie()
        play(game, "Ana", "favor", "Bo")
        refused(game, Play("Ana", "clone"), "needs_target")
        play(game, "Ana", "clone", "Cy")

    def test_clairvoyance_after_a_kitten_is_put_back(self):
        game = zombie()
        refused(game, Play("Bo", "clairvoyance"), "clairvoyance_nothing")
        game.push(Draw("Ana", kitten=True))
        game.push(ZombieSave("Ana"))
        refused(game, Play("Ana", "clairvoyance"), "clairvoyance_nothing")
        play(game, "Cy", "clairvoyance")
        play(game, "Dee", "clairvoyance")
        game.push(Draw("Bo"))
        refused(game, Play("Dee", "clairvoyance"), "clairvoyance_nothing")


class TestRefusals:
    def test_card_not_in_this_edition(self):
        refused(base(), Play("Ana", "targeted_attack", "Bo"), "not_in_deck")
        refused(base(), Play("Ana", "nope"), "not_in_deck")
        refused(base(), ZombieSave("Ana"), "not_in_deck")

    def test_out_player_plays_nothing(self):
        game = base(["Ana", "Bo", "Cy"])
        game.push(Draw("Ana", kitten=True))
        game.push(Boom("Ana"))
        refused(game, Play("Ana", "shuffle"), "out")

    def test_favor_needs_another_player(self):
        game = base()
        refused(game, Play("Ana", "favor"), "needs_target")
        refused(game, Play("Ana", "favor", "Ana"), "target_self")
        refused(game, Play("Ana", "skip", "Bo"), "no_target")

    def test_unknown_player(self):
        refused(base(), Draw("Zed"), "unknown_player")

    def test_illegal_move_is_a_value_error_with_the_reason(self):
        with pytest.raises(ValueError, match="not your turn|whose turn"):
            base().push(Play("Bo", "skip"))


class TestUndoAndNotation:
    def test_pop_restores_the_exact_state(self):
        game = base()
        start = game.state
        moves = [Play("Ana", "attack"), Nope("Bo"), Nope("Cy"), Resolve(), Draw("Bo", kitten=True),
                 Defuse("Bo")]
        states = []
        for move in moves:
            states.append(game.state)
            game.push(move)
        for move, state in zip(reversed(moves), reversed(states)):
            assert game.pop() == move and game.state == state
        assert game.state == start

    def test_notation_is_one_line(self):
        game = base(["Ana", "Bo", "Cy"])
        game.push(Draw("Ana", kitten=True))
        game.push(Boom("Ana"))
        game.push(Play("Bo", "attack"))
        game.push(Nope("Cy"))
        assert game.state.notation() == (
            "Ana(out) Bo* Cy | Bo owes 1 | pile 38, kittens 1 | nope_window attack by Bo, 1 nopes")
        assert "Bo*" in repr(game)

    def test_state_repr_can_be_pasted_back(self):
        from gm.kittens import rules
        game = zombie()
        game.push(Play("Ana", "favor", "Bo"))
        assert eval(repr(game.state), vars(rules)) == game.state
