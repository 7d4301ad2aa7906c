"""Whole games through the real `gm play` command, typed in with --transcript, checked on the event log."""

import json


from gm.cli import main

WORDS = ["pooka", "ska", "zee", "aka", "iga", "cha", "toto", "ta", "aki", "ani", "gloo", "paya", "kiki", "moki"]


def play(tmp_path, game, players, lines, *options):
    transcript = tmp_path / "game.txt"
    transcript.write_text("\n".join(lines) + "\n")
    log = tmp_path / "events.jsonl"
    status = main(["play", game, "--players", players, "--transcript", str(transcript), "--events", str(log),
                   "--mute", *options])
    assert status == 0
    return [json.loads(line) for line in log.read_text().splitlines()]


def named(events, name):
    return [{k: v for k, v in e.items() if k not in ("t", "event")} for e in events if e["event"] == name]


def chants(speakers, finishing=()):
    """Right chants for a round: each speaker adds the next word and names the next speaker;
    a speaker listed in `finishing` at that point says Ooga Booga (their last card)."""
    lines = []
    for i in range(len(speakers)):
        chain = " ".join(WORDS[: i + 1])
        ending = "ooga booga" if i in finishing else f"ha {speakers[(i + 1) % len(speakers)]}"
        lines.append(f"{chain} {ending}")
    return lines


class TestOogaBooga:
    PLAYERS = ["ana", "bo", "cy", "dee"]

    def test_a_whole_game_to_its_chief(self, tmp_path):
        round_one = chants(self.PLAYERS * 2 + ["ana"], finishing={8})
        round_two = ["pooka ha bo", "pooka ska ha cy", "ska pooka zee ha dee"]   # Cy swaps two words
        round_three = chants(["cy", "ana", "dee", "cy", "ana", "bo", "cy", "ana"], finishing={7})
        events = play(tmp_path, "ooga-booga", "Ana,Bo,Cy,Dee", round_one + round_two + round_three)
        assert named(events, "round_lost") == [{"player": "Cy", "reason": "wrong_chain"}]
        wrong = named(events, "chant_wrong")
        assert [(w["player"], w["mistake"], w["at"]) for w in wrong] == [("Cy", "swapped", 0)]
        assert named(events, "deal")[-1]["player"] == "Cy" and named(events, "deal")[-1]["cards"] == 3
        assert [e["player"] for e in named(events, "turn")][-8] == "Cy"   # the loser starts round 3
        assert [e["player"] for e in named(events, "round_won")] == ["Ana", "Ana"]
        assert named(events, "chief") == [{"player": "Ana"}]
        assert events[-1]["event"] == "chief"

    def test_deals_after_a_won_round_give_token_holders_one_more(self, tmp_path):
        events = play(tmp_path, "ooga-booga", "Ana,Bo,Cy,Dee", chants(self.PLAYERS * 2 + ["ana"], finishing={8}))
        deals = named(events, "deal")
        assert deals[:4] == [{"player": p, "cards": 3, "hand": 3} for p in ("Ana", "Bo", "Cy", "Dee")]
        after_win = {d["player"]: d["hand"] for d in deals[4:]}
        assert after_win == {"Ana": 4, "Bo": 3, "Cy": 3, "Dee": 3}

    def test_ha_on_the_last_card_loses(self, tmp_path):
        lines = chants(self.PLAYERS * 2 + ["ana"])
        events = play(tmp_path, "ooga-booga", "Ana,Bo,Cy,Dee", lines)
        assert named(events, "round_lost") == [{"player": "Ana", "reason": "no_ooga_booga"}]

    def test_naming_back_is_refused_and_nothing_is_lost(self, tmp_path):
        events = play(tmp_path, "ooga-booga", "Ana,Bo,Cy,Dee", ["pooka ha bo", "pooka ska ha ana", "cy"])
        assert not named(events, "round_lost")
        assert [e["player"] for e in named(events, "turn")] == ["Ana", "Bo", "Cy"]

    def test_seven_players_get_two_cards(self, tmp_path):
        events = play(tmp_path, "ooga-booga", "A,B,C,D,E,F,G", [])
        assert {d["cards"] for d in named(events, "deal")} == {2}

    def test_a_tables_own_words(self, tmp_path):
        events = play(tmp_path, "ooga-booga", "Ana,Bo,Cy,Dee", ["grok ha bo", "grok blit ha cy"],
                      "--words", "grok,blit")
        assert named(events, "chant_ok")[-1] == {"player": "Bo", "chain": ["grok", "blit"]}

    def test_hesitation_loses_the_round(self, tmp_path):
        events = play(tmp_path, "ooga-booga", "Ana,Bo,Cy,Dee", ["1\tpooka ha bo", "9\tpooka ska ha cy"],
                      "--hesitation", "5")
        assert named(events, "round_lost") == [{"player": "Bo", "reason": "hesitated"}]


