"""The architecture's counts (issue 27), as tests: module sizes, docstrings against code, and
no section sign in the tests or the R package.

* No module of ``python/dppack`` over ``MAX_LINES`` lines (code, comments and docstrings),
  except the modules of ``OVERSIZED``, today's offenders, which must shrink: a listed module
  that is now at most ``MAX_LINES`` (or gone) fails until it leaves the list, and an unlisted
  one over it fails.
* The package's docstring-to-code ratio (docstring lines over code lines, both counted with
  ``ast`` and ``tokenize``: a line of a module's, class's or function's docstring is a
  docstring line; a line holding any other token but a comment is a code line) is at most
  ``RATIO_CEILING``. The ceiling only goes down: when the ratio falls more than
  ``RATIO_SLACK`` below it, the test asks for the lower value. The issue's target, 1.0, is
  met: the ceiling stays at or below it.
* No section sign in ``tests/`` or ``R/``: comments cite papers (author, year, theorem or
  algorithm) or DPpack's functions, not the sections of a file outside the repository.
* Nor in ``python/dppack``, comments included (the 144 comments citing sections of the spec
  when issue 27 was filed are gone; the strings are also scanned by
  ``tests/python/core/test_messages.py``, the comments only here), and no file of the package,
  of ``R/`` or of ``tests/`` names a path outside the repository (``specs/``, ``/work/``) or
  cites our notes outside it ("the spec", "spec section 2.2", "(spec 9.2)", "dppack_api.md", a
  paper by its seed number); words such as "specify", "spectral" or "inspect" and a variable
  named ``spec`` do not count. Exempt: this file and ``tests/python/core/test_messages.py``,
  whose planted cases are such citations.

Deterministic: no false failures.
"""

import ast
import io
import pathlib
import re
import tokenize

ROOT = pathlib.Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "python" / "dppack"

MAX_LINES = 800

# Today's modules over MAX_LINES (issue 27): each must shrink below it, then leave this list.
# None left: the last, _random.py, is the package _random/ (one module per topic).
OVERSIZED = frozenset()

# Docstring lines per code line of the whole package (0.909; 1.47 when issue 27 was filed):
# derivations live in docs/python/guide. Never raise it; the target, 1.0, is met.
RATIO_CEILING = 0.91
RATIO_SLACK = 0.02
RATIO_TARGET = 1.0


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


def _name(path):
    return path.relative_to(PACKAGE).as_posix()


def _line_count(path):
    return len(path.read_text(encoding="utf-8").splitlines())


