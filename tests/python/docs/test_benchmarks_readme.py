"""The benchmarks write their tables into benchmarks/README.md (benchmarks/_readme.py).

Each table of benchmarks/README.md sits between markers that a script's ``write_table`` call
names, and each such call has its markers there (a script whose table has no place would fail
at its end, after minutes of measuring). ``replace_table`` replaces exactly the part between
one table's markers. Deterministic: no false failures.
"""

import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
_readme = pytest.importorskip("_readme")

MARKER = re.compile(r"<!-- table: (\S+) -->")
# a table's name, or a script's choice between its CPU-time and elapsed-time tables
CALL = re.compile(r"""write_table\(\s*(?:"(\w+)" if args\.cpu else "(\w+)"|"([^"]+)")""")


def _written_tables():
    names = {}
    for script in sorted(BENCHMARKS.glob("*.py")):
        for match in CALL.finditer(script.read_text(encoding="utf-8")):
            found = [match.group(1), match.group(2)] if match.group(1) else [match.group(3)]
            for name in found:
                names.setdefault(name, script.name)
    return names


def test_every_table_has_a_script_and_every_script_a_table():
    text = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    marked = MARKER.findall(text)
    assert len(marked) == len(set(marked))
    for name in marked:
        assert text.count(f"<!-- /table: {name} -->") == 1, name
    written = _written_tables()
    assert set(written) == set(marked), (set(written) ^ set(marked))


def test_a_table_is_replaced_between_its_markers(tmp_path, monkeypatch):
    monkeypatch.delenv("DPPACK_BENCH_NO_README", raising=False)
    readme = tmp_path / "README.md"
    readme.write_text("# B\n\n<!-- table: a -->\nold a\n<!-- /table: a -->\n\ntext\n"
                      "<!-- table: b -->\nold b\n<!-- /table: b -->\n", encoding="utf-8")
    _readme.write_table("a", ["x", "y"], [[1, "2 s"]], note="n = 3.", path=readme)
    assert readme.read_text(encoding="utf-8") == (
        "# B\n\n<!-- table: a -->\n| x | y |\n| --- | --- |\n| 1 | 2 s |\n\nn = 3.\n"
        "<!-- /table: a -->\n\ntext\n<!-- table: b -->\nold b\n<!-- /table: b -->\n")
    with pytest.raises(KeyError, match="no markers for the table 'c'"):
        _readme.write_table("c", ["x"], [], path=readme)
    monkeypatch.setenv("DPPACK_BENCH_NO_README", "1")
    before = readme.read_text(encoding="utf-8")
    _readme.write_table("b", ["x"], [[1]], path=readme)
    assert readme.read_text(encoding="utf-8") == before
