"""The ``govcore`` command: ``validate CONFIG``, ``explain CONFIG --key KEY MESSAGE``,
``coverage CONFIG``, ``test CONFIG [TESTS...]``, ``shadow-report LOG``, ``demo``,
``serve --config CONFIG`` and ``--version``.

The demo's files (a configuration, its policies and a scripted conversation) ship inside the
package, under ``govcore/demo/acme/``, so the demo runs from an installed wheel anywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import importlib.util
import json
import os
import sys
import tempfile
import textwrap
from collections.abc import Iterator, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit

import yaml

from govcore._version import __version__
from govcore.backends import shared_lookup
from govcore.config import load_config
from govcore.errors import ConfigError, GovcoreError
from govcore.explanation_text import explanation_lines
from govcore.governance import Governance, PolicySetVersion
from govcore.models import ApplicablePolicy, StreamViolation, TurnResponse
from govcore.policy import PolicySet
from govcore.stream_guard import StreamGuard

if TYPE_CHECKING:
    from govcore.server.app import GovernanceApp
    from govcore.service.coverage import PolicyReport, TenantCoverage

__all__ = ["main"]

_DEMO_KEY = "gk_demo_northwind_full_0001"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    try:
        try:
            return _run(parser.parse_args(argv))  # --help and --version print, then exit
        finally:
            # Output to a pipe is buffered: a reader that left early (`| head`) shows here, while
            # it can still be handled, rather than as a traceback at interpreter exit.
            sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="govcore", description="govcore command line")
    parser.add_argument("--version", action="version", version=f"govcore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    validate = commands.add_parser("validate", help="check a configuration and its policies")
    validate.add_argument("config", help="path of a YAML or JSON configuration file")
    explain = commands.add_parser(
        "explain", help="say why each policy would or would not apply to a message"
    )
    explain.add_argument("config", help="path of a YAML or JSON configuration file")
    explain.add_argument("message", help="the message, as a turn's content")
    explain.add_argument("--key", required=True, help="API key (its tenant's policies are used)")
    explain.add_argument("--context", action="append", default=[], help="an earlier turn (repeat)")
    explain.add_argument(
        "--attribute", action="append", default=[], metavar="NAME=VALUE", help="end-user attribute"
    )
    explain.add_argument("--area", action="append", help="a policy area id to restrict to")
    explain.add_argument("--all", action="store_true", help="list every policy, not the best 10")
    explain.add_argument("--json", action="store_true", help="print the explanation as JSON")
    coverage = commands.add_parser(
        "coverage", help="measure how well each policy's examples select it (cross-validated)"
    )
    coverage.add_argument("config", help="path of a YAML or JSON configuration file")
    coverage.add_argument(
        "--json", action="store_true", help="print the report as one JSON document"
    )
    coverage.add_argument(
        "--min-recall",
        type=_share,
        metavar="X",
        help="exit status 1 when a policy with examples has a recall below X (0 to 1)",
    )
    test = commands.add_parser(
        "test", help="run policy test files (docs/policy-testing.md) against a configuration"
    )
    test.add_argument("config", help="path of a YAML or JSON configuration file")
    test.add_argument(
        "tests",
        nargs="*",
        help="test files, or folders of *_test.yaml files (default: those beside CONFIG)",
    )
    test.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML")
    test.add_argument("-v", "--verbose", action="store_true", help="list passing cases too")
    demo = commands.add_parser("demo", help="run the scripted example conversation")
    demo.add_argument("--config", help="configuration to use (default: the bundled example)")
    demo.add_argument("--script", help="conversation to play (default: the bundled script)")
    demo.add_argument("--key", default=_DEMO_KEY, help="API key to use")
    demo.add_argument("--budget", type=int, default=600, help="tokenBudget of each turn")
    shadow = commands.add_parser(
        "shadow-report",
        help="summarise what a shadow policy set would have changed, from a decision log",
    )
    shadow.add_argument(
        "log", help="a JSON-lines decision log (settings.decision_log_path); - reads stdin"
    )
    shadow.add_argument("--json", action="store_true", help="print the report as JSON")
    serve = commands.add_parser("serve", help="serve the HTTP interface (the server extra)")
    serve.add_argument("--config", required=True, help="path of a YAML or JSON configuration")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument("--workers", type=_positive, default=1, help="worker processes")
    serve.add_argument(
        "--graceful-timeout",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="on SIGTERM, how long the requests in flight get to finish (default 30)",
    )
    serve.add_argument(
        "--watch-interval",
        type=_seconds,
        default=2.0,
        metavar="SECONDS",
        help="how often to look for changes of the configuration's files and reload it "
        "(default 2; 0: only on SIGHUP)",
    )
    return parser


def _run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        return _serve(args, sys.stderr)
    if args.command == "validate":
        return _validate(args.config, sys.stdout, sys.stderr)
    if args.command == "explain":
        return _explain(args, sys.stdout, sys.stderr)
    if args.command == "shadow-report":
        return _shadow_report(args.log, args.json, sys.stdout, sys.stderr)
    if args.command == "coverage":
        return _coverage(args.config, args.min_recall, args.json, sys.stdout, sys.stderr)
    if args.command == "test":
        return _test(args, sys.stdout, sys.stderr)
    return _demo(args.config, args.script, args.key, args.budget, sys.stdout, sys.stderr)


def _discard_stdout() -> None:
    """Point stdout at the null device: its reader is gone, and the interpreter's final flush
    of what is still buffered would otherwise fail again, with a message on stderr."""
    with contextlib.suppress(AttributeError, OSError, ValueError):  # a stdout with no file
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not 0.0 <= value <= 3600.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected 0 to 3600 seconds, not {text}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, not {text!r}") from None
    if not 0.0 <= value <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, not {text}")
    return value


def _serve(args: argparse.Namespace, err: TextIO) -> int:
    # Imported here: the server modules are not needed by the other commands.
    from govcore.server.serve import ServerExtraMissingError, build_app, serve

    try:
        # Built before uvicorn starts (the application itself needs no server library), so a
        # bad configuration stops here with its message, extra installed or not; with several
        # workers each builds its own, and this one is only the check.
        app = build_app(args.config, watch_interval=args.watch_interval or None)
    except ConfigError as exc:
        print(f"error: {exc}", file=err)
        return 2
    if importlib.util.find_spec("uvicorn") is None:
        _close(app)
        print(f"error: {ServerExtraMissingError()}", file=err)
        return 1
    if args.workers > 1:
        if urlsplit(app.governance.settings.store).scheme == "memory":
            print(_UNSHARED_MEMORY_WARNING.format(workers=args.workers), file=err)
        _close(app)
        serve(
            None, args.config, host=args.host, port=args.port, workers=args.workers,
            graceful_timeout=args.graceful_timeout, watch_interval=args.watch_interval or None,
        )  # fmt: skip
    else:
        serve(
            app, args.config, host=args.host, port=args.port, workers=1,
            graceful_timeout=args.graceful_timeout,
        )  # fmt: skip
    return 0


# Served anyway (the contract's `serve --workers N` takes any configuration, and stateless
# checks need no shared store), but said loudly: turns of one conversation would be counted by
# each worker apart.
_UNSHARED_MEMORY_WARNING = (
    "warning: --workers {workers} with the in-memory store (settings.store memory://): each worker "
    "keeps its own conversations, idempotency records and rate-limit windows, so turns of one "
    "conversation answered by different workers are counted apart (turnIndex 1, 2, 1, 2) and each "
    "worker admits a key's whole rate limit. With several workers, use a shared store "
    "(settings.store: redis://...); see docs/server.md."
)


def _close(app: GovernanceApp) -> None:
    asyncio.run(app.governance.aclose())


def _validate(config: str, out: TextIO, err: TextIO) -> int:
    try:
        loaded = load_config(config)
        # Building it checks what the file alone cannot: the store URL and the retriever name
        # resolve, the decision log's directory exists, every tenant's policies index.
        with Governance(loaded) as gov:
            misses = gov.examples_that_miss()
            engine, fallbacks = gov.detection_engine(), gov.detection_fallbacks()
    except ConfigError as exc:
        _print_problems(config, exc, err)
        return 1
    for miss in misses:
        instead = ", ".join(miss.selected) or "nothing"
        print(
            f"warning: tenants.{miss.tenant}: the example {miss.example!r} of policy "
            f"{miss.policy_id!r} does not select it when sent as a message (it selects "
            f"{instead}); `govcore explain` shows why",
            file=err,
        )
    for tenant_id, notes in fallbacks.items():
        for note in notes:
            print(
                f"note: tenants.{tenant_id}: the {engine} engine leaves to RE2 (same scan, "
                f"same results) the {note}",
                file=out,
            )
    policies = sum(len(p) for p in loaded.tenants.values())
    print(
        f"{config}: OK ({_count(len(loaded.tenants), 'tenant')}, "
        f"{_count(policies, 'policy', 'policies')}, {_count(len(loaded.keys), 'key')})",
        file=out,
    )
    for tenant_id, policy_set in loaded.tenants.items():
        line = f"  tenants.{tenant_id}: version {_version_name(policy_set)}"
        shadow = loaded.shadows.get(tenant_id)
        if shadow is not None:
            line += (
                f"; shadow {_version_name(shadow.policy_set)} "
                f"({_count(len(shadow.policy_set), 'policy', 'policies')}, "
                f"{shadow.sample_rate:.0%} of conversations)"
            )
        print(line, file=out)
    return 0


def _version_name(policy_set: PolicySet) -> str:
    """A policy set's version as people read it: its label, then its content hash."""
    return str(PolicySetVersion(policy_set.version, policy_set.label))


