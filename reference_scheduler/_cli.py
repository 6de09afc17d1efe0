"""``schedharness scheduler`` and ``schedharness mutants``.

:func:`add_subcommands` adds both to the ``schedharness`` parser; :func:`main` runs them alone
(``python -m reference_scheduler``). The scheduler runs on real time (``WallClock``) until SIGINT
or SIGTERM, against any API server its kubeconfig names.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from typing import Any

from reference_scheduler._clock import WallClock
from reference_scheduler._gates import FeatureGateError, parse_feature_gates
from reference_scheduler._mutants import KINDS, VARIANTS, UnknownMutant, VariantKind, get_mutant
from reference_scheduler._reporting import DEFAULT_DELAY
from reference_scheduler._scheduler import Scheduler

__all__ = ["add_subcommands", "build_parser", "main"]


def add_subcommands(subparsers: Any) -> None:
    """Add ``scheduler`` and ``mutants`` to an ``argparse`` sub-parser set."""
    p = subparsers.add_parser(
        "scheduler",
        help="run the reference scheduler until SIGINT/SIGTERM",
        description="Run the reference scheduler (KEP-5501) on real time against the API server of a kubeconfig.",
    )
    p.add_argument("--kubeconfig", required=True, help="kubeconfig of the API server to schedule on")
    p.add_argument("--feature-gates", default="",
                   help="A=true,B=false for SchedulerPreEnqueuePodStatus, SchedulerAsyncAPICalls, "
                        "InPlacePodVerticalScaling (default: all three true) and "
                        "InPlacePodVerticalScalingSchedulerPreemption (default: false)")
    p.add_argument("--mutant", default=None, help="run a variant: a mutant, a control or a shape variant (see `mutants`)")
    p.add_argument("--delay", type=float, default=DEFAULT_DELAY,
                   help=f"delay of NotReadyForScheduling patches and clears in seconds (default {DEFAULT_DELAY:g})")
    p.add_argument("--scheduler-name", default="default-scheduler", help="schedule pods with this spec.schedulerName")
    p.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    p.set_defaults(func=_scheduler)
    m = subparsers.add_parser(
        "mutants", help="list the variants of the reference scheduler (shape variants, mutants, controls)",
        description="List the variants by kind: name, what differs from the reference scheduler, the KEP-5501 "
        "sentence a mutant violates, and what the selftest expects of it.")
    m.set_defaults(func=_mutants)


_HEADINGS: dict[VariantKind, str] = {
    "shape": "Shape variants: correct KEP-5501 behaviour, another request shape or another correct choice (when a "
             "claim event re-runs PreEnqueue)",
    "mutant": "Mutants: each breaks one rule it names (of KEP-5501, kube-scheduler's core, DefaultPreemption or KEP-5836)",
    "control": "Controls: not a scheduler, by design",
}


def _mutants(args: argparse.Namespace) -> int:
    blocks = []
    for kind in KINDS:
        lines = [_HEADINGS[kind]]
        for variant in (v for v in VARIANTS if v.kind == kind):
            lines += [variant.name, f"    {variant.description}"]
            if variant.violates:
                lines.append(f"    violates: \"{variant.violates}\"")
            lines.append(f"    expected: {variant.expectation}")
        blocks.append("\n".join(lines))
    print("\n\n".join(blocks))
    return 0


def _scheduler(args: argparse.Namespace) -> int:
    try:
        checks_gates = get_mutant(args.mutant).checks_gates if args.mutant else True
        gates = parse_feature_gates(args.feature_gates, validate=checks_gates)
    except (FeatureGateError, UnknownMutant) as e:
        print(f"schedharness scheduler: {e}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    return asyncio.run(_run(args, gates))


async def _run(args: argparse.Namespace, gates: Any) -> int:
    scheduler = Scheduler(
        args.kubeconfig, clock=WallClock(), gates=gates, delay=args.delay, mutant=args.mutant,
        scheduler_name=args.scheduler_name, reporting_instance=f"{args.scheduler_name}-{socket.gethostname()}",
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await scheduler.start()
    mutant = f", mutant {args.mutant}" if args.mutant else ""
    print(f"schedharness scheduler: running ({gates.format()}, delay {args.delay:g}s{mutant})", flush=True)
    try:
        await stop.wait()
    finally:
        await scheduler.stop()
    print("schedharness scheduler: stopped", flush=True)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reference_scheduler",
                                     description="The reference scheduler of schedharness.")
    add_subcommands(parser.add_subparsers(dest="command", metavar="COMMAND"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args))
