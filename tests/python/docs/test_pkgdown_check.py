"""The article check of the R documentation site (scripts/pkgdown.R, run by ``make test-docs-r``
and ``make docs-r``).

pkgdown knits each article in a separate R process, so a warning printed by a vignette's code
never reaches the script's warning handler: the script reads the pages instead. Here its
``check_articles()`` is run on hand-written pages: a page whose code printed a warning, showed
no output at all (the vignettes run their code only where the Python core loads) or is missing
fails; an error shown on purpose (a chunk with ``error = TRUE``) passes. The whole build is
``make test-docs-r``. Deterministic: no false failures.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "pkgdown.R"

pytestmark = pytest.mark.r

OUTPUT = '<pre><code><span><span class="co">#&gt; [1] 0.5</span></span></code></pre>'
CASES = {
    "output": ([OUTPUT], None),
    "error on purpose": ([OUTPUT, '<span class="co">#&gt; Error in meanDP(x): refused</span>'],
                         None),
    "warning": ([OUTPUT, '<span class="co">#&gt; Warning in f(x): NAs &lt;here&gt;</span>'],
                "b.html printed a warning: #> Warning in f(x): NAs <here>"),
    "warning, knitr's comment": ([OUTPUT, '<span class="co">## Warning: planted</span>'],
                                 "b.html printed a warning: ## Warning: planted"),
    "no output": (["<p>Prose, the chunks not evaluated.</p>"],
                  "b.html shows no output of its code"),
    "missing": (None, "pkgdown wrote no"),
}


def check_articles(site):
    """Run the script's check_articles() on the pages a.html, b.html of ``site``; its error
    message, or None."""
    program = f"""
    for (e in parse({str(SCRIPT)!r})) {{
      if (is.call(e) && identical(e[[2]], as.name("check_articles"))) eval(e)
    }}
    stopifnot(exists("check_articles"))
    pkg <- list(dst_path = {str(site)!r},
                vignettes = data.frame(file_out = c("articles/a.html", "articles/b.html")))
    cat(tryCatch({{check_articles(pkg); "passes"}}, error = conditionMessage))
    """
    run = subprocess.run(["Rscript", "-e", program], capture_output=True, text=True, check=True)
    return None if run.stdout == "passes" else run.stdout


# make test (DPPACK_REQUIRE_R) fails without R instead of skipping
@pytest.mark.skipif(shutil.which("Rscript") is None and not os.environ.get("DPPACK_REQUIRE_R"),
                    reason="R is not installed")
@pytest.mark.parametrize("case", list(CASES))
def test_article_check(tmp_path, case):
    page_b, expected = CASES[case]
    articles = tmp_path / "articles"
    articles.mkdir()
    (articles / "a.html").write_text(OUTPUT + "\n", encoding="utf-8")
    if page_b is not None:
        (articles / "b.html").write_text("\n".join(page_b) + "\n", encoding="utf-8")
    message = check_articles(tmp_path)
    if expected is None:
        assert message is None
    else:
        assert message is not None and expected in message
