"""Every public release gives the same bits as before the issue-27 refactor.

``data/releases_expected.json`` was recorded by ``scripts/record-releases.py --all`` at
commit 56ca7fd (the last before the refactor; its "commit" field) under NumPy 1.26. Every
case of ``release_cases.py`` must give the same bits for the same integer ``random_state``,
consume the same draws of a passed Generator, and raise the same errors and warnings. Where
the machine differs from the recording one (another NumPy, CPU or BLAS kernel: its
"machine" field), floats are compared to a relative 1e-9, as ``test_fast_path`` does for its
solver cases; errors, warnings, integers and generator states stay exact.
"""

import json
import pathlib

import pytest

import dppack as d

import fast_path_cases
import release_cases

EXPECTED = json.loads(
    (pathlib.Path(__file__).parent / "data" / "releases_expected.json").read_text())
CASES = release_cases.cases()
SAME_MACHINE = EXPECTED["machine"] == release_cases.machine()


def test_expected_file_covers_the_cases():
    assert set(EXPECTED["cases"]) == set(CASES)
    assert EXPECTED["commit"].startswith("56ca7fd")


def test_every_release_has_a_case():
    # a name of dppack.__all__ is either covered by a case "<name>:<variant>" or listed as
    # releasing nothing; the list holds only names of __all__
    covered = {name.split(":")[0] for name in CASES}
    assert covered <= set(d.__all__), covered - set(d.__all__)
    assert release_cases.NON_RELEASES <= set(d.__all__), \
        release_cases.NON_RELEASES - set(d.__all__)
    missing = set(d.__all__) - covered - release_cases.NON_RELEASES
    assert not missing, f"public names without a recorded case: {sorted(missing)}"


def test_cases_record_values():
    # a case that only records an error proves little: the error cases live in test_fast_path
    errors = [name for name, case in EXPECTED["cases"].items()
              if "error" in case[str(release_cases.SEEDS[0])]]
    assert not errors, errors


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_bits_for_the_same_random_state(name):
    actual = release_cases.record_case(CASES[name])
    expected = EXPECTED["cases"][name]
    if SAME_MACHINE:
        assert actual == expected
    else:
        assert fast_path_cases.close(expected, actual)
        assert actual["generator"]["state"] == expected["generator"]["state"]
