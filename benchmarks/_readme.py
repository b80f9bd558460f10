"""The benchmarks' tables in benchmarks/README.md.

Each script writes its table between two markers of benchmarks/README.md,
``<!-- table: NAME -->`` and ``<!-- /table: NAME -->``, replacing what was there: the README
always shows the last full measurement, in the script's own words. The environment variable
``DPPACK_BENCH_NO_README`` leaves the README alone (quick runs, ``--quick``, never write).
"""

import os
import re
from pathlib import Path

README = Path(__file__).resolve().with_name("README.md")


def markdown_table(header, rows):
    """A Markdown table of ``header`` (column titles) and ``rows`` (lists of cells)."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def replace_table(text, name, table):
    """``text`` with the part between the markers of ``name`` replaced by ``table``."""
    pattern = re.compile(rf"(<!-- table: {re.escape(name)} -->\n).*?(<!-- /table: "
                         rf"{re.escape(name)} -->)", re.DOTALL)
    if not pattern.search(text):
        raise KeyError(f"benchmarks/README.md has no markers for the table {name!r}")
    return pattern.sub(lambda match: match.group(1) + table + "\n" + match.group(2), text,
                       count=1)


def write_table(name, header, rows, note=None, path=README):
    """Write the table ``name`` into benchmarks/README.md (and say so), unless asked not to.

    ``note`` is a line put under the table (the sizes and settings of the run).
    """
    if os.environ.get("DPPACK_BENCH_NO_README"):
        return
    table = markdown_table(header, rows) + (f"\n\n{note}" if note else "")
    path = Path(path)
    path.write_text(replace_table(path.read_text(encoding="utf-8"), name, table),
                    encoding="utf-8")
    print(f"(table {name!r} written to {path})")
