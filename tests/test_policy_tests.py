"""Policy tests (docs/policy-testing.md): ``govcore test`` and ``govcore.policy_tests``.

The cases run against a hospital's policy set (tests/data/policy_tests/hospital.yaml), whose
only configured key is a read-only digest: every case below passes or fails through the
runner's own key.
"""

from __future__ import annotations

import functools
import shutil
import textwrap
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
import yaml

from govcore.cli import main
from govcore.core.selection import REASONS
from govcore.errors import ConfigError
from govcore.governance import Governance
from govcore.policy_tests import PolicyTestReport, discover_test_files, run_policy_tests

ROOT = Path(__file__).resolve().parent.parent
HOSPITAL = ROOT / "tests" / "data" / "policy_tests" / "hospital.yaml"
DEMO_CONFIG = ROOT / "govcore" / "demo" / "acme" / "govcore.yaml"

# One passing case of each kind, each a statement about the hospital's policies.
PASSING = """\
cases:
  - name: a missed tablet selects the dosing policy
    message: "I forgot my tablet this morning, should I take two now?"
    selects: [medication-dosing, emergency-signposting]
    does_not_select: [appointment-booking]
  - name: a record number in a reply is removed
    output: "Your chart MRN-1234567 is up to date."
    safe: false
    violations:
      - policy: medical-record-numbers
        count: 1
        matched: MRN-1234567
    redaction: "Your chart [record number removed] is up to date."
  - name: records cannot be deleted
    tool: delete_record
    arguments: {record: R-17}
    allow: false
    violations: [records-deletion]
    suggested_arguments: null
  - name: an appointment, then thanks
    turns:
      - message: "Can I move my appointment at the clinic to next Thursday?"
        selects_exactly: [appointment-booking, emergency-signposting]
        started: [appointment-booking, emergency-signposting]
        released: []
      - message: "Thanks, see you then!"
        selects: [appointment-booking]
        started: []
"""


@functools.cache
def hospital_version() -> str:
    """The hospital's policy set as a governance serving it names it."""
    with Governance.from_config(HOSPITAL) as governance:
        return str(governance.served_versions()["st-aldric"])


def header() -> str:
    """The report's first line: the policy set the cases ran against."""
    return f"tenant st-aldric: policy set {hospital_version()}"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def run(folder: Path, text: str, name: str = "hospital_test.yaml") -> PolicyTestReport:
    return run_policy_tests(HOSPITAL, [write(folder, name, text)])


def report_text(report: PolicyTestReport) -> str:
    return "\n".join(report.lines())


# --- passing --------------------------------------------------------------------------------


def test_one_case_of_each_kind_passes(tmp_path: Path) -> None:
    """A selection, an output check, a tool call and a conversation, all true of the
    policies, pass; the summary counts them."""
    report = run(tmp_path, PASSING)
    assert [(r.kind, r.outcome) for r in report.results] == [
        ("selection", "passed"),
        ("output", "passed"),
        ("tool call", "passed"),
        ("conversation", "passed"),
    ]
    assert report.passed
    assert report_text(report) == f"{header()}\n4 passed, 0 failed, 0 errors (4 cases in 1 file)"


def test_the_command_exits_0_when_every_case_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`govcore test CONFIG TEST` prints the summary and exits 0; -v lists each case."""
    test = write(tmp_path, "hospital_test.yaml", PASSING)
    assert main(["test", str(HOSPITAL), str(test), "-v"]) == 0
    out = capsys.readouterr().out
    assert f'PASS  {test}: "a missed tablet selects the dosing policy" (selection)' in out
    assert out.endswith("4 passed, 0 failed, 0 errors (4 cases in 1 file)\n")


def test_the_example_tenant_ships_passing_tests_of_every_kind(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`govcore test` on the example configuration finds its northwind_test.yaml beside it,
    covering every kind of case, and passes."""
    assert main(["test", str(DEMO_CONFIG)]) == 0
    report = run_policy_tests(DEMO_CONFIG)
    assert report.files == (str(DEMO_CONFIG.parent / "northwind_test.yaml"),)
    assert {r.kind for r in report.results} == {"selection", "output", "tool call", "conversation"}
    assert report.passed
    assert capsys.readouterr().out.endswith(f"{len(report.results)} passed, 0 failed, 0 errors "
                                             f"({len(report.results)} cases in 1 file)\n")  # fmt: skip