def _explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    attributes: dict[str, str] = {}
    for pair in args.attribute:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            print(f"--attribute {pair!r}: expected NAME=VALUE", file=err)
            return 2
        attributes[name] = value
    try:
        with Governance.from_config(args.config) as gov:
            explanation = gov.client(args.key).explain_selection(
                args.message,
                recent_context=args.context or None,
                attributes=attributes or None,
                policy_area_ids=args.area,
            )
    except GovcoreError as exc:
        print(f"error: {exc}", file=err)
        return 1
    if args.json:
        json.dump(dataclasses.asdict(explanation), out, indent=2)
        print(file=out)
        return 0
    for line in explanation_lines(explanation, show_all=args.all):
        print(line, file=out)
    return 0


def _shadow_report(log: str, as_json: bool, out: TextIO, err: TextIO) -> int:
    from govcore.shadow_report import read_shadow_report

    try:
        if log == "-":
            report = read_shadow_report(sys.stdin)
        else:
            with open(log, encoding="utf-8", errors="replace") as lines:
                report = read_shadow_report(lines)
    except OSError as exc:
        print(f"error: cannot read {log}: {exc.strerror or exc}", file=err)
        return 2
    if as_json:
        json.dump({"log": log, **report.as_dict()}, out, indent=2)
        print(file=out)
    else:
        report.write_text(out)
    return 0


