"""The guide page on adding a release (docs/python/guide/adding-a-release.md): its ``>>>``
example, a plan written from scratch and run by the one runner, runs as a doctest.
Deterministic (fixed seed): no false failures."""

import doctest
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[3] / "docs" / "python" / "guide" / "adding-a-release.md"


def test_the_guide_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    assert blocks
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(blocks):
        runner.run(doctest.DocTestParser().get_doctest(block, {}, f"block {i}", str(PAGE), 0))
    result = runner.summarize(verbose=False)
    assert result.attempted > 5 and result.failed == 0
