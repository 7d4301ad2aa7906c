"""Deck compositions, read from the editable files `gm/decks/<edition>.toml`.

Printings differ and a table may fix a count for its own box, so the counts live in data files.
This module only reads and checks them; the rules take the loaded `Deck` value.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

DECK_DIRECTORY = Path(__file__).resolve().parent.parent / "decks"

KITTEN = "exploding_kitten"
"""The one card without a paw print in any edition: it is taken out before sorting by paw print."""

USES = ("all", "paw", "plain")
"""Which copies a game uses: every card, only those with the paw print, only those without."""


class DeckError(ValueError):
    """A deck file is missing or malformed; the message names the file and the card."""


@dataclass(frozen=True)
class CardCount:
    """How many copies of one card a box holds."""

    count: int
    paw: int | None = None
    """Copies carrying the paw print; None when the split is not known."""
    cat: bool = False
    """A cat card: does nothing alone, only in pairs and combos."""

    def copies(self, use: str) -> int | None:
        """Copies in play for `use` ("all", "paw", "plain"); None when the split is unknown."""
        if use == "all":
            return self.count
        if self.paw is None:
            return None
        return self.paw if use == "paw" else self.count - self.paw


@dataclass(frozen=True)
class Deck:
    """One edition's box: card name -> count, in the file's order."""

    name: str
    title: str
    min_players: int
    max_players: int
    cards: tuple[tuple[str, CardCount], ...]

    def card(self, name: str) -> CardCount:
        for card, count in self.cards:
            if card == name:
                return count
        return CardCount(0, 0)

    @property
    def cats(self) -> tuple[str, ...]:
        return tuple(name for name, count in self.cards if count.cat)

    def counts(self, use: str) -> dict[str, int] | None:
        """Cards in play when only `use` copies are kept (kittens always counted in full);
        None when the deck file does not say which copies carry the paw print."""
        if use not in USES:
            raise DeckError(f"unknown card selection {use!r}; expected one of {', '.join(USES)}")
        counts = {}
        for name, count in self.cards:
            copies = count.count if name == KITTEN else count.copies(use)
            if copies is None:
                return None
            counts[name] = copies
        return counts


def load_deck(edition: str, directory: Path | None = None) -> Deck:
    """Read `<directory>/<edition>.toml` ("party-pack" and "party_pack" name the same file)."""
    name = edition.replace("-", "_")
    path = (directory or DECK_DIRECTORY) / f"{name}.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DeckError(f"deck file {path} is missing") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise DeckError(f"deck file {path} cannot be read: {error}") from None
    return parse_deck(name, data, str(path))


def parse_deck(name: str, data: dict, source: str = "deck") -> Deck:
    """Check a deck file's contents: counts are whole numbers, paw counts given for all or none."""
    table = data.get("cards")
    if not isinstance(table, dict) or not table:
        raise DeckError(f"{source}: needs a [cards] table")
    cards = []
    for card, entry in table.items():
        if not isinstance(entry, dict):
            raise DeckError(f"{source}: card {card!r} must be a table such as {{ count = 4 }}")
        count, paw, cat = entry.get("count"), entry.get("paw"), entry.get("cat", False)
        if not _whole(count):
            raise DeckError(f"{source}: card {card!r} needs a count (a whole number, 0 or more)")
        if paw is not None and not (_whole(paw) and paw <= count):
            raise DeckError(f"{source}: card {card!r}: paw must be a whole number from 0 to {count}")
        if not isinstance(cat, bool):
            raise DeckError(f"{source}: card {card!r}: cat must be true or false")
        unknown = set(entry) - {"count", "paw", "cat"}
        if unknown:
            raise DeckError(f"{source}: card {card!r}: unknown field {sorted(unknown)[0]!r}")
        cards.append((card, CardCount(count, paw, cat)))
    if KITTEN not in table:
        raise DeckError(f"{source}: the deck needs {KITTEN}")
    with_paw = {card for card, count in cards if card != KITTEN and count.paw is not None}
    if with_paw and len(with_paw) != len(cards) - 1:
        raise DeckError(f"{source}: give `paw` for every card but {KITTEN}, or for none")
    low, high = data.get("min_players", 2), data.get("max_players", 5)
    if not (_whole(low) and _whole(high) and 2 <= low <= high):
        raise DeckError(f"{source}: min_players and max_players must be whole numbers, 2 <= min <= max")
    return Deck(name, str(data.get("title", name)), low, high, tuple(cards))


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
