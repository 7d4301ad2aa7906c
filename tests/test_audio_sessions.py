"""Whole sessions of synthesized speech through the real recognizer (PocketSphinx), the real referees
and the real `gm play --input` command, checked event by event.

The synthetic players answer the game master (they say a line again when asked, the table decides
when asked), and the recording that results is then refereed once more by the command: it must give
the very same events.
"""

import json

import pytest

from gm.cli import main
from gm.kittens.referee import KittensReferee
from gm.ooga_booga.referee import OogaBoogaReferee
from gm.phrases import Phrases
from gm.recognizers.pocketsphinx_recognizer import PocketSphinxRecognizer
from gm.synth import Voice
from simulated_table import Line, play

VOICES = {
    "ana": Voice("piper", varied=False),
    "bo": Voice("piper", length_scale=1.15, varied=False),
    "cy": Voice("piper", length_scale=1.05, tempo=0.95, varied=False),
    "dee": Voice("piper", length_scale=0.9, varied=False),
}
TABLE = Voice("piper", varied=False)

OOGA_BOOGA = [  # (speaker, chant, right?) for Ana, Bo, Cy, Dee with 3 cards each
    ("ana", "pooka ha bo", True), ("bo", "pooka ska ha cy", True),
    ("cy", "pooka zee ha dee", False),                                   # skipped a word
    ("cy", "aka ha dee", True), ("dee", "aka iga ha ana", True),
    ("ana", "iga aka cha ha bo", False),                                 # two words swapped
    ("ana", "toto ha bo", True), ("bo", "toto moki ha cy", True),
    ("cy", "toto kiki ta ha dee", False),                                # a wrong word
    ("cy", "gloo ha bo", True),
    ("bo", "gloo paya ha dee", False),                                   # "ha" on the last card
    ("bo", "aki ha dee", True), ("dee", "aki ani ha ana", True), ("ana", "aki ani yonka ha cy", True),
    ("cy", "aki ani yonka toka ha dee", True),
    ("dee", "aki ani yonka toka rumba ooga booga", True),                # Dee wins a round
    ("dee", "pooka ha ana", True), ("ana", "pooka ska ha bo", True), ("bo", "pooka ska zee ha dee", True),
    ("dee", "pooka ska zee aka ha cy", True),
    ("cy", "ska pooka zee aka iga ha ana", False),                       # swapped again
    ("cy", "cha ha dee", True), ("dee", "cha toto ha ana", True), ("ana", "cha toto ta ha bo", True),
    ("bo", "cha toto ta moki ha dee", True),
    ("dee", "cha toto ta moki gloo ooga booga", True),                   # Dee, holding a token: chief
]


def logged(path):
    return [(e.pop("event"), {k: v for k, v in e.items() if k != "t"})
            for e in map(json.loads, path.read_text().splitlines())]


def as_logged(events):
    return [(e.name, json.loads(json.dumps(e.fields))) for e in events]


def replay(tmp_path, played, game, players, *options):
    from gm.audio import write_wav
    recording, log = tmp_path / "session.wav", tmp_path / "events.jsonl"
    write_wav(recording, played.recording)
    assert main(["play", game, "--players", players, "--input", str(recording), "--events", str(log),
                 "--mute", "--engine", "pocketsphinx", *options]) == 0
    return logged(log)


@pytest.fixture(scope="module")
def ooga_booga():
    referee = OogaBoogaReferee(["Ana", "Bo", "Cy", "Dee"], Phrases.load("en", "ooga_booga"))
    script = [Line(speaker, text, right) for speaker, text, right in OOGA_BOOGA]
    return play(referee, PocketSphinxRecognizer(), script, VOICES, TABLE)


class TestOogaBoogaSession:
    def test_no_right_chant_is_called_wrong(self, ooga_booga):
        for line, answer in ooga_booga.said:
            if line.player != "table" and line.right:
                assert "chant_wrong" not in [e.name for e in answer], (line, answer)

    def test_no_wrong_chant_is_accepted(self, ooga_booga):
        for line, answer in ooga_booga.said:
            if line.player != "table" and not line.right:
                assert "chant_ok" not in [e.name for e in answer], (line, answer)

    def test_every_mistake_loses_its_round(self, ooga_booga):
        losers = [e.fields["player"] for e in ooga_booga.events if e.name == "round_lost"]
        assert losers == ["Cy", "Ana", "Cy", "Bo", "Cy"]

    def test_the_table_decides_with_the_truth(self, ooga_booga):
        decided = [e.fields["right"] for e in ooga_booga.events if e.name == "table_decided"]
        asked = [line for line, answer in ooga_booga.said
                 if line.player != "table" and "table_asked" in [e.name for e in answer]]
        assert decided == [line.right for line in asked]

    def test_a_round_won_and_the_chief(self, ooga_booga):
        assert [e.fields for e in ooga_booga.events if e.name == "round_won"] == [{"player": "Dee"}] * 2
        assert ooga_booga.events[-2:][-1].name == "chief" or any(e.name == "chief" for e in ooga_booga.events)
        assert [e.fields for e in ooga_booga.events if e.name == "chief"] == [{"player": "Dee"}]

    def test_verdicts_are_reported(self, ooga_booga, capsys):
        chants = [(line, {e.name for e in answer}) for line, answer in ooga_booga.said if line.player != "table"]
        right = sum(1 for line, names in chants if ("chant_ok" in names) == line.right and names & {"chant_ok", "chant_wrong"})
        unsure = sum(1 for _, names in chants if names & {"say_again", "table_asked"})
        with capsys.disabled():
            print(f"\nOoga Booga audio session: {len(chants)} chants said, {right} judged right at once, "
                  f"{unsure} asked again or put to the table, 0 judged wrong")
        assert right + unsure <= len(chants)

    def test_the_recording_replays_to_the_same_events(self, ooga_booga, tmp_path):
        assert replay(tmp_path, ooga_booga, "ooga-booga", "Ana,Bo,Cy,Dee") == as_logged(ooga_booga.events)


