# quantileDP(), medianDP() and quantilesDP() with a public `resolution` (issue 28): the
# signatures, R == Python for the same seed, the errors in R's notation before the data are
# read. The laws are tested in Python (tests/python/stats/test_quantile_resolution.py).
# Deterministic: fixed seeds, no false failures.

glu <- c(148, 85, 183, 89, 137, 116, 78, 115, 197, 125, 110, 168, 139, 189, 166, 100, 118,
         107, 103, 115, 126, 99, 196, 119, 143, 125, 147, 97, 145, 117, 109, 158, 88, 92,
         122, 103, 138, 102, 90, 111, 180, 133, 106, 171, 159, 180, 146, 71, 103, 105)

test_that("resolution comes last before the accountant, NULL by default", {
  for (f in list(quantileDP, medianDP, quantilesDP)) {
    args <- formals(f)
    expect_identical(tail(names(args), 2), c("resolution", "accountant"))
    expect_null(args$resolution)
  }
})

test_that("R and Python give the same bits for the same seed", {
  dp <- core_module()
  np <- reticulate::import("numpy", convert = TRUE)
  for (seed in 1:3) {
    r_q <- with_random_state(seed, quantileDP(glu, 0.3, 1, 40, 250, resolution = 1))
    py_q <- dp$quantileDP(glu, 0.3, 1, 40, 250, random_state = np$random$default_rng(seed),
                          resolution = 1)
    expect_identical(r_q, py_q)
    expect_identical(r_q, round(r_q))
    r_m <- with_random_state(seed, medianDP(glu / 10, 2, 4, 25, resolution = 0.1))
    py_m <- dp$medianDP(glu / 10, 2, 4, 25, random_state = np$random$default_rng(seed),
                        resolution = 0.1)
    expect_identical(r_m, py_m)
    for (method in c("recursive", "independent")) {
      r_qs <- with_random_state(seed, quantilesDP(glu, c(0.25, 0.5, 0.75), 2, 40, 250,
                                                  method = method, resolution = 1))
      py_qs <- dp$quantilesDP(glu, c(0.25, 0.5, 0.75), 2, 40, 250, method = method,
                              random_state = np$random$default_rng(seed), resolution = 1)
      expect_identical(r_qs, as.numeric(py_qs))
    }
  }
  # NULL is DPpack's release: the same bits as without the argument
  expect_identical(with_random_state(4, medianDP(glu, 1, 40, 250, resolution = NULL)),
                   with_random_state(4, medianDP(glu, 1, 40, 250)))
})

test_that("bad resolutions stop in R's notation before the data are read", {
  bad <- c(glu, NA)
  expect_error(quantileDP(bad, 0.5, 1, 40, 250, resolution = 0),
               "resolution must be NULL or a positive finite number.", fixed = TRUE)
  expect_error(medianDP(bad, 1, 40, 250, resolution = Inf),
               "resolution must be NULL or a positive finite number.", fixed = TRUE)
  expect_error(quantilesDP(bad, 0.5, 1, 40, 250, resolution = c(1, 2)),
               "resolution must be NULL or a positive finite number.", fixed = TRUE)
  expect_error(medianDP(glu, 1, 40, 250, resolution = 1e-12),
               "(upper.bound - lower.bound) / resolution", fixed = TRUE)
  expect_error(quantilesDP(bad, 0.5, 1, 40, 250, method = "joint", resolution = -1),
               "resolution must be NULL or a positive finite number.", fixed = TRUE)
})

test_that("the joint method takes a resolution: its releases are candidates", {
  q <- quantilesDP(glu, c(0.25, 0.5, 0.75), 1, 40, 250, method = "joint", resolution = 1)
  expect_identical(q, round(q))
  expect_false(is.unsorted(q))
})
