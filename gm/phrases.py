"""Player-facing words, loaded from `phrases/<language>/<name>.toml` files that a table may edit.

Each file has a `[say]` table of sentences (templates with `{placeholders}`) and may have other tables
of words to listen for. Nothing the game master says or hears is written in the code: it is all here.
"""

from __future__ import annotations

import os
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_DIRECTORY = Path(__file__).resolve().parent.parent / "phrases"


class PhraseError(ValueError):
    """A phrase file is missing, unreadable or lacks a sentence; the message names file and key."""


def phrase_directory() -> Path:
    """Where phrase files live: $GM_PHRASES if set, else the project's `phrases/` folder."""
    return Path(os.environ.get("GM_PHRASES", DEFAULT_DIRECTORY))


@dataclass(frozen=True)
class Phrases:
    """The merged contents of one language's phrase files."""

    language: str
    tables: dict[str, dict[str, Any]]
    sources: tuple[Path, ...]

    @classmethod
    def load(cls, language: str, *names: str, directory: Path | None = None) -> "Phrases":
        """Read `common` plus the named files; later files override earlier keys."""
        folder = (directory or phrase_directory()) / language
        tables: dict[str, dict[str, Any]] = {}
        sources = []
        for name in ("common", *names):
            path = folder / f"{name}.toml"
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise PhraseError(f"phrase file {path} is missing") from None
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
                raise PhraseError(f"phrase file {path} cannot be read: {error}") from None
            for table, entries in data.items():
                if not isinstance(entries, dict):
                    raise PhraseError(f"phrase file {path}: '{table}' must be a table ([{table}])")
                tables.setdefault(table, {}).update(entries)
            sources.append(path)
        return cls(language, tables, tuple(sources))

    def table(self, name: str) -> dict[str, Any]:
        return self.tables.get(name, {})

    def say(self, key: str, **values: Any) -> str:
        """The sentence `key` with its placeholders filled in."""
        template = self.table("say").get(key)
        if not isinstance(template, str):
            raise PhraseError(f"no sentence '{key}' in [say] of {self._names()}")
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError) as error:
            raise PhraseError(f"sentence '{key}' in {self._names()} cannot be filled: {error}") from None

    def require(self, *keys: str) -> None:
        """Fail now, naming every missing sentence, rather than at the table mid-game."""
        missing = [key for key in keys if not isinstance(self.table("say").get(key), str)]
        if missing:
            raise PhraseError(f"missing sentences in [say] of {self._names()}: {', '.join(missing)}")
        for key in keys:
            fields = {f for _, f, _, _ in string.Formatter().parse(self.table("say")[key]) if f}
            if any(not f.isidentifier() for f in fields):
                raise PhraseError(f"sentence '{key}' in {self._names()} has a bad placeholder")

    def _names(self) -> str:
        return ", ".join(str(p) for p in self.sources)