CAUSES = {"nope": {"nope"}, "draw": {"draw", "exploding_kitten"}, "exploded": {"exploding_kitten"},
          "defused": {"defuse"}, "zombie_saved": {"zombie_kitten"}, "revived": {"zombie_kitten"},
          "eliminated": {"boom"}, "died": {"boom"}}
"""Which calls can cause each game event ("card" is caused by its own card)."""


def kittens_session(edition, players, lines, **options):
    """A session of calls, each said by the next voice in turn."""
    voices = list(VOICES)
    script = [Line(voices[i % len(voices)], text) for i, text in enumerate(lines)]
    referee = KittensReferee(edition, players, **options)
    return referee, play(referee, PocketSphinxRecognizer(), script, VOICES, TABLE)


class TestExplodingKittensSessions:
    @pytest.mark.parametrize("edition,players,lines,options", [
        ("exploding-kittens", ["Ana", "Bo", "Cy"], "EXPLODING_KITTENS", {}),
        ("party-pack", ["Ana", "Bo", "Cy", "Dee"], "PARTY_PACK", {"pile": 20}),
        ("zombie-kittens", ["Ana", "Bo", "Cy", "Dee"], "ZOMBIE_KITTENS", {}),
    ], ids=["base", "party-pack", "zombie-kittens"])
    def test_a_whole_game_by_voice(self, tmp_path, edition, players, lines, options, capsys):
        import test_play_transcripts
        said = [text.replace("boom", "i explode") for text in getattr(test_play_transcripts, lines)]
        referee, played = kittens_session(edition, players, said, **options)
        taken = 0
        for line, answer in played.said:
            call = referee.calls.parse(line.text.split())
            for event in answer:
                if event.name == "card":
                    assert event.fields["card"] == call.action, (line, answer)
                elif event.name in CAUSES:
                    assert call.action in CAUSES[event.name], (line, answer)
            taken += any(e.name == "card" or e.name in CAUSES for e in answer)
        with capsys.disabled():
            print(f"\n{edition} audio session: {len(played.said)} calls said, {taken} taken, "
                  f"{sum(1 for _, a in played.said for e in a if e.name == 'not_understood')} asked again, "
                  f"none taken wrongly; winner: {[e.fields for e in played.events if e.name == 'winner']}")
        assert taken >= len(said) // 2
        assert [e for e in played.events if e.name == "winner"], "the game is played to its end by voice"
        extra = ["--pile", str(options["pile"])] if "pile" in options else []
        assert replay(tmp_path, played, edition, ",".join(players), *extra) == as_logged(played.events)


def test_a_call_word_at_the_start_of_table_talk_plays_no_card(tmp_path, talker):
    """Talk that begins like a call must not be closed on the call the moment it looks whole: the
    game master waits for the talker's pause, hears the talk it cannot name, and takes nothing."""
    from gm.audio import write_wav
    recording, log = tmp_path / "talk.wav", tmp_path / "events.jsonl"
    write_wav(recording, talker("shuffle. these chips are really salty, my hands are sticky.", lead_in=1.0))
    assert main(["play", "exploding-kittens", "--players", "Ana,Bo,Cy", "--input", str(recording),
                 "--events", str(log), "--mute", "--engine", "pocketsphinx"]) == 0
    events = logged(log)
    assert [fields["reason"] for name, fields in events if name == "not_understood"][:1] == ["talk"]
    assert not [name for name, _ in events if name in ("card", "draw")]


def test_a_chant_lost_in_loud_noise_is_not_called_too_slow(tmp_path, hiss):
    """In white noise as loud as the talker the chant never stands out from the room, so it opens no
    utterance; the speech detector still hears a voice. Time runs out only on a quiet player."""
    from gm import synth
    from gm.audio import write_wav

    recording, log = tmp_path / "noisy.wav", tmp_path / "events.jsonl"
    write_wav(recording, hiss(synth.speak("pooka ska ha bo", VOICES["ana"]), 0.0, 1.0, 3.0))
    assert main(["play", "ooga-booga", "--players", "Ana,Bo,Cy,Dee", "--input", str(recording), "--events", str(log),
                 "--mute", "--engine", "pocketsphinx", "--hesitation", "2"]) == 0
    assert [fields for name, fields in logged(log) if name == "round_lost"] == []