def _coverage(
    config: str, min_recall: float | None, as_json: bool, out: TextIO, err: TextIO
) -> int:
    # Imported here: its counting needs NumPy, which the other commands never load.
    from govcore.service.coverage import configuration_coverage

    try:
        with shared_lookup():  # the loader's lookups and the retriever's share one read
            reports = configuration_coverage(load_config(config))
    except ConfigError as exc:
        # 2, not 1 as `validate` says it: 1 is this command's answer "recall too low", which a
        # CI job must be able to tell from a broken configuration.
        _print_problems(config, exc, err)
        return 2
    below = [
        (report.tenant, policy)
        for report in reports
        for policy in (report.below(min_recall) if min_recall is not None else ())
    ]
    if as_json:
        document = {
            "config": config,
            "min_recall": min_recall,
            "below_min_recall": [
                {"tenant": tenant, "policy_id": policy.policy_id, "recall": policy.recall}
                for tenant, policy in below
            ],
            "tenants": [dataclasses.asdict(report) for report in reports],
        }
        json.dump(document, out, indent=2)
        print(file=out)
    else:
        for number, report in enumerate(reports):
            if number:
                print(file=out)
            _print_coverage(report, out)
        if min_recall is not None:
            _print_min_recall(min_recall, below, out)
    return 1 if below else 0


