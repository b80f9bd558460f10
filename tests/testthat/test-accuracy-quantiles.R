# Accuracy reports of quantilesDP ("joint", "recursive") and boundsDP from R: the core's
# reports (tests/python/accuracy/test_accuracy_quantiles.py has the derivations' tests), R's
# spelling of the arguments and of `details`, the release's messages. Deterministic.


test_that("joint quantiles: the core's report, resolution required", {
  r <- noiseIntervalDP("quantilesDP", 1, method = "joint", quants = c(0.25, 0.5, 0.75), lower.bound = 0,
                       upper.bound = 100, resolution = 1)
  py <- core_module()$noiseIntervalDP("quantilesDP", 1, method = "joint", quants = c(0.25, 0.5, 0.75),
                               lower_bound = 0, upper_bound = 100, resolution = 1)
  expect_identical(r$half.width, py$half_width)
  expect_identical(r$units, "rank")
  expect_true(r$simultaneous)
  # (4 / eps)(m (log((N + 1) G + m - 1) + 2^-20) + log(1 / alpha')), G = 65 refined
  # candidates per lattice point of the release with this resolution,
  # alpha' = alpha / (1 + 2^-20) - m 2^-50 (1 + max(|a|, |b|) / r)
  level <- 0.05 / (1 + 2^-20) - 3 * 2^-50 * 101
  expect_equal(r$details$total, 4 * (3 * (log(101 * 65 + 2) + 2^-20) + log(1 / level)),
               tolerance = 1e-12)
  expect_equal(r$half.width, r$details$total / 2)
  expect_identical(r$details$grid.points, 100L)
  expect_error(noiseIntervalDP("quantilesDP", 1, method = "joint", quants = 0.5, lower.bound = 0,
                               upper.bound = 100), "needs resolution", fixed = TRUE)
  expect_error(noiseIntervalDP("quantilesDP", 1, method = "joint", quants = 0.5, lower.bound = 0,
                               upper.bound = 100, resolution = 0.7), "must divide",
               fixed = TRUE)
  # the grid is checked in absolute steps: 1e-4 steps off with N = 10^6 is refused
  expect_error(noiseIntervalDP("quantilesDP", 1, method = "joint", quants = 1, lower.bound = 0,
                               upper.bound = 1000.0000001, resolution = 0.001),
               "must divide", fixed = TRUE)
  expect_error(noiseIntervalDP("quantilesDP", 1, method = "joint", quants = 0.5, lower.bound = 0,
                               upper.bound = 100, resolution = -1),
               "resolution must be a positive number.", fixed = TRUE)
  expect_error(noiseIntervalDP("quantilesDP", 1, method = "joint", quants = 0.5, lower.bound = 0,
                               upper.bound = 100, resolution = 1, released = 50),
               "rank error", fixed = TRUE)
})

test_that("recursive quantiles: one bound per quantile", {
  r <- noiseIntervalDP("quantilesDP", 1, quants = c(0.25, 0.5, 0.75), lower.bound = 0,
                       upper.bound = 100, method = "recursive", n = 200,
                       which.sensitivity = "unbounded")
  expect_length(r$half.width, 3)
  py <- core_module()$noiseIntervalDP("quantilesDP", 1, quants = c(0.25, 0.5, 0.75),
                               lower_bound = 0, upper_bound = 100, method = "recursive",
                               n = 200L, which_sensitivity = "unbounded")
  expect_identical(r$half.width, as.numeric(py$half_width))
  expect_false(r$simultaneous)
  expect_equal(r$details$eps.each, 0.5)
  # plain vectors, not 1-d arrays (num [1:3(1d)])
  expect_null(dim(r$details$depth))
  expect_null(dim(r$details$weight))
  expect_equal(r$details$depth, c(2, 1, 2))
  expect_identical(r$details$weight, c(1.5, 1, 1.5))
  # the median (the root) alone: quantileDP's bound at eps / 2 (both under add/remove
  # neighbours: sensitivity 1/2, issue 28)
  median <- noiseIntervalDP("quantileDP", 0.5, quant = 0.5, lower.bound = 0,
                            upper.bound = 100, n = 200, which.sensitivity = "unbounded")
  expect_equal(r$half.width[2], median$half.width)
  both <- noiseIntervalDP("quantilesDP", 1, quants = c(0.25, 0.5, 0.75), lower.bound = 0,
                          upper.bound = 100, method = "recursive", n = 200,
                          which.sensitivity = "unbounded", simultaneous = TRUE)
  expect_true(all(both$half.width > r$half.width))
  # the release's resolution (issue 28): fewer candidates, a smaller bound
  coarse <- noiseIntervalDP("quantilesDP", 1, quants = 0.5, lower.bound = 0,
                            upper.bound = 1, method = "recursive", resolution = 0.5)
  fine <- noiseIntervalDP("quantilesDP", 1, quants = 0.5, lower.bound = 0,
                          upper.bound = 1, method = "recursive")
  expect_true(all(coarse$half.width < fine$half.width))
  # the release's messages
  release <- tryCatch(quantilesDP(1:4, 0.5, 1, 0, 5, method = "recursive",
                                  which.sensitivity = "both"), error = conditionMessage)
  expect_error(noiseIntervalDP("quantilesDP", 1, quants = 0.5, lower.bound = 0,
                               upper.bound = 5, method = "recursive",
                               which.sensitivity = "both"), release, fixed = TRUE)
})

test_that("boundsDP: each bound's rank error over the best grid point", {
  r <- noiseIntervalDP("boundsDP", 1)
  # (2 Delta' / (eps / 2))(log 131 + log 20) + 2^-20, Delta' = 1 + 2^-20 (default grid)
  expect_equal(r$half.width, 4 * (1 + 2^-20) * (log(131) + log(20)) + 2^-20,
               tolerance = 1e-12)
  expect_identical(r$details$candidates, 131L)
  expect_identical(r$half.width, core_module()$noiseIntervalDP("boundsDP", 1)$half_width)
  g <- noiseIntervalDP("boundsDP", 0.5, grid = c(0, 1, 10, 100), quants = c(0.05, 0.95),
                       simultaneous = TRUE)
  expect_equal(g$half.width, 8 * (1 + 2^-20) * (log(4) + log(1 / (1 - sqrt(0.95)))) + 2^-20,
               tolerance = 1e-12)
  release <- tryCatch(boundsDP(1:4, 1, quants = c(0.9, 0.1)), error = conditionMessage)
  expect_error(noiseIntervalDP("boundsDP", 1, quants = c(0.9, 0.1)), release, fixed = TRUE)
  release <- tryCatch(boundsDP(1:4, 1, grid = 3), error = conditionMessage)
  expect_error(noiseIntervalDP("boundsDP", 1, grid = 3), release, fixed = TRUE)
})
