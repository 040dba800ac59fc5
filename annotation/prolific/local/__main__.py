"""python -m annotation.prolific.local --port 8766 --db prolific-local.sqlite3"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
from decimal import Decimal

from annotation.prolific.fees import ACADEMIC_FEE_RATE

from .server import DEFAULT_TOKEN, LocalProlificServer


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m annotation.prolific.local",
        description="A local Prolific-compatible endpoint (researcher API + participant "
                    "simulator). Point the platform at it with PROLIFIC_API_URL=http://HOST:PORT "
                    "and PROLIFIC_API_TOKEN=<--token>.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; the admin API has no auth)")
    parser.add_argument("--port", type=int, default=8766, help="port (default 8766; 0 = any free)")
    parser.add_argument("--db", default=":memory:",
                        help="SQLite file that keeps the state across restarts (default: memory)")
    parser.add_argument("--token", default=DEFAULT_TOKEN,
                        help=f"the API token clients must send (default {DEFAULT_TOKEN})")
    parser.add_argument("--balance", type=int, default=1_000_000,
                        help="starting balance in minor units for a new state file (default "
                             "1000000 = 10000.00)")
    parser.add_argument("--fee-rate", type=Decimal, default=ACADEMIC_FEE_RATE,
                        help=f"platform fee share of participant pay (default {ACADEMIC_FEE_RATE})")
    parser.add_argument("--vat-rate", type=Decimal, default=Decimal(0),
                        help="VAT rate on the fee (0.20 for a UK workspace; default 0)")
    parser.add_argument("--currency", default="GBP", help="workspace currency (default GBP)")
    parser.add_argument("--public-url", default=None,
                        help="the URL browsers reach this server at (default http://HOST:PORT)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s")
    server = LocalProlificServer(args.host, args.port, db=args.db, token=args.token,
                                 balance=args.balance, fee_rate=args.fee_rate,
                                 vat_rate=args.vat_rate, currency=args.currency,
                                 public_url=args.public_url)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"Local Prolific endpoint on {server.url} (API: {server.url}/api/v1/, token "
          f"{args.token!r}; participants: {server.url}/participant/; completion URL: "
          f"{server.completion_url}; admin: {server.url}/_local/state; state: {args.db})",
          flush=True)
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
