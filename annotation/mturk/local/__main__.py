"""python -m annotation.mturk.local --host 127.0.0.1 --port 8765 --db state.sqlite3 --balance 10000"""
from __future__ import annotations

import argparse
import logging
import signal
import sys

from .server import LocalMTurkServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m annotation.mturk.local",
        description="A local MTurk-compatible endpoint (requester API + worker site). "
                    "Point the platform at it with MTURK_ENDPOINT=local and MTURK_LOCAL_URL.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; the admin API has no auth)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 = any free)")
    parser.add_argument("--db", default=":memory:",
                        help="SQLite file that keeps the state across restarts (default: memory)")
    parser.add_argument("--balance", default="10000.00",
                        help="starting balance in USD for a new state file (default 10000.00)")
    parser.add_argument("--public-url", default=None,
                        help="the URL workers' browsers reach this server at (turkSubmitTo); "
                             "default http://HOST:PORT")
    parser.add_argument("--require-https", action="store_true",
                        help="refuse http:// ExternalURLs, as real MTurk does")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s")
    server = LocalMTurkServer(args.host, args.port, db=args.db, balance=args.balance,
                              public_url=args.public_url, require_https=args.require_https)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"Local MTurk endpoint on {server.url} (requester API: POST /, workers: "
          f"{server.url}/worker/, admin: {server.url}/_local/state; state: {args.db})", flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.httpd.server_close()
        server.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
