"""Speech recognition engines behind one interface (gm.speech.Recognizer), and the choice between them.

Vosk is the better engine but needs a model for the players' language (`gm models download LANG`);
PocketSphinx ships an English model inside its wheel, so English works with no download.
"""

from __future__ import annotations

from gm.speech import Recognizer, RecognizerError

ENGINES = ("auto", "vosk", "pocketsphinx")


def open_recognizer(engine: str = "auto", language: str = "en", model: str | None = None) -> tuple[Recognizer, str]:
    """The chosen engine, ready to listen, and one line saying which was taken and why."""
    from gm.models import find_model

    if engine not in ENGINES:
        raise RecognizerError(f"unknown engine '{engine}': choose one of {', '.join(ENGINES)}")
    path = find_model(model or language) if engine in ("auto", "vosk") else None
    if engine == "vosk" or (engine == "auto" and path is not None):
        if path is None:
            raise RecognizerError(f"no Vosk model for '{model or language}': "
                                  f"run `gm models download {language}` or use --engine pocketsphinx")
        from gm.recognizers.vosk_recognizer import VoskRecognizer
        why = "chosen" if engine == "vosk" else f"a model for '{language}' is present"
        return VoskRecognizer(path), f"listening with Vosk ({path.name}): {why}"
    if language != "en":
        raise RecognizerError(f"PocketSphinx has only an English model; for '{language}' run "
                              f"`gm models download {language}` and use Vosk")
    from gm.recognizers.pocketsphinx_recognizer import PocketSphinxRecognizer
    why = "chosen" if engine == "pocketsphinx" else f"no Vosk model for '{language}' in models/"
    return PocketSphinxRecognizer(), f"listening with PocketSphinx (English model in its wheel): {why}"