def _print_problems(config: str, exc: ConfigError, err: TextIO) -> None:
    """Every problem of a configuration that did not load, one a line under its name."""
    noun = "problem" if len(exc.problems) == 1 else "problems"
    print(f"{config}: {len(exc.problems)} {noun}", file=err)
    for problem in exc.problems:
        print(f"  - {problem}", file=err)


def _test(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # Imported here, as coverage's: the other commands never need it.
    from govcore.policy_tests import run_policy_tests

    try:
        report = run_policy_tests(args.config, args.tests or None)
    except ConfigError as exc:
        # 2, as coverage says it: 1 means "a case failed", which a CI job must be able to
        # tell from a configuration that could not be tested at all.
        _print_problems(args.config, exc, err)
        return 2
    except FileNotFoundError as exc:
        print(f"govcore test: {exc}", file=err)
        return 2
    if not report.files:
        where = ", ".join(args.tests) if args.tests else f"beside {args.config}"
        print(f"govcore test: no test files (*_test.yaml, *_test.yml) {where}", file=err)
        return 2
    for line in report.lines(verbose=args.verbose):
        print(line, file=out)
    if args.junit:
        try:
            Path(args.junit).write_text(report.junit_xml(), encoding="utf-8")
        except OSError as exc:
            print(f"govcore test: --junit {args.junit}: {exc.strerror}", file=err)
            return 2
    return 0 if report.passed else 1


def _share_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _print_coverage(report: TenantCoverage, out: TextIO) -> None:
    """One tenant's coverage as a table, then what an author should look at."""
    measured = sum(1 for p in report.policies if p.recall is not None)
    print(
        f"tenant {report.tenant} (retriever {report.retriever}, {report.folds} folds): "
        f"{_count(report.examples, 'example')} of {_count(measured, 'policy', 'policies')}, "
        f"each held out",
        file=out,
    )
    width = max(len("policy"), *(len(p.policy_id) for p in report.policies)) + 2
    print(f"\n{'policy':<{width}}{'examples':>8}{'recall':>8}{'precision':>11}", file=out)
    for policy in report.policies:
        figures = (
            f"{'always on':>19}"
            if policy.always_on
            else f"{_share_text(policy.recall):>8}{_share_text(policy.precision):>11}"
        )
        print(f"{policy.policy_id:<{width}}{policy.examples:>8}{figures}", file=out)
    strays = [p for p in report.policies if p.misses or p.selects_others]
    if strays:
        print("\nexamples that miss their policy or select another (held out):", file=out)
        for policy in strays:
            print(f"  {policy.policy_id}", file=out)
            for line in _example_lines(policy):
                print(f"    {line}", file=out)
    if report.confused_pairs:
        print(
            "\nhard to tell apart (A / B: examples of A that select B / of B that select A):",
            file=out,
        )
        for pair in report.confused_pairs:
            print(
                f"  {pair.first} / {pair.second}: "
                f"{pair.first_selects_second} / {pair.second_selects_first}",
                file=out,
            )
    if report.without_examples:
        print(
            f"\nwithout examples (recall -; not measured): {', '.join(report.without_examples)}",
            file=out,
        )
    if report.always_on:
        print(
            f"\nalways on (selected by every message; not measured): {', '.join(report.always_on)}",
            file=out,
        )
    print(
        f"\ntotal: {_count(report.examples, 'example')}, recall {_share_text(report.recall)}, "
        f"precision {_share_text(report.precision)}, {report.selected_nothing} selected nothing",
        file=out,
    )


def _example_lines(policy: PolicyReport) -> Iterator[str]:
    """``misses 'text' -> what it selects`` for each example that misses its policy, and
    ``also   'text' -> ...`` for one that selects another policy besides its own."""
    missed = {miss.example for miss in policy.misses}
    shown = dict.fromkeys([*policy.misses, *policy.selects_others])
    for outcome in sorted(shown, key=lambda o: o.example not in missed):
        kind = "misses" if outcome.example in missed else "also  "
        print_selected = ", ".join(outcome.selected) or "nothing"
        yield f"{kind} {outcome.example!r} -> {print_selected}"


def _print_min_recall(
    min_recall: float, below: list[tuple[str, PolicyReport]], out: TextIO
) -> None:
    if not below:
        print(f"\n--min-recall {min_recall:g}: every policy with examples reaches it", file=out)
        return
    print(
        f"\n--min-recall {min_recall:g}: {_count(len(below), 'policy', 'policies')} below it "
        f"(policies without examples do not count)",
        file=out,
    )
    for tenant, policy in below:
        print(f"  {tenant}/{policy.policy_id}: recall {_share_text(policy.recall)}", file=out)


@contextlib.contextmanager
def _bundled_demo() -> Iterator[Path]:
    """The directory of the demo files shipped in the package, as a real directory."""
    root = resources.files("govcore") / "demo" / "acme"
    if isinstance(root, Path):
        yield root
        return
    # Imported from a zip archive: the configuration names its policy directory by a relative
    # path, which the loader reads from the file system, so the files are copied out first.
    with tempfile.TemporaryDirectory(prefix="govcore-demo-") as scratch:
        _copy_tree(root, Path(scratch))
        yield Path(scratch)


def _copy_tree(source: Traversable, target: Path) -> None:
    """Copy a package resource directory to ``target`` (which exists), recursively."""
    for entry in source.iterdir():
        if entry.is_dir():
            (target / entry.name).mkdir()
            _copy_tree(entry, target / entry.name)
        else:
            (target / entry.name).write_bytes(entry.read_bytes())


def _count(number: int, singular: str, plural: str | None = None) -> str:
    """``1 tenant``, ``2 tenants``."""
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def _demo(
    config: str | None, script_path: str | None, key: str, budget: int, out: TextIO, err: TextIO
) -> int:
    for option, path in (("--config", config), ("--script", script_path)):
        if path is not None and not Path(path).is_file():
            print(f"govcore demo: {option} {path}: no such file", file=err)
            return 2
    with _bundled_demo() as bundled:
        try:
            governance = Governance.from_config(config or bundled / "govcore.yaml")
        except ConfigError as exc:
            print(str(exc), file=err)
            return 1
        script_file = Path(script_path) if script_path else bundled / "demo_conversation.yaml"
        script: Any = yaml.safe_load(script_file.read_text(encoding="utf-8"))
    client = governance.client(key)
    session_id = str(script["session_id"])
    attributes = script.get("end_user_attributes") or None
    recent: list[str] = []
    rule = "=" * 78
    print(rule, file=out)
    print(f"govcore demo: conversation {session_id!r}", file=out)
    if attributes:
        print(f"end user attributes: {attributes}", file=out)
    print(rule, file=out)
    for turn in script["turns"]:
        request: dict[str, Any] = {
            "sessionId": session_id,
            "turn": {"role": turn["role"], "content": turn["content"]},
            "recentContext": recent[-3:],
            "tokenBudget": budget,
        }
        if attributes:
            request["endUserContext"] = {"attributes": attributes}
        response = client.record_turn(request)
        _print_turn(turn["role"], turn["content"], response, out)
        recent.append(turn["content"])
    _demo_tool_calls(client, session_id, out)
    _demo_stream(client, session_id, out)
    snapshot = client.get_conversation(session_id)
    print(rule, file=out)
    print(
        f"snapshot: {snapshot.turn_count} turns, {len(snapshot.active_policies)} active "
        f"policies, {len(snapshot.binding_log)} binding events, updated {snapshot.updated_at}",
        file=out,
    )
    client.delete_conversation(session_id)
    print("conversation deleted", file=out)
    return 0


_DEMO_TOOL_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "issue_refund",
        {
            "order_id": "NW48213307",
            "amount": 389.0,
            "currency": "EUR",
            "reason": "tent arrived damaged",
        },
    ),
    (
        "issue_refund",
        {"order_id": "NW48213307", "amount": 750, "currency": "EUR", "reason": "goodwill"},
    ),
    (
        "send_email",
        {
            "to": "lena.kovac@example.com",
            "subject": "Your order",
            "body": "We charged the card 4111 1111 1111 1111 today.",
        },
    ),
    ("delete_account", {"account_id": "ACC-2291"}),
)