EXPLODING_KITTENS = [
    "see the future", "attack", "bo attack", "ana nope", "cy nope", "draw", "exploding kitten", "defuse",
    "skip", "favor ana", "draw", "exploding kitten", "boom", "pair cy", "draw", "exploding kitten", "defuse",
    "draw", "draw", "exploding kitten", "boom",
]
PARTY_PACK = [
    "targeted attack cy", "skip", "alter the future", "draw", "five different cards", "exploding kitten", "boom",
    "draw", "draw from the bottom", "exploding kitten", "defuse", "cy exploding kitten", "boom", "shuffle",
    "draw", "three of a kind ana", "draw", "exploding kitten", "boom",
]
ZOMBIE_KITTENS = [
    "exploding kitten", "boom", "ana shuffle", "bo attack", "ana nope", "exploding kitten", "zombie kitten ana",
    "super skip", "dig deeper", "exploding kitten", "boom", "feed the dead dee", "draw", "exploding kitten",
    "boom", "attack of the dead", "draw", "exploding kitten", "boom",
]


class TestExplodingKittens:
    def test_base_game_to_its_winner(self, tmp_path):
        events = play(tmp_path, "exploding-kittens", "Ana,Bo,Cy", EXPLODING_KITTENS)
        assert named(events, "setup")[0]["pile"] == 39
        assert named(events, "nope") == [{"player": "Ana", "count": 1}, {"player": "Cy", "count": 2}]
        assert named(events, "resolved")[2] == {"card": "attack", "applied": True, "nopes": 2}
        assert {"player": "Cy", "turns_owed": 4} in named(events, "turn")
        assert named(events, "eliminated") == [{"player": "Ana"}, {"player": "Bo"}]
        assert named(events, "winner") == [{"player": "Cy"}]
        assert events[-1]["event"] == "winner"

    def test_party_pack_to_its_winner(self, tmp_path):
        events = play(tmp_path, "party-pack", "Ana,Bo,Cy,Dee", PARTY_PACK, "--pile", "20")
        assert [e["player"] for e in named(events, "eliminated")] == ["Dee", "Cy", "Ana"]
        assert named(events, "winner") == [{"player": "Bo"}]

    def test_zombie_kittens_to_its_winner(self, tmp_path):
        events = play(tmp_path, "zombie-kittens", "Ana,Bo,Cy,Dee", ZOMBIE_KITTENS)
        assert [e["player"] for e in named(events, "died")] == ["Ana", "Dee", "Bo", "Ana"]
        assert named(events, "revived") == [{"player": "Ana", "by": "Bo"}]
        assert named(events, "winner") == [{"player": "Cy"}]

    def test_odds_at_every_turn(self, tmp_path, capsys):
        play(tmp_path, "exploding-kittens", "Ana,Bo,Cy", ["draw", "draw"], "--odds")
        out = capsys.readouterr().out
        assert "39 cards, 2 kittens: 5 percent." in out and "38 cards, 2 kittens: 5 percent." in out

    def test_party_pack_without_a_counted_pile_is_a_clear_error(self, tmp_path, capsys):
        transcript = tmp_path / "t.txt"
        transcript.write_text("draw\n")
        assert main(["play", "party-pack", "--players", "Ana,Bo,Cy", "--transcript", str(transcript), "--mute"]) == 2
        assert "pile" in capsys.readouterr().err
