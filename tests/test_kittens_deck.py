"""Deck files and setup for the player count: cards used, save cards handed out, pile size."""

import subprocess
import sys

import pytest

from gm.kittens.deck import DeckError, load_deck, parse_deck
from gm.kittens.rules import EDITIONS, ExplodingKittens, PartyPack, SetupError, ZombieKittens


def names(n):
    return [f"P{i}" for i in range(n)]


class TestDeckFiles:
    def test_base_game_has_56_cards(self):
        deck = load_deck("exploding-kittens")
        assert sum(count.count for _, count in deck.cards) == 56
        assert deck.card("exploding_kitten").count == 4 and deck.card("defuse").count == 6
        assert len(deck.cats) == 5

    def test_zombie_paw_split_matches_the_rulebook(self):
        deck = load_deck("zombie-kittens")
        paw, plain = deck.counts("paw"), deck.counts("plain")
        assert sum(paw.values()) - paw["exploding_kitten"] == 24
        assert sum(plain.values()) - plain["exploding_kitten"] == 33

    def test_party_pack_split_is_unknown(self):
        deck = load_deck("party-pack")
        assert deck.counts("paw") is None and deck.counts("plain") is None
        assert sum(deck.counts("all").values()) == 85

    def test_every_edition_has_a_deck_file(self):
        for edition in EDITIONS:
            assert load_deck(edition).name == edition.replace("-", "_")

    def test_missing_file(self, tmp_path):
        with pytest.raises(DeckError, match="missing"):
            load_deck("exploding-kittens", tmp_path)

    def test_broken_file(self, tmp_path):
        (tmp_path / "mine.toml").write_text("[cards\n")
        with pytest.raises(DeckError, match="cannot be read"):
            load_deck("mine", tmp_path)

    @pytest.mark.parametrize("cards, message", [
        ({"exploding_kitten": {"count": -1}}, "needs a count"),
        ({"exploding_kitten": {"count": 4}, "skip": {"count": 2, "paw": 3}}, "paw must be"),
        ({"exploding_kitten": {"count": 4}, "skip": {"count": 2, "paw": 1}, "nope": {"count": 2}},
         "for every card"),
        ({"skip": {"count": 2}}, "needs exploding_kitten"),
        ({"exploding_kitten": {"count": 4}, "skip": {"count": 2, "colour": "red"}}, "unknown field"),
        ({"exploding_kitten": 4}, "must be a table"),
    ])
    def test_bad_counts_are_named(self, cards, message):
        with pytest.raises(DeckError, match=message):
            parse_deck("mine", {"cards": cards})

    def test_a_table_can_fix_a_count(self, tmp_path):
        text = (load_deck.__globals__["DECK_DIRECTORY"] / "exploding_kittens.toml").read_text()
        (tmp_path / "exploding_kittens.toml").write_text(text.replace("defuse = { count = 6 }",
                                                                      "defuse = { count = 7 }"))
        game = ExplodingKittens(load_deck("exploding-kittens", tmp_path), names(4))
        assert game.setup.saves_back == 3 and game.setup.pile == 36