# A reply that should never go out as written: it echoes a card number (split across chunks)
# and hides an email address behind a zero-width space.
_DEMO_REPLY = (
    "Thanks for your patience! I have updated your order and everything is on track for "
    "delivery next week. For your records, the replacement tent was charged to the card "
    "ending in 4111 1111 1111 1111, and the receipt went to lena.kovac@exam\u200bple.com. "
    "If anything else comes up, just reply here and I'll be glad to help you out."
)


def _demo_tool_calls(client: Any, session_id: str, out: TextIO) -> None:
    print("\n" + "-" * 78, file=out)
    print("tool calls proposed by the assistant", file=out)
    for tool, arguments in _DEMO_TOOL_CALLS:
        decision = client.check_tool_call(
            {"sessionId": session_id, "toolName": tool, "arguments": arguments}
        )
        verdict = "ALLOW" if decision.allow else "BLOCK"
        if decision.allow and decision.violations:
            # Only a confident `fix` violation blocks; warnings and audits are reported.
            verdict += " (reported, not blocked: no fix violation at confidence 0.7 or more)"
        print(f"\n  {tool}({json.dumps(arguments)})", file=out)
        print(f"  -> {verdict}, risk {decision.risk_score}", file=out)
        for violation in decision.violations:
            print(
                f"     {violation.enforcement_type} {violation.confidence:.2f} "
                f"[{violation.policy_id}] {violation.explanation}",
                file=out,
            )
        if decision.suggested_arguments is not None:
            print(f"     suggested arguments: {json.dumps(decision.suggested_arguments)}", file=out)


