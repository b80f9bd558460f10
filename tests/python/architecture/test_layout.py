"""The Python tests mirror the package (issue 27, item 5).

* Every test file sits in a folder: one named after the subpackage or public module of
  ``python/dppack`` it tests, or one of the tiers in ``TIERS`` (tests against R, the
  documentation, the recorded releases, the architecture, the private helpers).
* Test basenames are unique across the folders (pytest's default import mode imports each
  test file by its basename, with no package).
* The folder of the shared helpers holds no test file; it holds the helpers and ``conftest.py``.

Deterministic (reads file names only): no false failures.
"""

import collections
import pathlib

TESTS = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = TESTS.parents[1] / "python" / "dppack"

# Folders that are not a dppack subpackage or public module of the same name.
TIERS = {
    "architecture": "the structure of the package",
    "core": "the private helpers: _checks, _frames, _messages, data_access",
    "cross_language": "R against Python, and R's bridge (_rbridge)",
    "docs": "the documentation, README and benchmark scripts",
    "random": "the samplers: _random and _exact",
    "releases": "every release's recorded bits (fast path, the issue-27 refactor)",
}


def _test_files():
    return sorted(path for path in TESTS.rglob("test_*.py") if "__pycache__" not in path.parts)


def _package_names():
    return ({path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
            | {path.stem for path in PACKAGE.glob("*.py") if not path.stem.startswith("_")})


def test_every_test_file_is_in_a_folder_named_after_what_it_tests():
    allowed = _package_names() | set(TIERS)
    misplaced = [str(path.relative_to(TESTS)) for path in _test_files()
                 if path.parent == TESTS or path.parent.relative_to(TESTS).parts[0] not in allowed]
    assert not misplaced, misplaced


def test_test_basenames_are_unique():
    names = collections.Counter(path.name for path in _test_files())
    assert not [name for name, count in names.items() if count > 1]


def test_the_folders_are_not_empty_and_the_tiers_exist():
    folders = {path.parent.relative_to(TESTS).parts[0] for path in _test_files()}
    assert set(TIERS) <= folders
    assert {"stats", "erm", "accuracy", "accounting"} <= folders
    assert not set(TIERS) & _package_names()  # a tier never shadows a package's name