def docstring_and_code_lines(source):
    """(docstring lines, code lines) of a module's source."""
    tree = ast.parse(source)
    doc = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                doc.update(range(body[0].lineno, body[0].end_lineno + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER}
    code = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            code.update(range(token.start[0], token.end[0] + 1))
    return len(doc), len(code - doc)


def package_ratio():
    doc = code = 0
    for path in _modules():
        d, c = docstring_and_code_lines(path.read_text(encoding="utf-8"))
        doc, code = doc + d, code + c
    return doc / code


def test_no_new_module_over_the_limit():
    over = {_name(path) for path in _modules() if _line_count(path) > MAX_LINES}
    assert not over - OVERSIZED, f"modules over {MAX_LINES} lines: {sorted(over - OVERSIZED)}"


def test_listed_modules_are_still_over_the_limit():
    # a module that shrank (or was split into a package) leaves the list
    sizes = {_name(path): _line_count(path) for path in _modules()}
    shrunk = sorted(name for name in OVERSIZED if sizes.get(name, 0) <= MAX_LINES)
    assert not shrunk, f"remove from OVERSIZED (now at most {MAX_LINES} lines): {shrunk}"


def test_docstring_ratio_is_below_its_ceiling():
    ratio = package_ratio()
    assert RATIO_CEILING <= RATIO_TARGET  # the target is met: the ceiling only goes down
    assert ratio <= RATIO_CEILING, f"docstring-to-code ratio {ratio:.3f} > {RATIO_CEILING}"
    assert ratio > RATIO_CEILING - RATIO_SLACK, (
        f"the ratio fell to {ratio:.3f}: lower RATIO_CEILING to {ratio + 0.005:.2f}")


def test_the_ratio_counts_docstrings_and_code():
    source = ('"""Module.\n\nLong."""\n\nimport math  # a comment\n\n\n'
              'def f(x):\n    """One line."""\n    # only a comment\n    return (x +\n'
              '            1)\n')
    assert docstring_and_code_lines(source) == (4, 4)


def test_no_section_sign_in_tests_or_r():
    sign = "\u00a7"
    found = []
    for folder in ("tests", "R"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                text = path.read_bytes().decode("utf-8", errors="ignore")
                found += [f"{path.relative_to(ROOT)}:{number}"
                          for number, line in enumerate(text.splitlines(), 1) if sign in line]
    assert not found, found


_OUTSIDE = ("\u00a7", "specs/", "/work/")  # a spec section sign, the spec folder, a machine path

# A citation of our notes outside the repository: "the spec", "spec section 2.2", "spec 2.1",
# "spec P3", "spec foo.md", "spec:", "the spec's", "(spec 9.2)", dppack_api.md, "seed 003".
_OUTSIDE_PHRASE = re.compile(
    r"\bthe spec\b|\bspecs?\s*(?:sections?\b|\d|P\d|[\w-]+\.md\b|:)|\bspec's\b|\(spec\s"
    r"|dppack_api\.md|\bseed 0\d\d\b", re.IGNORECASE)

# The checkers, whose planted cases are citations: this file and the scan of user-facing text.
_EXEMPT = frozenset({"python/architecture/test_architecture_counts.py",
                     "python/core/test_messages.py"})


def outside_citations(folder, pattern, exempt=frozenset()):
    """``file:line`` of every line of the files ``pattern`` under ``folder`` (but the relative
    paths ``exempt``) that cites a section, a path or our notes outside the repository
    (comments, docstrings and strings alike)."""
    found = []
    for path in sorted(folder.rglob(pattern)):
        name = path.relative_to(folder).as_posix()
        if "__pycache__" in path.parts or not path.is_file() or name in exempt:
            continue
        text = path.read_bytes().decode("utf-8", errors="ignore")
        found += [f"{name}:{number}" for number, line in enumerate(text.splitlines(), 1)
                  if any(mark in line for mark in _OUTSIDE) or _OUTSIDE_PHRASE.search(line)]
    return found


def test_no_outside_citation_in_the_package_r_or_tests():
    found = (outside_citations(PACKAGE, "*.py") + outside_citations(ROOT / "R", "*.R")
             + outside_citations(ROOT / "tests", "*", _EXEMPT))
    assert not found, found


def test_the_citation_scan_sees_a_planted_comment(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n# the law (spec \u00a72.1)\n", encoding="utf-8")
    (tmp_path / "n.py").write_text("# see /work/shared/specs/dppack_api.md\n", encoding="utf-8")
    assert outside_citations(tmp_path, "*.py") == ["m.py:2", "n.py:1"]


def test_the_citation_scan_sees_spec_phrases_and_spares_other_words(tmp_path):
    cited = ["# Gaussian noise scales of spec section 2.2", "# the spec's sigma",
             'test_that("script calls run (spec 9.2)", {', "# see the Spec below",
             "# pooled (spec: (U - L)^2 / n)", "# spec P3", "# spec analytic_gaussian_erm.md",
             "# DPpack's building blocks (dppack_api.md)", "# the DPpack paper (seed 003)",
             "# spec sections 6.1 and 6.5"]
    spared = ["# specify the bounds", "# a special case", "# spectral norm", "# with respect to",
              "# inspect the result", 'spec = importlib.util.spec_from_file_location("m", p)',
              "module = importlib.util.module_from_spec(spec)", "for vector, spec in CASES:",
              "python_breaks = BREAK_SPECS[spec][1]", "# the specification of the seed 42"]
    (tmp_path / "t.R").write_text("\n".join(cited + spared) + "\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "checker.py").write_text("# the spec\n", encoding="utf-8")
    expected = [f"t.R:{number}" for number in range(1, len(cited) + 1)]
    assert outside_citations(tmp_path, "*") == ["sub/checker.py:1"] + expected
    assert outside_citations(tmp_path, "*", frozenset({"sub/checker.py"})) == expected
