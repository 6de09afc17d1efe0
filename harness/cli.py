"""The ``schedharness`` command."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path
from typing import Sequence

__all__ = ["main"]


def _serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="run the fake kube-apiserver until SIGINT/SIGTERM",
        description="Run the fake kube-apiserver on real time until SIGINT or SIGTERM, write a "
        "kubeconfig for it and print its URL.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    p.add_argument("--port", type=int, default=0, help="port to bind (default: a free port)")
    p.add_argument(
        "--kubeconfig",
        default="schedharness.kubeconfig",
        help="where to write the kubeconfig (default: ./schedharness.kubeconfig)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for uids and generated names")
    p.add_argument(
        "--ready-nodes",
        action="store_true",
        help="do not give nodes created through the API the node.kubernetes.io/not-ready taint",
    )
    p.add_argument(
        "--loop",
        choices=("auto", "asyncio", "uvloop"),
        default="auto",
        help="event loop (default auto: uvloop when installed, e.g. by 'pip install schedharness[speedups]')",
    )
    p.set_defaults(func=_serve)


async def _serve_async(args: argparse.Namespace) -> int:
    from fake_apiserver import FakeApiServer

    server = FakeApiServer(
        host=args.host, port=args.port, seed=args.seed, taint_not_ready_nodes=not args.ready_nodes
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):  # before the URL is printed: a caller may signal at once
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    path = server.write_kubeconfig(Path(args.kubeconfig))
    print(f"schedharness: serving the Kubernetes API at {server.url}", flush=True)
    print(f"schedharness: kubeconfig written to {path.resolve()}", flush=True)
    try:
        await stop.wait()
    finally:
        await server.stop()
    print("schedharness: stopped", flush=True)
    return 0


def _serve(args: argparse.Namespace) -> int:
    """Serve on real time, on uvloop when it is there: it runs the same server for a few percent
    less CPU a request. Only here: the harness's virtual-time loop is asyncio's, never uvloop."""
    main = _serve_async(args)
    if args.loop != "asyncio":
        try:
            import uvloop
        except ImportError:
            if args.loop == "uvloop":
                main.close()
                raise SystemExit("schedharness: --loop uvloop needs uvloop: pip install 'schedharness[speedups]'")
        else:
            return int(uvloop.run(main))
    return asyncio.run(main)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schedharness",
        description="A fake kube-apiserver, a test harness and a conformance suite for Kubernetes schedulers.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _serve_parser(sub)
    from reference_scheduler._cli import add_subcommands

    add_subcommands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
