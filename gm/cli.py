"""The `gm` command: a thin layer that parses options, builds the pipeline and reports errors in one line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gm.audio import AudioError, list_devices, microphone_chunks, wav_chunks
from gm.events import EventLog
from gm.narration import FileNarrator, Narrator, NoOutputDevice, SpeakerNarrator
from gm.phrases import PhraseError, Phrases
from gm.pipeline import Session, read_transcript, run_audio, run_transcript, transcribe
from gm.speech import RecognizerError, normalize_words

from gm.games import GAMES
EXIT_USAGE = 2


class UsageError(Exception):
    """A problem with how gm was called or set up; its message names the fix."""


def _words(text: str | None) -> list[str]:
    return normalize_words((text or "").replace(",", " "))


def _add_listening(parser: argparse.ArgumentParser):
    """Options of every command that listens; returns the input group so play can add --transcript."""
    group = parser.add_argument_group("listening")
    source = group.add_mutually_exclusive_group()
    source.add_argument("--input", metavar="FILE.wav", type=Path,
                        help="listen to a recording instead of the microphone (any rate, any channels)")
    group.add_argument("--realtime", action="store_true",
                       help="replay --input at real speed, exactly like a live session")
    group.add_argument("--device", metavar="NAME|INDEX",
                       help="microphone by index or by parts of its name (see `gm devices`)")
    group.add_argument("--engine", choices=("auto", "vosk", "pocketsphinx"), default="auto",
                       help="recognizer: auto takes Vosk when a model for the language is present, "
                            "else PocketSphinx (default: auto)")
    group.add_argument("--model", metavar="NAME|PATH",
                       help="Vosk model folder under models/ or a path (default: the language's model)")
    group.add_argument("--language", default="en", help="players' language (default: en)")
    return source


def _add_narration(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("narration").add_mutually_exclusive_group()
    group.add_argument("--mute", action="store_true", help="print narration only, speak nothing")
    group.add_argument("--speak-to", metavar="FILE.wav", type=Path,
                       help="write all narration into one WAV file on the session's timeline")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gm", description="An offline, speech-driven game master for party card games.",
        epilog="Example: gm play ooga-booga --players Ana,Bo,Cy,Dee")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    play = commands.add_parser(
        "play", help="referee a game by voice",
        description="Referee a game: listen to the table, judge, and narrate.",
        epilog="Examples:\n  gm play ooga-booga --players Ana,Bo,Cy,Dee\n"
               "  gm play zombie-kittens --players Ana,Bo,Cy --transcript game.txt --events log.jsonl --mute",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    play.add_argument("game", choices=GAMES, help="which game")
    play.add_argument("--players", required=True, metavar="A,B,C",
                      help="player names in seating order (clockwise)")
    play.add_argument("--start", metavar="NAME", help="who starts (default: the first player named)")
    source = _add_listening(play)
    source.add_argument("--transcript", metavar="FILE.txt", type=Path,
                        help="typed play, skipping recognition: one utterance per line, "
                             "optionally SECONDS<TAB>words")
    play.add_argument("--events", metavar="FILE.jsonl", type=Path,
                      help="append one JSON object per event to this file, as it happens")
    _add_narration(play)
    ooga = play.add_argument_group("Ooga Booga")
    ooga.add_argument("--words", metavar="W1,W2", help="card words of your own deck, added to the known ones")
    ooga.add_argument("--hesitation", type=float, metavar="SECONDS",
                      help="a named player who has not started within this many seconds of quiet loses the "
                           "round (default: off)")
    ooga.add_argument("--after-win", choices=("winner", "first"), default="winner",
                      help="who starts after a won round: its winner (default) or the game's first player")
    kittens = play.add_argument_group("Exploding Kittens")
    kittens.add_argument("--odds", action="store_true", help="say the odds of drawing a kitten at every turn")
    kittens.add_argument("--printing", choices=("seed", "current"), default="seed",
                         help="base game setup: seed (4 cards + 1 Defuse, default) or current (7 + 1)")
    kittens.add_argument("--pile", type=int, metavar="N",
                         help="draw pile size after setup, as counted at the table (Party Pack)")

    listen = commands.add_parser(
        "listen", help="print what the recognizer hears",
        description="Print each utterance as it is recognized: time, words, confidence.",
        epilog="Example: gm listen --input chant.wav --words ooga,booga,pooka,ha --json")
    _add_listening(listen)
    listen.add_argument("--words", metavar="W1,W2", help="listen only for these words "
                        "(default: the calls of every game, from phrases/<language>/common.toml)")
    listen.add_argument("--json", action="store_true", help="one JSON object per utterance")
    listen.add_argument("--partial", action="store_true", help="also print partial results")

    say = commands.add_parser("say", help="speak a sentence with the narrator's voice",
                              description="Speak a sentence aloud (or into a WAV file).",
                              epilog='Example: gm say "Ana takes four cards" --speak-to out.wav')
    say.add_argument("text", help="what to say")
    say.add_argument("--speak-to", metavar="FILE.wav", type=Path, help="write the speech to this file")
    say.add_argument("--language", default="en", help="voice language (default: en)")

    commands.add_parser("devices", help="list sound devices", description="List sound devices; "
                        "< marks the default input, > the default output.", epilog="Example: gm devices")

    models = commands.add_parser("models", help="list or download Vosk models",
                                 description="Vosk models live in models/ (or $GM_MODELS).",
                                 epilog="Examples:\n  gm models list\n  gm models download en",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    model_commands = models.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    model_commands.add_parser("list", help="models present and models that can be downloaded",
                              description="List installed models and the official small ones to download.",
                              epilog="Example: gm models list")
    download = model_commands.add_parser("download", help="fetch a language's official small model",
                                         description="Download, check and unpack a language's small model.",
                                         epilog="Example: gm models download en")
    download.add_argument("language", help="language code, e.g. en, ko, fa, id, vi")
    download.add_argument("--from", dest="source", metavar="URL",
                          help="fetch from this base URL or model list instead of the official site")

    bench = commands.add_parser("bench", help="measure speed and accuracy",
                                description="Benchmarks that print their figures.",
                                epilog="Example: gm bench listen")
    bench.add_argument("benchmark", choices=("listen", "judge"), help="which benchmark")
    bench.add_argument("--small", action="store_true", help="a few dozen utterances only (quick check)")
    bench.add_argument("--engine", choices=("all", "vosk", "pocketsphinx"), default="all",
                       help="which engines to measure (default: all)")
    bench.add_argument("--report", metavar="FILE.md", type=Path, help="also write a markdown report here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (UsageError, AudioError, RecognizerError, PhraseError, ValueError, OSError) as error:
        print(f"gm: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _recognizer(args):
    from gm.recognizers import open_recognizer
    recognizer, reason = open_recognizer(args.engine, args.language, args.model)
    print(f"gm: {reason}", file=sys.stderr, flush=True)
    return recognizer


def _chunks(args):
    """The audio source, checked before any model loads."""
    if args.input:
        return wav_chunks(args.input, realtime=args.realtime)
    return microphone_chunks(args.device)


def cmd_listen(args) -> int:
    words = _words(args.words) or [str(w) for w in Phrases.load(args.language).table("listen").get("words", [])]
    chunks = _chunks(args)
    recognizer = _recognizer(args)
    vocabulary = recognizer.set_vocabulary(words)
    if vocabulary.missing:
        print(f"gm: cannot hear these words with {recognizer.name}: {', '.join(vocabulary.missing)}",
              file=sys.stderr)
    for utterance in transcribe(recognizer, chunks, partials=args.partial):
        if args.json:
            print(json.dumps({
                "start": round(utterance.start, 3), "end": round(utterance.end, 3),
                "final": utterance.final, "text": utterance.text,
                "words": [{"word": w.text, "conf": round(w.confidence, 3), "start": round(w.start, 3),
                           "end": round(w.end, 3)} for w in utterance.words],
                "alternatives": [{"text": h.text, "score": round(h.score, 3)} for h in utterance.alternatives],
            }), flush=True)
        else:
            words = " ".join(f"{w.text}({w.confidence:.2f})" for w in utterance.words)
            mark = "" if utterance.final else "~"
            print(f"{mark}{utterance.start:7.2f}-{utterance.end:.2f}  {words}", flush=True)
    recognizer.close()
    return 0


def _narrator(args, phrases: Phrases) -> Narrator:
    if args.mute:
        return Narrator()
    if args.speak_to:
        return FileNarrator(args.speak_to, args.language)
    try:
        return SpeakerNarrator(args.language)
    except NoOutputDevice as error:
        print(f"gm: {phrases.say('no_speaker', reason=error)}", file=sys.stderr, flush=True)
        return Narrator()


def cmd_play(args) -> int:
    from gm.games import make_referee
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    referee, phrases = make_referee(args.game, players, args)
    narrator = _narrator(args, phrases)
    events = EventLog(args.events)
    session = Session(referee, narrator, events)
    try:
        if args.transcript:
            run_transcript(session, read_transcript(args.transcript))
        else:
            chunks = _chunks(args)
            recognizer = _recognizer(args)
            run_audio(session, recognizer, chunks)
            recognizer.close()
    finally:
        narrator.close()
        events.close()
    return 0


def cmd_say(args) -> int:
    phrases = Phrases.load(args.language)
    if args.speak_to:
        narrator: Narrator = FileNarrator(args.speak_to, args.language)
    else:
        try:
            narrator = SpeakerNarrator(args.language)
        except NoOutputDevice as error:
            print(f"gm: {phrases.say('no_speaker', reason=error)}", file=sys.stderr)
            print(args.text)
            return EXIT_USAGE
    narrator.say(args.text, 0.0)
    narrator.close()
    return 0


def cmd_devices(args) -> int:
    devices = list_devices()
    if not devices:
        print("no sound devices found (no sound card, or PortAudio sees none)")
    for device in devices:
        print(device)
    return 0


def cmd_models(args) -> int:
    from gm import models
    if args.models_command == "list":
        for line in models.describe():
            print(line)
        return 0
    path = models.download_model(args.language, source=args.source, progress=models.print_progress)
    print(f"model ready: {path}")
    return 0


def cmd_bench(args) -> int:
    from gm import bench
    return bench.run(args)


COMMANDS = {"play": cmd_play, "listen": cmd_listen, "say": cmd_say, "devices": cmd_devices,
            "models": cmd_models, "bench": cmd_bench}
