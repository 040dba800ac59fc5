"""python -m annotation.mturk.local --host 127.0.0.1 --port 8765 --db state.sqlite3 --balance 10000"""

from __future__ import annotations

import sys

from annotation.local_endpoint import command_parser, serve

from .server import LocalMTurkServer


def main(argv: list[str] | None = None) -> int:
    parser = command_parser(
        "python -m annotation.mturk.local",
        "A local MTurk-compatible endpoint (requester API + worker site). "
        "Point the platform at it with MTURK_ENDPOINT=local and MTURK_LOCAL_URL.",
        8765,
    )
    parser.add_argument(
        "--balance", default="10000.00", help="starting balance in USD for a new state file (default 10000.00)"
    )
    parser.add_argument(
        "--public-url",
        default=None,
        help="the URL workers' browsers reach this server at (turkSubmitTo); default http://HOST:PORT",
    )
    parser.add_argument("--require-https", action="store_true", help="refuse http:// ExternalURLs, as real MTurk does")
    args = parser.parse_args(argv)
    server = LocalMTurkServer(
        args.host,
        args.port,
        db=args.db,
        balance=args.balance,
        public_url=args.public_url,
        require_https=args.require_https,
    )
    banner = (
        f"Local MTurk endpoint on {server.url} (requester API: POST /, workers: "
        f"{server.url}/worker/, admin: {server.url}/_local/state; state: {args.db})"
    )
    return serve(server, banner, verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