# --- failing, with what was expected and what came ------------------------------------------


def test_a_failing_selection_shows_expected_got_and_the_explanation(tmp_path: Path) -> None:
    """A policy expected but not selected: the report names the case, what was expected, the
    turn's active policies, and explains each named policy as govcore explain does."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: an adult's vaccination
            message: "Can my son get his vaccination results?"
            attributes: {age_group: adult}
            selects: [guardian-consent]
        """,
    )
    (result,) = report.results
    assert result.outcome == "failed"
    first, *lines = report.lines()
    assert first == header()
    assert (
        lines[0]
        == f'FAIL  {tmp_path / "hospital_test.yaml"}: "an adult\'s vaccination" (selection)'
    )
    assert lines[1:4] == [
        "  selects:",
        "    expected: guardian-consent selected",
        "    got:      selected: emergency-signposting (not guardian-consent)",
    ]
    assert lines[4] == "    why (as govcore explain shows the turn):"
    (consent,) = [line for line in lines if line.strip().startswith("guardian-consent ")]
    assert consent.endswith(REASONS["applies_when"])
    assert lines[-1] == "0 passed, 1 failed, 0 errors (1 case in 1 file)"


def test_selection_expectations_fail_each_on_its_own_rule(tmp_path: Path) -> None:
    """does_not_select fails on a selected policy, selects_exactly on a missing and on an
    extra one, each with what differed."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: unwanted
            message: "Can I move my appointment at the clinic to next Thursday?"
            does_not_select: [appointment-booking, records-deletion]
          - name: missing from the exact set
            message: "Can I move my appointment at the clinic to next Thursday?"
            selects_exactly: [appointment-booking, emergency-signposting, medication-dosing]
          - name: extra in the exact set
            message: "Can I move my appointment at the clinic to next Thursday?"
            selects_exactly: [emergency-signposting]
          - name: holds
            message: "Can I move my appointment at the clinic to next Thursday?"
            selects_exactly: [emergency-signposting, appointment-booking]
        """,
    )
    unwanted, missing, extra, holds = report.results
    (mismatch,) = unwanted.mismatches
    assert mismatch.expected == "none of appointment-booking, records-deletion selected"
    assert mismatch.got.endswith(" (also appointment-booking)")
    assert set(mismatch.got.removeprefix("selected: ").split(" (")[0].split(", ")) == {
        "appointment-booking",
        "emergency-signposting",
    }
    assert missing.mismatches[0].expected == (
        "exactly appointment-booking, emergency-signposting, medication-dosing"
    )
    assert missing.mismatches[0].got.endswith("(missing medication-dosing)")
    assert extra.mismatches[0].got.endswith("(extra appointment-booking)")
    assert holds.outcome == "passed"


def test_context_and_history_reach_the_turn(tmp_path: Path) -> None:
    """A short reply selects through its context or the conversation's prior history, and not
    without them."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: with context
            message: "Yes, the morning one."
            context: ["Can I move my appointment at the clinic to next Thursday?"]
            selects: [appointment-booking]
          - name: with history
            message: "Yes, the morning one."
            history:
              - {role: user, content: "Can I move my appointment at the clinic to next Thursday?"}
              - {role: assistant, content: "Of course. Morning or afternoon?"}
            selects: [appointment-booking]
          - name: alone
            message: "Yes, the morning one."
            selects: [appointment-booking]
        """,
    )
    assert [r.outcome for r in report.results] == ["passed", "passed", "failed"]


