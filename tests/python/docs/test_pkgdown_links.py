"""The link check of the R documentation site's home page (``check_links()`` of
scripts/pkgdown.R, run by ``make test-docs-r`` and ``make docs-r``).

The home page once linked NEWS.html, a page pkgdown never builds (README.md's link to NEWS.md,
rewritten): every link that stays inside the site must lead to a built page. Here the
function runs on hand-written pages. Deterministic: no false failures.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "pkgdown.R"

pytestmark = [
    pytest.mark.r,
    # make test (DPPACK_REQUIRE_R) fails without R instead of skipping
    pytest.mark.skipif(shutil.which("Rscript") is None and not os.environ.get("DPPACK_REQUIRE_R"),
                       reason="R is not installed"),
]


def check_links(site):
    """Run the script's check_links() on ``site``/index.html; its error message, or None."""
    program = f"""
    for (e in parse({str(SCRIPT)!r})) {{
      if (is.call(e) && identical(e[[2]], as.name("check_links"))) eval(e)
    }}
    stopifnot(exists("check_links"))
    cat(tryCatch({{check_links({str(site)!r}); "passes"}}, error = conditionMessage))
    """
    run = subprocess.run(["Rscript", "-e", program], capture_output=True, text=True, check=True)
    return None if run.stdout == "passes" else run.stdout


def test_links_inside_the_site_must_lead_to_built_pages(tmp_path):
    (tmp_path / "articles").mkdir()
    (tmp_path / "articles" / "a.html").write_text("a", encoding="utf-8")
    (tmp_path / "news").mkdir()
    (tmp_path / "news" / "index.html").write_text("news", encoding="utf-8")
    links = ['<a href="articles/a.html#install">', '<a href="news/index.html">',
             '<a href="#top">', '<a href="https://cran.r-project.org/package=DPpack">',
             '<a href="mailto:someone@example.org">', '<a href="../python/index.html">']
    (tmp_path / "index.html").write_text("\n".join(links), encoding="utf-8")
    assert check_links(tmp_path) is None
    links += ['<a href="NEWS.html">', '<a href="benchmarks/README.html">']
    (tmp_path / "index.html").write_text("\n".join(links), encoding="utf-8")
    message = check_links(tmp_path)
    assert message == ("index.html links to pages that were not built: NEWS.html, "
                       "benchmarks/README.html")
