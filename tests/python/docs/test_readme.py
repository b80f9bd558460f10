"""The README's code runs as written, and the README stays a README.

* Every ```python block of README.md runs, each in a fresh namespace (so each defines what it
  uses: a block that relies on another block's ``x`` fails here).
* Every ```r block runs through ``Rscript`` with the installed DPpackPy, each in a fresh R
  process. Marked ``r``: skipped when R is missing, except under ``make test``
  (DPPACK_REQUIRE_R), where a missing R fails.
* The install section names the artefacts that ``make dist`` builds for the package's version,
  the contributor's commands appear, and the first example of each language comes within the
  first 60 lines; the whole README is at most 200 lines.

Deterministic (the examples fix their seeds or print nothing that is compared): no false
failures.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def code_blocks(text, language):
    """The fenced blocks of ``language`` in a Markdown text, as (line number, code) pairs."""
    return [(text.count("\n", 0, match.start()) + 1, match.group(2))
            for match in FENCE.finditer(text) if match.group(1).lower() == language]


def test_code_blocks_are_read_with_their_lines():
    text = "# T\n\n```python\nx = 1\n```\n\ntext\n\n```r\ny <- 2\n```\n```sh\nmake\n```\n"
    assert code_blocks(text, "python") == [(3, "x = 1\n")]
    assert code_blocks(text, "r") == [(9, "y <- 2\n")]


README_TEXT = README.read_text(encoding="utf-8")
PYTHON_BLOCKS = code_blocks(README_TEXT, "python")
R_BLOCKS = code_blocks(README_TEXT, "r")


def test_the_readme_is_short_and_starts_with_examples():
    lines = README_TEXT.splitlines()
    assert len(lines) <= 200
    assert PYTHON_BLOCKS and PYTHON_BLOCKS[0][0] <= 60
    assert R_BLOCKS and R_BLOCKS[0][0] <= 60
    for command in ("make demo", "make test", "make install", "make dist",
                    "DPpackPy::install_dppack()"):
        assert command in README_TEXT, command


def _version(path, pattern):
    return re.search(pattern, (ROOT / path).read_text(encoding="utf-8"), re.MULTILINE).group(1)


def test_the_install_section_names_the_artefacts_of_this_version():
    python_version = _version("python/dppack/__init__.py", r'^__version__ = "([^"]+)"')
    r_version = _version("DESCRIPTION", r"^Version: (\S+)")
    assert f"dist/dppack-{python_version}-py3-none-any.whl" in README_TEXT
    assert (f'install.packages("dist/DPpackPy_{r_version}.tar.gz", repos = NULL)'
            in README_TEXT)


def test_the_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)\)", README_TEXT):
        if "://" not in target:
            assert (ROOT / target).exists(), target


@pytest.mark.parametrize("line, code", PYTHON_BLOCKS, ids=[f"line{n}" for n, _ in PYTHON_BLOCKS])
def test_python_block_runs(line, code):
    if "sklearn" in code:
        pytest.importorskip("sklearn")
    exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "__readme__"})


def _rscript():
    rscript = shutil.which("Rscript")
    if rscript is None:
        if os.environ.get("DPPACK_REQUIRE_R"):
            pytest.fail("Rscript not found (make test needs R)")
        pytest.skip("Rscript not found")
    return rscript


@pytest.mark.r
@pytest.mark.parametrize("line, code", R_BLOCKS, ids=[f"line{n}" for n, _ in R_BLOCKS])
def test_r_block_runs(line, code, tmp_path):
    rscript = _rscript()
    script = tmp_path / f"readme_{line}.R"
    script.write_text("options(warn = 2)\n" + code, encoding="utf-8")
    result = subprocess.run([rscript, "--vanilla", str(script)], capture_output=True,
                            text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, (f"README.md:{line}\n{result.stdout[-3000:]}"
                                    f"\n{result.stderr[-3000:]}")


def test_the_r_sites_home_page_shows_the_readmes_r_example():
    # pkgdown/index.md, the R site's home, repeats the README's first R example (run above);
    # its other block installs the package, which a test must not do
    home = (ROOT / "pkgdown" / "index.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^``` ?r\n(.*?)^```", home, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 2
    r_version = _version("DESCRIPTION", r"^Version: (\S+)")
    assert (f'install.packages("dist/DPpackPy_{r_version}.tar.gz", repos = NULL)' in blocks[0]
            and "DPpackPy::install_dppack()" in blocks[0])
    assert blocks[1] == R_BLOCKS[0][1]