def test_a_failing_output_check_names_each_expectation(tmp_path: Path) -> None:
    """safe, violations (policy, count and matched text), the exact redaction and its
    substrings each fail with what was expected and what came."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: wrong on every count
            output: "Your chart MRN-1234567 says: double the dose tonight."
            safe: true
            violations:
              - policy: medical-record-numbers
                count: 2
                matched: MRN-7654321
            redaction: "Your chart says: double the dose tonight."
            redaction_contains: ["[chart removed]"]
            redaction_excludes: ["tonight"]
        """,
    )
    (result,) = report.results
    by_key = {m.key: m for m in result.mismatches}
    assert list(by_key) == [
        "safe", "violations", "redaction", "redaction_contains", "redaction_excludes",
    ]  # fmt: skip
    assert (by_key["safe"].expected, by_key["safe"].got) == ("true", "false")
    assert by_key["violations"].expected == "medical-record-numbers (2, matching 'MRN-7654321')"
    assert by_key["violations"].got == (
        "medical-record-numbers (1: 'MRN-1234567'); medication-dosing (1: 'double the dose')"
    )
    assert (
        by_key["redaction"].got == "'Your chart [record number removed] says: [removed] tonight.'"
    )
    assert by_key["redaction_contains"].expected == "to contain '[chart removed]'"
    assert by_key["redaction_excludes"].expected == "not to contain 'tonight'"


@pytest.mark.parametrize(
    ("violations", "outcome"),
    [
        ("[medical-record-numbers, medication-dosing]", "passed"),
        ("[medical-record-numbers]", "failed"),  # a policy found but not listed
        ("[medical-record-numbers, medication-dosing, appointment-booking]", "failed"),
        ("[{policy: medical-record-numbers, count: 1}, medication-dosing]", "passed"),
        ("[{policy: medical-record-numbers, count: 2}, medication-dosing]", "failed"),
        ("[{policy: medication-dosing, matched: double the dose}, medical-record-numbers]", "passed"),
        ("[{policy: medication-dosing, matched: [double the dose, skip]}, medical-record-numbers]", "failed"),
        ("[]", "failed"),
    ],
)  # fmt: skip
def test_violations_list_exactly_the_policies_found(
    tmp_path: Path, violations: str, outcome: str
) -> None:
    """`violations` is the set of policies with violations; count and matched narrow one."""
    report = run(
        tmp_path,
        f"""\
        cases:
          - name: two policies
            output: "Your chart MRN-1234567 says: double the dose tonight."
            violations: {violations}
        """,
    )
    assert report.results[0].outcome == outcome


def test_a_failing_tool_call_names_allow_violations_and_arguments(tmp_path: Path) -> None:
    """allow, violations and suggested_arguments each fail with expected and got (as JSON)."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: a high dose
            tool: prescribe
            arguments: {drug: paracetamol, dose_mg: 1500}
            allow: false
            violations: []
            suggested_arguments: {drug: paracetamol, dose_mg: 1500}
          - name: a high dose, right
            tool: prescribe
            arguments: {drug: paracetamol, dose_mg: 1500}
            allow: true
            violations: [{policy: medication-dosing, matched: "1500"}]
            suggested_arguments: {drug: paracetamol, dose_mg: 1000}
          - name: a slot of 45 minutes has no fix
            tool: book_appointment
            arguments: {clinic: cardiology, slot_minutes: 45}
            violations: [appointment-booking]
            suggested_arguments: null
        """,
    )
    wrong, right, slot = report.results
    assert [(m.key, m.expected, m.got) for m in wrong.mismatches] == [
        ("allow", "false", "true"),
        ("violations", "none", "medication-dosing (1: '1500')"),
        (
            "suggested_arguments",
            '{"dose_mg": 1500, "drug": "paracetamol"}',
            '{"dose_mg": 1000, "drug": "paracetamol"}',
        ),
    ]
    assert right.outcome == "passed"
    assert slot.outcome == "passed"


