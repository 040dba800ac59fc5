"""python -m annotation.llm.local --port 8767 --db llm-local.sqlite3"""

from __future__ import annotations

import sys

from annotation.local_endpoint import command_parser, serve

from .server import LocalModelServer


def main(argv: list[str] | None = None) -> int:
    parser = command_parser(
        "python -m annotation.llm.local",
        "A local OpenAI-compatible endpoint (chat completions with structured output, scripted "
        "accuracy, faults on request). Point a model connection at http://HOST:PORT/v1.",
        8767,
    )
    args = parser.parse_args(argv)
    server = LocalModelServer(args.host, args.port, db=args.db)
    banner = (
        f"Local model endpoint on {server.url} (API: {server.base_url}, any key; admin: "
        f"{server.url}/_local/state; state: {args.db})"
    )
    return serve(server, banner, verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
