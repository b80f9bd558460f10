# DPpackPy: `make demo` and `make test` do all set-up on a fresh Debian machine (as root),
# installing only what is missing. `make install` does just the set-up.
# `make test-fast` (a contributor's quick check, about 3 minutes on 2 cores): the Python suite
# under NumPy 1 without the R tests and without the tests marked slow, in two processes
# (pytest-xdist). `make test` runs everything, the slow and R tests included.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VENV_NP2 := .venv-np2
STAMPS := build/stamps
R_SOURCES := DESCRIPTION NAMESPACE $(wildcard R/*.R man/*.Rd vignettes/*.Rmd src/*.c inst/CITATION)
PY_SOURCES := pyproject.toml
# The R package finds its Python through this variable when it is installed (see ?dppack_python).
export DPPACKPY_PYTHON := $(CURDIR)/$(VENV)/bin/python

.PHONY: install system demo test test-fast test-python test-python-numpy2 test-python-both test-doctest test-doctest-numpy1 test-doctest-numpy2 test-privacy test-kernels test-r check-r audit docs docs-python docs-r test-docs-r bench bench-scale clean dist test-dist

install: system $(STAMPS)/venv $(STAMPS)/venv-np2 $(STAMPS)/r-package

system:
	@bash scripts/install-system.sh $(PYTHON)

# The environment R uses: NumPy < 2, because Debian's reticulate 1.28 cannot convert arrays
# under NumPy 2 (hence pyarrow < 23, the last releases built for NumPy 1). It also holds the
# test tools, rpy2 for the cross-language tests, and Dask, polars and pyarrow.
$(STAMPS)/venv: $(PY_SOURCES) | system
	@mkdir -p $(STAMPS)
	[ -x $(VENV)/bin/python ] || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	$(VENV)/bin/python -m pip install -q -e '.[test,plot,dask,polars,docs]' 'numpy<2' 'pyarrow<23'
	@touch $@

# A second environment with the newest NumPy 2: the Python package supports both.
# (After the first environment: under make -j2, as make test installs, the two editable installs
# of this checkout do not write its egg-info at once; the R package is built after it.)
$(STAMPS)/venv-np2: $(PY_SOURCES) | system $(STAMPS)/venv
	@mkdir -p $(STAMPS)
	[ -x $(VENV_NP2)/bin/python ] || $(PYTHON) -m venv $(VENV_NP2)
	$(VENV_NP2)/bin/python -m pip install -q --upgrade pip
	$(VENV_NP2)/bin/python -m pip install -q -e '.[sklearn,dask,polars]' pytest pytest-xdist hypothesis psutil 'numpy>=2'
	@touch $@

# Installed from the tarball that R CMD build makes (into build/r-package/), so that the
# vignettes are built and installed (vignette(package = "DPpackPy"), browseVignettes);
# scripts/check-r.sh checks that same tarball. The build runs the vignettes once (about 50 s
# of CPU), which check-r no longer spends. R CMD build lists and copies the whole checkout, so it
# waits for the NumPy 2 environment: files pip replaces during the copy failed the build.
$(STAMPS)/r-package: $(R_SOURCES) $(STAMPS)/venv | $(STAMPS)/venv-np2
	@rm -rf build/r-package && mkdir -p build/r-package $(STAMPS)
	cd build/r-package && R CMD build --no-manual $(CURDIR) > $(CURDIR)/$(STAMPS)/r-install.log 2>&1 || { cat $(CURDIR)/$(STAMPS)/r-install.log; exit 1; }
	R CMD INSTALL --no-multiarch build/r-package/DPpackPy_*.tar.gz >> $(STAMPS)/r-install.log 2>&1 || { cat $(STAMPS)/r-install.log; exit 1; }
	@touch $@

# The distribution artefacts, into dist/ (scripts/build-dist.sh): the Python core's sdist and
# wheel (python -m build, installed into the venv from PyPI if missing), and the R source
# package DPpackPy_<version>.tar.gz: make install's tarball with that wheel under inst/python/,
# which install_dppack() installs. The R package and the wheel have one version.
dist: $(STAMPS)/r-package $(STAMPS)/dist-tools
	bash scripts/build-dist.sh $(VENV)/bin/python $(wildcard build/r-package/DPpackPy_*.tar.gz)

$(STAMPS)/dist-tools: $(STAMPS)/venv
	$(VENV)/bin/python -m pip show -q build > /dev/null 2>&1 || $(VENV)/bin/python -m pip install -q build
	@touch $@

# The artefacts installed as a user gets them (scripts/test-dist.sh): a fresh virtual
# environment and a fresh R library in a temporary directory, outside the checkout, pip's
# cache reused; the two languages at once. About 40 s on a quiet 2-core machine (50 s of CPU),
# most of it pip.
test-dist: dist
	bash scripts/test-dist.sh $(PYTHON)

# The main demo, then one section per beyond-DPpack topic (scripts/demo_<topic>.{R,py}).
demo: install
	Rscript scripts/demo.R
	$(VENV)/bin/python scripts/demo.py
	@for f in $(sort $(wildcard scripts/demo_*.R)); do echo "== $$f"; Rscript $$f || exit 1; done
	@for f in $(sort $(wildcard scripts/demo_*.py)); do echo "== $$f"; $(VENV)/bin/python $$f || exit 1; done

# make test: the set-up (two jobs at once), then its stages in order (scripts/run-stages.sh),
# each printing "== <target>: N s (CPU M s)" when it ends, and "== test: N s" at the end. The
# two Python suites, then the privacy audits, use both cores themselves; the other targets use
# one core each and run two at a time (joined by "+"), the longest first. R CMD check skips
# the testthat tests there (R_CHECK_ARGS): test-r runs those same files against the package
# installed from the same tarball; make check-r alone runs them as R CMD check does.
TEST_STAGES := test-python-both test-privacy \
  test-docs-r+test-dist+test-kernel-Prescott+test-kernel-Haswell+test-r+check-r+docs-python+test-doctest-numpy1+test-doctest-numpy2
test:
	@start=$$SECONDS; $(MAKE) --no-print-directory -j2 --output-sync=target install \
	  && echo "== install: $$((SECONDS - start)) s"
	@MAKE="$(MAKE)" R_CHECK_ARGS=--no-tests bash scripts/run-stages.sh test $(TEST_STAGES)

# The fast tier: no R, no slow tests, NumPy 1, two processes.
test-fast: $(STAMPS)/venv
	$(VENV)/bin/python -m pytest tests/python -m "not r and not slow" -n 2 -q -p no:cacheprovider

test-python:
	DPPACK_REQUIRE_R=1 $(VENV)/bin/python -m pytest tests/python $(PYTEST_SELECT)

test-python-numpy2:
	$(VENV_NP2)/bin/python -m pytest tests/python -m "not r"

# Both Python suites at once, one per core (about 4 of the CI's minutes saved); each log is
# printed when both are done, and either failing fails the target. The NumPy 1 suite also
# runs the R tests, so the simulation tests marked one_suite (their outcome does not depend
# on NumPy's version) run in the NumPy 2 suite only, to balance the two.
test-python-both:
	@mkdir -p build
	@$(MAKE) --no-print-directory test-python-numpy2 > build/test-python-numpy2.log 2>&1 & b=$$!; \
	$(MAKE) --no-print-directory test-python PYTEST_SELECT='-m "not one_suite"' \
	  > build/test-python.log 2>&1; a=$$?; \
	wait $$b; b=$$?; cat build/test-python.log build/test-python-numpy2.log; exit $$(( a || b ))

# The Examples sections of the docstrings, run as doctests under NumPy 1 and NumPy 2
# (tests/python/docs/test_docstrings.py checks that every public name has one).
test-doctest: test-doctest-numpy1 test-doctest-numpy2

test-doctest-numpy1:
	$(VENV)/bin/python -m pytest --doctest-modules python/dppack

test-doctest-numpy2:
	$(VENV_NP2)/bin/python -m pytest --doctest-modules python/dppack

# The empirical privacy auditor (tests/privacy/README.md), in two processes (one per core):
# test-privacy runs the CI subset (about 4 minutes on 2 cores with the exact samplers), audit
# the larger sweep too.
PRIVACY_A := tests/privacy/test_audit_models.py tests/privacy/test_audit_beyond.py \
             tests/privacy/test_auditor_power.py tests/privacy/test_audit_exact_selection.py \
             tests/privacy/test_audit_exact_kst.py
PRIVACY_B := $(filter-out $(PRIVACY_A),$(sort $(wildcard tests/privacy/test_*.py)))
define privacy_run
	@mkdir -p build
	@$(VENV)/bin/python -m pytest -p no:cacheprovider $(1) $(PRIVACY_A) > build/privacy-a.log 2>&1 & a=$$!; \
	$(VENV)/bin/python -m pytest -p no:cacheprovider $(1) $(PRIVACY_B) > build/privacy-b.log 2>&1; b=$$?; \
	wait $$a; a=$$?; cat build/privacy-a.log build/privacy-b.log; exit $$(( a || b ))
endef

test-privacy:
	$(call privacy_run,-m "not audit_full")

audit: install
	$(call privacy_run,)

# The R-against-Python tests again under two other OpenBLAS kernels (scripts/test-kernels.sh),
# one target each.
test-kernels: test-kernel-Prescott test-kernel-Haswell

test-kernel-%:
	bash scripts/test-kernels.sh $(VENV)/bin/python $*

# testthat, then its ten slowest files (seconds).
test-r:
	Rscript -e 'r <- as.data.frame(testthat::test_dir("tests/testthat", package = "DPpackPy", load_package = "installed", stop_on_failure = TRUE)); cat("testthat, the slowest files (s):\n"); print(round(head(sort(tapply(r$$real, r$$file, sum), decreasing = TRUE), 10), 1))'

# R CMD check on the tarball make install built (scripts/check-r.sh builds one if there is none);
# fails on any ERROR or WARNING (NOTEs are reported).
check-r: $(STAMPS)/r-package
	bash scripts/check-r.sh $(wildcard build/r-package/DPpackPy_*.tar.gz)

# Regenerate NAMESPACE and man/ from the roxygen comments in R/, and build the sites.
# Roxygen first, so that the sites are built from the regenerated man/ and NAMESPACE.
docs:
	Rscript -e 'roxygen2::roxygenise()'
	$(MAKE) docs-python docs-r

# The Python site (Sphinx, docs/python/) into build/docs/python/index.html: from scratch (-E,
# so no warning hides in a cached page), failing on any warning, nitpicky (-n: every reference
# to a dppack name must resolve). About 15 s. Its examples run in
# tests/python/docs/test_docs_site.py.
# The API pages are generated afresh (a stale page of a removed name would warn).
docs-python: $(STAMPS)/venv
	rm -rf docs/python/api/generated
	$(VENV)/bin/python -m sphinx -E -W --keep-going -n -q -b html -d build/docs/python-doctrees docs/python build/docs/python

# The R site (pkgdown, _pkgdown.yml) into build/docs/r/index.html, examples and articles run,
# failing on any warning (scripts/pkgdown.R). About 1 minute of CPU (3 on a busy machine).
docs-r: $(STAMPS)/r-package
	Rscript scripts/pkgdown.R build

# Its part for make test, into a temporary directory: the reference index lists every exported
# topic, the articles index every vignette, every help page renders (examples not run: check-r
# runs them), and the home page, the news page and the articles are built (the vignettes
# knitted again), failing on any warning, a warning printed in an article included. About
# 60 s of CPU (the reference pages alone: 17 s); on a quiet 2-core machine about 80 s, of
# which the articles take 45 s (2.5 min under load 6). tests/python/docs/test_pkgdown_check.py
# tests its article check.
test-docs-r: $(STAMPS)/r-package
	Rscript scripts/pkgdown.R check

# scikit-learn is a benchmark dependency only: the reference for the ERM fits.
bench: install
	$(VENV)/bin/python -m pip install -q scikit-learn
	$(VENV)/bin/python benchmarks/startup.py
	$(VENV)/bin/python benchmarks/mechanisms.py
	$(VENV)/bin/python benchmarks/samplers.py
	$(VENV)/bin/python benchmarks/stats.py
	$(VENV)/bin/python benchmarks/r_vs_python.py
	$(VENV)/bin/python benchmarks/erm.py
	$(VENV)/bin/python benchmarks/r_speed.py --parts
	$(VENV)/bin/python benchmarks/r_speed.py --cpu
	$(VENV)/bin/python benchmarks/small_calls.py
	$(VENV)/bin/python benchmarks/small_calls.py --cpu
	$(VENV)/bin/python benchmarks/confidence_intervals.py
	$(VENV)/bin/python benchmarks/ci_coverage.py
	$(VENV)/bin/python benchmarks/stable_validation.py
	$(VENV)/bin/python benchmarks/accuracy_first.py
	$(VENV)/bin/python benchmarks/accuracy_first_calibration.py

# Data beyond memory (issue 14): writes about 12 GB of Parquet under build/scale/ once (about
# 5 minutes), then measures out of core (about 10 minutes on a quiet 2-core machine).
bench-scale: install
	$(VENV)/bin/python benchmarks/scale.py

clean:
	rm -rf build $(VENV) $(VENV_NP2) DPpackPy_*.tar.gz DPpackPy.Rcheck python/*.egg-info