def _demo_stream(client: Any, session_id: str, out: TextIO) -> None:
    print("\n" + "-" * 78, file=out)
    print("a reply streamed in 40-character deltas, checked every 200 characters", file=out)
    guard: StreamGuard

    def report(violation: StreamViolation) -> None:
        print(
            f"  reported with {len(guard.text):>3} chars streamed: [{violation.policy_id}] "
            f"{violation.matched_text!r} at offset {violation.offset}",
            file=out,
        )

    guard = StreamGuard(client, session_id, on_violation=report)
    for start in range(0, len(_DEMO_REPLY), 40):
        guard.feed(_DEMO_REPLY[start : start + 40])
    verdict = guard.finish()
    print(
        f"  final: safe={verdict.safe}, risk {verdict.risk_score}, "
        f"{len(verdict.violations)} violations, citing {', '.join(verdict.policy_citations)}",
        file=out,
    )
    print("  suggested redaction:", file=out)
    print(
        textwrap.fill(
            verdict.suggested_redaction, width=76, initial_indent="    ", subsequent_indent="    "
        ),
        file=out,
    )


def _names(policies: Sequence[ApplicablePolicy]) -> str:
    return ", ".join(p.id for p in policies) if policies else "-"


def _print_turn(role: str, content: str, response: TurnResponse, out: TextIO) -> None:
    wrap = textwrap.TextWrapper(width=78, initial_indent="  ", subsequent_indent="  ")
    print(f"\nturn {response.turn_index} [{role}]", file=out)
    print(wrap.fill(content), file=out)
    diff = response.diff
    print(f"  + newly applicable : {_names(diff.newly_applicable)}", file=out)
    print(f"  - released         : {_names(diff.newly_released)}", file=out)
    print(f"  = still active     : {_names(diff.still_active)}", file=out)
    print(
        f"  active ({len(response.active_policies)}): {_names(response.active_policies)}", file=out
    )
    print(f"  injection block ({response.token_estimate} tokens):", file=out)
    for line in response.injection_block.splitlines() or ["(empty)"]:
        print(textwrap.shorten(f"    | {line}", width=110, placeholder=" ..."), file=out)


if __name__ == "__main__":
    raise SystemExit(main())
