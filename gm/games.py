"""The games gm referees, by the name the command line uses, and how each referee is built from options."""

from __future__ import annotations

from argparse import Namespace
from typing import Sequence

from gm.phrases import Phrases
from gm.referee import Referee

KITTEN_EDITIONS = ("exploding-kittens", "party-pack", "zombie-kittens")
GAMES = ("ooga-booga", *KITTEN_EDITIONS)


def make_referee(game: str, players: Sequence[str], options: Namespace) -> tuple[Referee, Phrases]:
    """The referee for `game` at this table, and the phrases it speaks with.

    Raises ValueError (with a message for the table) for a bad player list or setup."""
    if game == "ooga-booga":
        from gm.ooga_booga.referee import OogaBoogaReferee
        phrases = Phrases.load(options.language, "ooga_booga")
        referee: Referee = OogaBoogaReferee(
            players, phrases, start=options.start,
            extra_words=(options.words or "").replace(",", " ").split(),
            hesitation=options.hesitation, winner_starts=options.after_win == "winner")
        return referee, phrases
    if game in KITTEN_EDITIONS:
        from gm.kittens.referee import KittensReferee
        phrases = Phrases.load(options.language, "exploding_kittens")
        referee = KittensReferee(game, players, start=options.start, odds=options.odds,
                                 printing=options.printing, pile=options.pile, phrases=phrases)
        return referee, phrases
    raise ValueError(f"unknown game '{game}': choose one of {', '.join(GAMES)}")
