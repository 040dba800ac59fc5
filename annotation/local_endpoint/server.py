"""What the local recruiting-site endpoints share of their HTTP side: the request handler's
body reading and answers, the threaded server that ends its connections' threads, the server's
lifecycle in a thread or the foreground, and the command line. Standard library only."""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
import threading
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

MAX_BODY = 2 * 1024 * 1024
log = logging.getLogger(__name__)


class EndpointHandler(BaseHTTPRequestHandler):
    """Reads the body (at most `MAX_BODY`), hands the request to `dispatch`, and answers."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes; no 40 ms stalls

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def dispatch(self, method: str, raw: bytes) -> None:
        raise NotImplementedError

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.close_connection = True
            return self.send(413, b"request body too large", "text/plain")
        self.dispatch(method, self.rfile.read(length) if length else b"")

    def cookie(self, name: str) -> str:
        try:
            morsel = SimpleCookie(self.headers.get("Cookie") or "").get(name)
        except CookieError:
            return ""
        return morsel.value if morsel else ""

    def send(self, status: int, body: bytes, content_type: str, headers: list[tuple[str, str]] | tuple = ()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class EndpointHTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer that ends its connections' threads when it stops: clients keep their
    connections alive, and each one's thread would wait for a next request forever (a process
    that later forks must have no stray threads)."""

    daemon_threads = False
    block_on_close = True  # server_close() joins the connections' threads

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        with self._open_lock:
            connections = list(self._open)
        for sock in connections:  # a thread waiting for its next request reads the end
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        super().server_close()


class LocalServer:
    """An endpoint on ``host:port`` (port 0 picks a free one), in a background thread or in the
    foreground (`serve_forever`). A subclass sets `store` and calls `listen`, then `attach`."""

    thread_name = "local-endpoint"
    store: Any
    app: Any

    def listen(self, host: str, port: int, handler: type[EndpointHandler], public_url: str | None) -> None:
        self.handler = type("Handler", (handler,), {})
        self.httpd = EndpointHTTPServer((host, port), self.handler)
        bound_host, bound_port = self.httpd.socket.getsockname()[:2]
        self.url = public_url.rstrip("/") if public_url else f"http://{bound_host}:{bound_port}"
        self._thread: threading.Thread | None = None

    def attach(self, app: Any) -> None:
        """The endpoint's application: what every request of this server's handler talks to."""
        self.app = self.handler.app = app  # type: ignore[attr-defined]
        self.faults = app.faults

    def start(self) -> Self:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, name=self.thread_name, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.httpd.server_close()
        self.store.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def command_parser(prog: str, description: str, port: int) -> argparse.ArgumentParser:
    """The options every endpoint's command line has: where it listens, its state, logging."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; the admin API has no auth)"
    )
    parser.add_argument("--port", type=int, default=port, help=f"port (default {port}; 0 = any free)")
    parser.add_argument(
        "--db", default=":memory:", help="SQLite file that keeps the state across restarts (default: memory)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    return parser


def serve(server: LocalServer, banner: str, *, verbose: bool) -> int:
    """Serve in the foreground until Ctrl-C or SIGTERM, then close the server and its state."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
    )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # the process ends here: a connection's thread need not be joined (a SIGTERM may land while
    # the server starts one), so the threads die with the process
    server.httpd.daemon_threads, server.httpd.block_on_close = True, False
    print(banner, flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.httpd.server_close()
        server.store.close()
    return 0