class TestBaseSetup:
    def test_seed_setup_four_players(self):
        setup = ExplodingKittens(load_deck("exploding-kittens"), names(4)).setup
        # 46 other cards - 4 x 4 dealt + 2 spare Defuses + 3 kittens
        assert (setup.dealt, setup.saves_back, setup.kittens, setup.pile) == (4, 2, 3, 35)

    @pytest.mark.parametrize("players, pile", [(2, 43), (3, 39), (4, 35), (5, 31)])
    def test_seed_pile_for_each_count(self, players, pile):
        assert ExplodingKittens(load_deck("exploding-kittens"), names(players)).setup.pile == pile

    @pytest.mark.parametrize("players, back, boxed, pile", [(2, 2, 2, 35), (4, 2, 0, 23), (5, 1, 0, 16)])
    def test_current_printing(self, players, back, boxed, pile):
        setup = ExplodingKittens(load_deck("exploding-kittens"), names(players), printing="current").setup
        assert (setup.dealt, setup.saves_back, setup.saves_boxed, setup.pile) == (7, back, boxed, pile)

    @pytest.mark.parametrize("players", [1, 6])
    def test_player_count_out_of_range(self, players):
        with pytest.raises(SetupError, match="2 to 5 players"):
            ExplodingKittens(load_deck("exploding-kittens"), names(players))

    def test_unknown_printing(self):
        with pytest.raises(SetupError, match="no 'deluxe' setup; choose seed or current"):
            ExplodingKittens(load_deck("exploding-kittens"), names(3), printing="deluxe")
        with pytest.raises(SetupError, match="no 'current' setup"):
            PartyPack(load_deck("party-pack"), names(8), printing="current")

    def test_same_name_twice(self):
        with pytest.raises(SetupError, match="same name"):
            ExplodingKittens(load_deck("exploding-kittens"), ["Ana", "ana"])

    def test_start_must_be_a_player(self):
        with pytest.raises(SetupError, match="not one of the players"):
            ExplodingKittens(load_deck("exploding-kittens"), ["Ana", "Bo"], "Cy")
        assert ExplodingKittens(load_deck("exploding-kittens"), ["Ana", "Bo"], "Bo").current == "Bo"


class TestPartyPackSetup:
    @pytest.mark.parametrize("players, use", [(2, "paw"), (3, "paw"), (4, "plain"), (7, "plain"),
                                              (8, "all"), (10, "all")])
    def test_paw_prints_by_player_count(self, players, use):
        assert PartyPack(load_deck("party-pack"), names(players), pile=30).setup.use == use

    def test_unknown_split_needs_the_counted_pile(self):
        with pytest.raises(SetupError, match="count the draw pile"):
            PartyPack(load_deck("party-pack"), names(4))
        setup = PartyPack(load_deck("party-pack"), names(4), pile=30).setup
        assert (setup.pile, setup.kittens, setup.dealt, setup.counts) == (30, 3, 7, None)

    def test_all_cards_from_eight_players(self):
        setup = PartyPack(load_deck("party-pack"), names(8)).setup
        # 65 other cards - 8 x 7 dealt + 3 spare Defuses + 7 kittens
        assert (setup.saves_back, setup.pile) == (3, 19)

    def test_listed_deck_too_small_for_ten(self):
        with pytest.raises(SetupError, match="too few cards"):
            PartyPack(load_deck("party-pack"), names(10))
        assert PartyPack(load_deck("party-pack"), names(10), pile=20).setup.pile == 20

    def test_pile_must_hold_the_kittens(self):
        with pytest.raises(SetupError, match="cannot hold"):
            PartyPack(load_deck("party-pack"), names(5), pile=3)


class TestZombieSetup:
    @pytest.mark.parametrize("players, use, back, pile", [(2, "paw", 0, 9), (3, "plain", 0, 11),
                                                           (4, "all", 1, 28), (5, "all", 0, 21)])
    def test_setup(self, players, use, back, pile):
        setup = ZombieKittens(load_deck("zombie-kittens"), names(players)).setup
        assert (setup.use, setup.save_card, setup.saves_back, setup.pile) == (use, "zombie_kitten", back, pile)

    def test_cards_missing_from_the_two_player_deck_are_not_playable(self):
        game = ZombieKittens(load_deck("zombie-kittens"), names(2))
        assert "feed_the_dead" not in game.playable and "attack_of_the_dead" not in game.playable
        assert "feed_the_dead" in game.cards


def test_rules_import_no_audio_or_speech_package():
    code = ("import sys, gm.kittens.rules, gm.kittens.deck; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'vosk', 'pocketsphinx', 'sounddevice', 'pyttsx3', 'rapidfuzz') "
            "or m in ('gm.speech', 'gm.audio', 'gm.phrases')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
