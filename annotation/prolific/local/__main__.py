"""python -m annotation.prolific.local --port 8766 --db prolific-local.sqlite3"""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal

from annotation.local_endpoint import command_parser, serve
from annotation.prolific.fees import ACADEMIC_FEE_RATE

from .server import DEFAULT_TOKEN, LocalProlificServer


def _parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "python -m annotation.prolific.local",
        "A local Prolific-compatible endpoint (researcher API + participant simulator). Point the "
        "platform at it with PROLIFIC_API_URL=http://HOST:PORT and PROLIFIC_API_TOKEN=<--token>.",
        8766,
    )
    parser.add_argument(
        "--token", default=DEFAULT_TOKEN, help=f"the API token clients must send (default {DEFAULT_TOKEN})"
    )
    parser.add_argument(
        "--balance",
        type=int,
        default=1_000_000,
        help="starting balance in minor units for a new state file (default 1000000 = 10000.00)",
    )
    parser.add_argument(
        "--fee-rate",
        type=Decimal,
        default=ACADEMIC_FEE_RATE,
        help=f"platform fee share of participant pay (default {ACADEMIC_FEE_RATE})",
    )
    parser.add_argument(
        "--vat-rate", type=Decimal, default=Decimal(0), help="VAT rate on the fee (0.20 for a UK workspace; default 0)"
    )
    parser.add_argument("--currency", default="GBP", help="workspace currency (default GBP)")
    parser.add_argument(
        "--public-url", default=None, help="the URL browsers reach this server at (default http://HOST:PORT)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    server = LocalProlificServer(
        args.host,
        args.port,
        db=args.db,
        token=args.token,
        balance=args.balance,
        fee_rate=args.fee_rate,
        vat_rate=args.vat_rate,
        currency=args.currency,
        public_url=args.public_url,
    )
    banner = (
        f"Local Prolific endpoint on {server.url} (API: {server.url}/api/v1/, token "
        f"{args.token!r}; participants: {server.url}/participant/; completion URL: "
        f"{server.completion_url}; admin: {server.url}/_local/state; state: {args.db})"
    )
    return serve(server, banner, verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
