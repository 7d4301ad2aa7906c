"""The game's event log: one JSON object per line, flushed as it happens."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any


@dataclass(frozen=True)
class Event:
    """Something that happened in a game: `name` plus its fields (player, chain, ...)."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)

    def record(self, t: float) -> dict[str, Any]:
        """The log line: {"t": seconds, "event": name, ...fields}."""
        return {"t": round(t, 3), "event": self.name, **self.fields}


class EventLog:
    """Appends events to a JSON-lines file (or nowhere)."""

    def __init__(self, path: Path | None):
        self._file: IO[str] | None = open(path, "a", encoding="utf-8") if path else None

    def write(self, event: Event, t: float) -> None:
        if self._file:
            self._file.write(json.dumps(event.record(t), ensure_ascii=False) + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file:
            self._file.close()
            self._file = None
