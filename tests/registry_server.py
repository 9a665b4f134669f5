"""A registry on 127.0.0.1 for tests: the vendored snapshot of the ACP registry
(`tests/data/acp-registry`, or any index) and archives built in the test, served by
`http.server` in a thread on a free port.

`ETag`/`Last-Modified` are sent and `If-None-Match`/`If-Modified-Since` answered with 304;
`fail_with` makes every request answer that status; each request's path and headers are kept.
Only loopback; `serve()` is a context manager that stops the server and joins its thread.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).resolve().parent / "data" / "acp-registry" / "registry.json"
LAST_MODIFIED = "Sat, 07 Feb 2026 10:00:00 GMT"


def snapshot() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return data


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


@dataclass
class RegistryServer:
    files: dict[str, bytes] = field(default_factory=dict)
    fail_with: int | None = None
    seen: list[Seen] = field(default_factory=list)
    port: int = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def put_index(self, data: dict[str, Any], path: str = "registry.json") -> str:
        self.files[path] = json.dumps(data).encode()
        return self.url(path)

    def requests_for(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.path == "/" + path.lstrip("/")]


def _handler(server: RegistryServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}))
            body = server.files.get(self.path.lstrip("/"))
            if server.fail_with is not None or body is None:
                self.send_response(server.fail_with or 404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            if self.headers.get("If-None-Match") == etag or (
                self.headers.get("If-None-Match") is None
                and self.headers.get("If-Modified-Since") == LAST_MODIFIED
            ):
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", LAST_MODIFIED)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serve() -> Iterator[RegistryServer]:
    state = RegistryServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def index_with(*agents: dict[str, Any]) -> dict[str, Any]:
    return {"version": "1.0.0", "agents": list(agents), "extensions": []}


def binary_agent(
    agent_id: str, archive_url: str, cmd: str = "./agent", version: str = "1.0.0", **extra: Any
) -> dict[str, Any]:
    from acp_tui.registry.index import current_platform

    target = {"archive": archive_url, "cmd": cmd, **extra}
    return {
        "id": agent_id,
        "name": f"Agent {agent_id}",
        "version": version,
        "description": f"the {agent_id} test agent",
        "distribution": {"binary": {current_platform(): target}},
    }


SCRIPT = b'#!/bin/sh\necho registry-agent "$@"\n'


def tar_bytes(mode: str, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
    """A tar archive (`mode` "w:gz", "w:bz2", ...); members are (name, data) or a TarInfo
    (links, devices) as given."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:  # type: ignore[call-overload]
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                archive.addfile(member)
                continue
            name, data = member
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def link(name: str, target: str, *, hard: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.LNKTYPE if hard else tarfile.SYMTYPE
    info.linkname = target
    return info


def zip_bytes(members: list[tuple[str, bytes]], *, executable: bool = True) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


@contextmanager
def trickle(every: float, size: int = 1 << 20) -> Iterator[str]:
    """A server that says the archive is `size` bytes, then sends one byte each `every` s (the
    hostile server of issue 40); yields the archive's URL."""
    stop = threading.Event()

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            with suppress(OSError):
                while not stop.wait(every):
                    self.wfile.write(b"x")
                    self.wfile.flush()

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/slow.tar.gz"
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()
