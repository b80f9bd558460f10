"""One runner charges the accountant (issue 27, item 1): ``dppack._plans.run`` is the only
caller of ``accounting.charge`` in the package, so every release is a plan whose charge comes
before its data are read and whose draws come after its checks. Read from the source (AST).

Deterministic: no false failures.
"""

import ast
import pathlib
import textwrap

PACKAGE = pathlib.Path(__file__).resolve().parents[3] / "python" / "dppack"

# The runner, and the accountant's own package (which defines charge).
ALLOWED = {"_plans.py"}


def charge_calls(source):
    """Line numbers of calls to ``charge`` (``accounting.charge(...)``, ``charge(...)``,
    ``_accountant.charge(...)``) and of ``Charge(...)`` built by hand."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        name = (function.attr if isinstance(function, ast.Attribute)
                else function.id if isinstance(function, ast.Name) else None)
        if name in ("charge", "Charge"):
            lines.append(node.lineno)
    return lines


def offenders(package=PACKAGE):
    found = []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name in ALLOWED or name.startswith("accounting/"):
            continue
        found += [f"{name}:{line}" for line in charge_calls(path.read_text(encoding="utf-8"))]
    return found


def test_the_runner_is_the_only_caller_of_charge():
    assert offenders() == []


def test_the_check_sees_a_hand_written_charge(tmp_path):
    planted = tmp_path / "dppack"
    (planted / "stats").mkdir(parents=True)
    (planted / "_plans.py").write_text("bill = accounting.charge(a, f, 'x')\n")
    (planted / "stats" / "_new.py").write_text(textwrap.dedent("""
        from dppack import accounting
        from dppack.accounting import charge

        def release(x, accountant=None):
            bill = accounting.charge(accountant, lambda: 1, "release")
            other = charge(accountant, lambda: 1, "other")
            return bill, other
    """))
    assert offenders(planted) == ["stats/_new.py:6", "stats/_new.py:7"]
