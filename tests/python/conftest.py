"""The Python tests mirror the package: ``<package>/test_*.py`` for each subpackage or module
of dppack, ``cross_language/`` for the tests against R, ``docs/`` for the documentation and
benchmark checks, ``releases/`` for the recorded bit identity, ``architecture/`` for the
structure (``architecture/test_layout.py`` checks the layout).

The shared helpers (``r_session``, ``ratio_checks``, ``generator_checks``, ``accounting_checks``,
``dask_checks``, ``dask_quantile_checks``, ``fast_path_cases``, ``release_cases``) stay in this
folder, which is put on ``sys.path`` here so that every test, in any folder, imports them by
name. Test basenames are unique across the folders (pytest's default import mode).
"""

import pathlib
import sys

HERE = str(pathlib.Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