def test_suggested_arguments_compare_as_json(tmp_path: Path) -> None:
    """true is not 1 in the arguments expected, while 1000 and 1000.0 are one number."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: a boolean is not a number
            tool: prescribe
            arguments: {drug: paracetamol, dose_mg: 1500, urgent: true}
            suggested_arguments: {drug: paracetamol, dose_mg: 1000, urgent: 1}
          - name: a whole number is its float
            tool: prescribe
            arguments: {drug: paracetamol, dose_mg: 1500, urgent: true}
            suggested_arguments: {drug: paracetamol, dose_mg: 1000.0, urgent: true}
        """,
    )
    boolean, number = report.results
    assert [m.key for m in boolean.mismatches] == ["suggested_arguments"]
    assert number.outcome == "passed"


def test_arguments_that_are_not_json_are_a_problem_of_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unquoted YAML date (or NaN) in arguments is an error naming its place, and the run
    goes on to a report and its exit status rather than a traceback."""
    path = write(
        tmp_path,
        "dates_test.yaml",
        """\
        cases:
          - name: a date left unquoted
            tool: book_appointment
            arguments: {clinic: cardiology, when: 2026-01-01}
            suggested_arguments: {clinic: cardiology, when: 2026-01-01}
          - name: not a number
            tool: prescribe
            arguments: {dose_mg: .nan}
            allow: true
        """,
    )
    assert main(["test", str(HOSPITAL), str(path)]) == 1
    out = capsys.readouterr().out
    assert "arguments.when: is date" in out
    assert '"2026-01-01"' in out
    assert "arguments.dose_mg: is nan" in out


def test_a_tool_call_follows_the_turns_of_its_case(tmp_path: Path) -> None:
    """The turns before a tool call are recorded in the case's conversation first, with their
    own expectations checked."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: turns then a call
            turns:
              - message: "Can I move my appointment at the clinic to next Thursday?"
                selects: [medication-dosing]
            tool: book_appointment
            arguments: {slot_minutes: 30}
            allow: true
        """,
    )
    (result,) = report.results
    assert [m.field for m in result.mismatches] == ["turns[0].selects"]


def test_a_failing_conversation_names_the_turn(tmp_path: Path) -> None:
    """Each turn's active set, starts and releases are checked; a mismatch names the turn.
    With no context read (recent_context_turns 0), a policy selected at turn 1 only is held
    through turns 2 and 3 and released at turn 4, its third turn without selection."""
    config = yaml.safe_load(HOSPITAL.read_text(encoding="utf-8"))
    config["settings"]["recent_context_turns"] = 0
    no_context = tmp_path / "no_context.yaml"
    no_context.write_text(yaml.safe_dump(config), encoding="utf-8")
    test = write(
        tmp_path,
        "hospital_test.yaml",
        """\
        cases:
          - name: appointment then small talk
            turns:
              - message: "Can I move my appointment at the clinic to next Thursday?"
                started: [appointment-booking, emergency-signposting]
              - message: "Thanks."
                selects: [appointment-booking]
                started: []
              - message: "The weather is lovely today."
                selects: [appointment-booking]
                released: []
              - message: "My cat says hello."
                released: [appointment-booking]
                selects_exactly: [emergency-signposting]
          - name: released a turn too early
            turns:
              - message: "Can I move my appointment at the clinic to next Thursday?"
              - message: "Thanks."
              - message: "The weather is lovely today."
                released: [appointment-booking]
        """,
    )
    report = run_policy_tests(no_context, [test])
    holds, early = report.results
    assert holds.outcome == "passed", report_text(report)
    assert [(m.field, m.expected, m.got) for m in early.mismatches] == [
        (
            "turns[2].released",
            "exactly appointment-booking",
            "released: none (missing appointment-booking)",
        )
    ]


def test_cases_run_in_conversations_of_their_own(tmp_path: Path) -> None:
    """A conversation case's policies do not leak into the next case: small talk after it
    selects only the alwaysOn policy."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: an appointment
            turns:
              - message: "Can I move my appointment at the clinic to next Thursday?"
                selects: [appointment-booking]
          - name: small talk, afresh
            message: "Thanks, see you then!"
            selects_exactly: [emergency-signposting]
        """,
    )
    assert [r.outcome for r in report.results] == ["passed", "passed"]


# --- errors ----------------------------------------------------------------------------------


def test_a_policy_the_configuration_lacks_is_an_error_not_a_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Naming an unknown policy (here under does_not_select, which would otherwise pass) is
    an error naming file, case and field, and the command exits 1."""
    test = write(
        tmp_path,
        "hospital_test.yaml",
        """\
        cases:
          - name: renamed policy
            message: "Can I move my appointment?"
            does_not_select: [medication-dose]
          - name: fine
            message: "Can I move my appointment at the clinic to next Thursday?"
            selects: [appointment-booking]
        """,
    )
    assert main(["test", str(HOSPITAL), str(test)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[:3] == [
        header(),
        f'ERROR {test}: "renamed policy" (case)',
        "  does_not_select[0]: unknown policy 'medication-dose' (did you mean "
        "'medication-dosing'?): tenant 'st-aldric' has no such policy",
    ]
    assert out.endswith("1 passed, 0 failed, 1 error (2 cases in 1 file)\n")


@pytest.mark.parametrize(
    ("case", "problem"),
    [
        ("{name: a, message: hi, selects: [appointment-booking], sellects: []}",
         "sellects: unknown field (did you mean 'selects'?)"),
        ("{name: a, message: 42, selects: [appointment-booking]}",
         "message: must be text, not number 42 (quote it in YAML)"),
        ("{name: a, output: hi, safe: 'no'}", "safe: must be true or false, not text 'no'"),
        ("{name: a, output: hi, violations: [{policy: medication-dosing, count: 0}]}",
         "violations[0].count: must be a whole number of at least 1, not number 0"),
        ("{name: a, output: hi, violations: [medication-dosing, medication-dosing]}",
         "violations[1]: 'medication-dosing' listed twice; give count instead"),
        ("{name: a, message: hi}",
         "case: expects nothing, so it could never fail; give at least one of selects, "
         "does_not_select, selects_exactly"),
        ("{name: a, message: hi, selects: []}", "selects: empty; list at least one policy id"),
        ("{name: a, message: hi, selects_exactly: null}",
         "selects_exactly: must be a list of policy ids, not null"),
        ("{name: a, output: hi, violations: null}",
         "violations: must be a list of policy ids or mappings with 'policy', not null"),
        ("{name: a, message: hi, output: there, safe: true}",
         "case: has 'message' and 'output'; a case has exactly one of 'message' (selection), "
         "'output' (output check), 'tool' (tool call) or 'turns' (conversation)"),
        ("{name: a, message: hi, selects: [appointment-booking], safe: true}",
         "safe: not a key of a selection case"),
        ("{name: a, tool: x, allow: true, released: []}",
         "released: a key of a turn (under turns), not of a case"),
        ("{name: a, turns: [{message: hi, role: system, selects: [appointment-booking]}]}",
         "turns[0].role: must be one of user, assistant, tool, not 'system'"),
        ("{name: a, message: hi, selects_exactly: [appointment-booking], "
         "does_not_select: [medication-dosing]}",
         "selects_exactly: goes alone: it already says what is selected and what is not "
         "(drop selects and does_not_select)"),
        ("{name: a, message: hi, attributes: {age_group: {nested: 1}}, "
         "selects: [appointment-booking]}",
         "attributes.age_group: must be text, a number, a boolean, null or a list of those, "
         "not a mapping"),
        ("{name: a, tool: x, arguments: [1], allow: true}",
         "arguments: must be a mapping of argument names to values, not a list"),
        ("{name: a, message: hi, history: [{role: user, text: x}], selects: [medication-dosing]}",
         "history[0].text: unknown field"),
    ],
)  # fmt: skip
def test_a_malformed_case_is_an_error_naming_its_field(
    tmp_path: Path, case: str, problem: str
) -> None:
    """Strict parsing: unknown keys, wrong types and contradictions are errors of the case,
    each naming the field and why."""
    report = run(tmp_path, f"cases:\n  - {case}\n")
    (result,) = report.results
    assert (result.name, result.outcome) == ("a", "error")
    assert problem in result.errors


def test_a_broken_case_leaves_the_others_to_run(tmp_path: Path) -> None:
    """One malformed case is one error; the file's other cases still run, in order."""
    report = run(
        tmp_path,
        """\
        cases:
          - {name: first, output: "MRN-1234567", safe: false}
          - {name: broken, output: "x", safe: maybe}
          - {name: last, output: "MRN-1234567", safe: true}
        """,
    )
    assert [(r.name, r.outcome) for r in report.results] == [
        ("first", "passed"), ("broken", "error"), ("last", "failed"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("cases: [\n", "invalid YAML at line 2, column 1: expected the node content, but "
                       "found '<stream end>'"),
        ("", "must be a mapping with 'cases', not empty"),
        ("- a\n", "must be a mapping with 'cases', not a list"),
        ("case: []\n", "case: unknown field (did you mean 'cases'?)"),
        ("cases: []\n", "cases: empty; a test file holds at least one case"),
        ("tenant: st-aldrics\ncases: [{name: a, output: x, safe: true}]\n",
         "tenant: unknown tenant 'st-aldrics' (did you mean 'st-aldric'?); the configuration "
         "has st-aldric"),
    ],
)  # fmt: skip
def test_a_malformed_file_is_one_error(tmp_path: Path, text: str, problem: str) -> None:
    """A file that cannot be parsed as a whole is one error result naming the file."""
    report = run(tmp_path, text)
    (result,) = report.results
    assert (result.kind, result.outcome, result.name) == ("file", "error", "")
    assert problem in result.errors


def test_a_file_must_name_its_tenant_when_there_are_several(tmp_path: Path) -> None:
    """With two tenants, a file without `tenant` is an error; with it, its cases run as that
    tenant (whose policies are the only ones it may name)."""
    config = yaml.safe_load(HOSPITAL.read_text(encoding="utf-8"))
    config["tenants"]["clinic"] = {
        "policies": [
            {"id": "clinic-hours", "title": "Opening hours", "summary": "Open 8 to 6.",
             "severity": 1, "enforcement": "audit", "citationRef": "C-1", "alwaysOn": True}
        ]
    }  # fmt: skip
    two = tmp_path / "two.yaml"
    two.write_text(yaml.safe_dump(config), encoding="utf-8")
    case = "cases: [{name: a, message: hi, selects_exactly: [clinic-hours]}]\n"
    unnamed = write(tmp_path, "unnamed_test.yaml", case)
    named = write(tmp_path, "named_test.yaml", "tenant: clinic\n" + case)
    other = write(tmp_path, "other_test.yaml", "tenant: st-aldric\n" + case)
    report = run_policy_tests(two, [unnamed, named, other])
    unnamed_result, named_result, other_result = report.results
    assert unnamed_result.errors == (
        "tenant: required, since the configuration has 2 tenants (clinic, st-aldric)",
    )
    assert named_result.outcome == "passed"
    assert other_result.outcome == "error"
    assert "unknown policy 'clinic-hours'" in other_result.errors[0]


def test_a_request_the_api_refuses_is_an_error_of_its_case(tmp_path: Path) -> None:
    """A message over the configuration's content limit (2 KiB here) is refused by the API:
    the case is an error saying so, and the next case runs."""
    report = run(
        tmp_path,
        f"""\
        cases:
          - name: too long
            message: "{"a" * 3000}"
            selects: [appointment-booking]
          - name: next
            message: "Can I move my appointment at the clinic to next Thursday?"
            selects: [appointment-booking]
        """,
    )
    too_long, following = report.results
    assert too_long.outcome == "error"
    assert too_long.errors[0].startswith("the API refused a request of this case: ")
    assert "is 3000 bytes, more than the limit of 2048 bytes" in too_long.errors[0]
    assert following.outcome == "passed"


# --- the runner's own setup --------------------------------------------------------------------


def test_the_configured_store_is_never_used(tmp_path: Path) -> None:
    """A configuration whose store is a Redis server nobody runs is tested all the same: the
    runner keeps its conversations in memory."""
    config = yaml.safe_load(HOSPITAL.read_text(encoding="utf-8"))
    config["settings"]["store"] = "redis://127.0.0.1:9/0"
    redis_config = tmp_path / "redis.yaml"
    redis_config.write_text(yaml.safe_dump(config), encoding="utf-8")
    test = write(tmp_path, "hospital_test.yaml", PASSING)
    assert run_policy_tests(redis_config, [test]).passed


def test_an_invalid_configuration_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A configuration that does not load is exit status 2 with its problems, as for
    coverage; run_policy_tests raises ConfigError."""
    bad = write(tmp_path, "govcore.yaml", "tenants: {}\nkeys: [1]\n")
    write(tmp_path, "hospital_test.yaml", PASSING)
    assert main(["test", str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"{bad}: 1 problem\n  - ")
    with pytest.raises(ConfigError):
        run_policy_tests(bad)


def test_no_test_files_or_a_missing_path_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing to run is not a pass: no test file beside the configuration, or a path that
    does not exist, is exit status 2 with a message."""
    config = tmp_path / "govcore.yaml"
    shutil.copy(HOSPITAL, config)
    assert main(["test", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"govcore test: no test files (*_test.yaml, *_test.yml) beside {config}\n"
    )
    assert main(["test", str(config), str(tmp_path / "missing_test.yaml")]) == 2
    assert "missing_test.yaml: no such file or folder" in capsys.readouterr().err


def test_test_files_are_found_beside_the_configuration(tmp_path: Path) -> None:
    """Without paths, the *_test.yaml and *_test.yml files in the configuration's folder and
    under its tests/ folder run, and no other subfolder's (a virtual environment may hold an
    installed package's); a folder given as a path is searched through, hidden subfolders
    aside; a file given by name runs whatever its name."""
    config = tmp_path / "govcore.yaml"
    shutil.copy(HOSPITAL, config)
    case = "cases: [{name: a, output: MRN-1234567, safe: false}]\n"
    for name in ("a_test.yaml", "b_test.yml", "tests/c_test.yaml", "tests/deep/d_test.yml",
                 "tests/.hidden/e_test.yaml", "venv/lib/f_test.yaml", "g.yaml", "h_test.json",
                 "i_tests.yaml"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(case, encoding="utf-8")
    beside = [tmp_path / "a_test.yaml", tmp_path / "b_test.yml"]
    under_tests = [tmp_path / "tests/c_test.yaml", tmp_path / "tests/deep/d_test.yml"]
    assert run_policy_tests(config).files == tuple(str(p) for p in beside + under_tests)
    assert discover_test_files(tmp_path / "tests") == under_tests
    assert run_policy_tests(config, [tmp_path / "venv"]).files == (
        str(tmp_path / "venv/lib/f_test.yaml"),
    )
    assert run_policy_tests(config, [tmp_path / "g.yaml"]).files == (str(tmp_path / "g.yaml"),)


# --- JUnit XML ----------------------------------------------------------------------------------


def test_junit_xml_has_a_suite_per_file_and_the_right_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--junit writes well-formed JUnit XML: one testsuite per file with its counts, one
    testcase per case, a failure with expected and got, an error with the problem; the
    command exits 1."""
    mixed = write(
        tmp_path,
        "mixed_test.yaml",
        """\
        cases:
          - {name: passes, output: "MRN-1234567", safe: false}
          - {name: fails, output: "MRN-1234567", safe: true}
          - {name: "unknown \\x07policy", output: x, violations: [no-such-policy]}
        """,
    )
    broken = write(tmp_path, "broken_test.yaml", "cases: [\n")
    junit = tmp_path / "out" / "results.xml"
    junit.parent.mkdir()
    assert main(["test", str(HOSPITAL), str(mixed), str(broken), "--junit", str(junit)]) == 1
    capsys.readouterr()
    root = ElementTree.parse(junit).getroot()  # noqa: S314 - the file the command just wrote
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "2")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [str(mixed), str(broken)]
    assert [(s.get("tests"), s.get("failures"), s.get("errors")) for s in suites] == [
        ("3", "1", "1"), ("1", "0", "1"),
    ]  # fmt: skip
    properties = suites[0].findall("properties/property")
    assert [(p.get("name"), p.get("value")) for p in properties] == [
        ("tenant", "st-aldric"),
        ("policy_set", hospital_version()),
    ]
    assert suites[1].find("properties") is None  # a file that did not parse ran as no tenant
    cases = suites[0].findall("testcase")
    assert [c.get("name") for c in cases] == ["passes", "fails", "unknown \ufffdpolicy"]
    assert cases[0].find("failure") is None
    assert cases[0].find("error") is None
    failure = cases[1].find("failure")
    assert failure is not None
    assert failure.get("message") == "safe: expected true, got false"
    assert failure.text is not None
    assert "expected: true" in failure.text
    error = cases[2].find("error")
    assert error is not None
    assert "unknown policy 'no-such-policy'" in (error.get("message") or "")
    (broken_case,) = suites[1].findall("testcase")
    assert broken_case.get("name") == str(broken)
    assert broken_case.find("error") is not None


def test_a_failure_is_exit_status_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One failing case among passing ones makes the command exit 1."""
    test = write(
        tmp_path,
        "hospital_test.yaml",
        PASSING + '  - {name: wrong, output: "MRN-1234567", safe: true}\n',
    )
    assert main(["test", str(HOSPITAL), str(test)]) == 1
    assert capsys.readouterr().out.endswith("4 passed, 1 failed, 0 errors (5 cases in 1 file)\n")


def test_conversation_turns_carry_the_earlier_turns_as_context(tmp_path: Path) -> None:
    """Each turn of a conversation case is sent with the turns before it as recentContext, as
    an agent integration sends them: short replies after an appointment request keep selecting
    it, so it is not released at turn 4 as it is when no context is read (the test above)."""
    report = run(
        tmp_path,
        """\
        cases:
          - name: short replies keep the appointment in view
            turns:
              - message: "Can I move my appointment at the clinic to next Thursday?"
              - message: "Yes, the morning one."
                started: []
              - message: "Thanks."
              - message: "My cat says hello."
                released: []
                selects: [appointment-booking]
        """,
    )
    assert report.passed, report_text(report)


def test_the_explanation_lists_the_named_policies_whatever_their_rank(tmp_path: Path) -> None:
    """Under a failing selection, the explanation shows the policies the case names even when
    they rank below the best ten that govcore explain lists by default."""
    test = write(
        tmp_path,
        "northwind_test.yaml",
        """\
        cases:
          - name: small talk
            message: "Thanks a lot, have a nice evening!"
            selects: [third-party-disclosure]
        """,
    )
    report = run_policy_tests(DEMO_CONFIG, [test])
    lines = list(report.lines())
    rows = [line.split()[0] for line in lines if line.startswith("      ") and "  " in line[6:]]
    assert "third-party-disclosure" in rows
    assert any(
        "more policies score lower; `govcore explain --all` lists them" in line for line in lines
    )


def _documented_cases() -> list[str]:
    """The YAML blocks of docs/policy-testing.md that are lists of complete cases."""
    text = (ROOT / "docs" / "policy-testing.md").read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in text.split("```yaml\n")[1:]]
    return [b for b in blocks if b.startswith("- name:") and "..." not in b]


def test_the_documented_examples_pass_against_the_example_configuration(tmp_path: Path) -> None:
    """Every example case in docs/policy-testing.md is true of the example tenant's policies."""
    blocks = _documented_cases()
    assert len(blocks) >= 4, "the selection, output, tool call and conversation examples"
    test = tmp_path / "documented_test.yaml"
    test.write_text("cases:\n" + "".join(textwrap.indent(b, "  ") for b in blocks))
    report = run_policy_tests(DEMO_CONFIG, [test])
    assert {r.kind for r in report.results} == {"selection", "output", "tool call", "conversation"}
    assert report.passed, report_text(report)
