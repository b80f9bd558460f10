# noiseIntervalDP() for the unbounded pooledVarDP / pooledCovDP and histogramDP's proportions
# (normalize = TRUE) (issue 16, item 5), seen from R: the same report as the core (R ==
# Python), R's names for the arguments and the details, 'both', the interval around a release,
# and the messages. The derivation, the coverage and the planted bugs are tested in Python
# (tests/python/accuracy/test_accuracy_pooled_hist.py). Deterministic: no draws except seeded
# releases, no false failures.


test_that("R gives the core's report for the unbounded pooled statistics", {
  dp <- core_module()
  r <- noiseIntervalDP("pooledVarDP", 1, sizes = c(200, 300), lower.bound = 0,
                       upper.bound = 1, which.sensitivity = "unbounded")
  py <- dp$noiseIntervalDP("pooledVarDP", 1, sizes = c(200L, 300L), lower_bound = 0,
                           upper_bound = 1, which_sensitivity = "unbounded")
  expect_identical(r$half.width, py$half_width)
  expect_identical(r$coverage, py$coverage)
  expect_identical(r$law, py$law)
  expect_identical(r$units, "value")
  expect_named(r$details, c("sizes", "half.width.sum", "half.width.squares",
                            "half.width.count"))
  expect_identical(r$details$sizes, c(200L, 300L)) # a plain vector, not a list
  expect_identical(unname(unlist(r$details[-1])), unname(unlist(py$details[-1])))
  g <- noiseIntervalDP("pooledCovDP", 0.5, sizes = c(60, 90), lower.bound1 = 0,
                       upper.bound1 = 1, lower.bound2 = 0, upper.bound2 = 2,
                       which.sensitivity = "unbounded", mechanism = "Gaussian", delta = 1e-6)
  gpy <- dp$noiseIntervalDP("pooledCovDP", 0.5, sizes = c(60L, 90L), lower_bound1 = 0,
                            upper_bound1 = 1, lower_bound2 = 0, upper_bound2 = 2,
                            which_sensitivity = "unbounded", mechanism = "Gaussian",
                            delta = 1e-6)
  expect_identical(g$half.width, gpy$half_width)
  expect_named(g$details, c("sizes", "half.width.sum1", "half.width.sum2",
                            "half.width.products", "half.width.count"))
})

test_that("'both' for the pooled statistics, and the interval around a release", {
  both <- noiseIntervalDP("pooledVarDP", 1, sizes = c(20, 30), lower.bound = 0,
                          upper.bound = 1, which.sensitivity = "both")
  expect_named(both, c("Bounded", "Unbounded"))
  expect_identical(both$Bounded$half.width,
                   noiseIntervalDP("pooledVarDP", 1, sizes = c(20, 30), lower.bound = 0,
                                   upper.bound = 1)$half.width)
  expect_gt(both$Unbounded$half.width, both$Bounded$half.width)
  a <- c(rep(0, 100), rep(1, 100))
  b <- c(rep(0, 150), rep(1, 150))
  v <- with_random_state(5, pooledVarDP(a, b, eps = 1, lower.bound = 0, upper.bound = 1,
                                        which.sensitivity = "unbounded"))
  r <- noiseIntervalDP("pooledVarDP", 1, sizes = c(100, 150), lower.bound = 0,
                       upper.bound = 1, which.sensitivity = "unbounded", released = v)
  # clipped to the public range of the truth (r$range)
  expect_equal(c(r$lower, r$upper),
               pmin(pmax(v + c(-1, 1) * r$half.width, r$range[1]), r$range[2]))
})

test_that("R gives the core's report for histogramDP's proportions", {
  dp <- core_module()
  r <- noiseIntervalDP("histogramDP", 1, breaks = seq(0, 1, by = 0.1), lower.bound = 0,
                       upper.bound = 1, normalize = TRUE, n = 2000, cells = 10)
  py <- dp$noiseIntervalDP("histogramDP", 1, breaks = seq(0, 1, by = 0.1), lower_bound = 0,
                           upper_bound = 1, normalize = TRUE, n = 2000L, cells = 10L)
  expect_identical(r$half.width, as.numeric(py$half_width))
  expect_length(r$half.width, 1) # one number for every cell
  expect_identical(r$units, "proportion")
  expect_true(r$simultaneous)
  expect_named(r$details, c("n", "cells", "half.width.count"))
  # (cells - 1) a / n
  expect_equal(r$half.width[1], 9 * r$details$half.width.count / 2000)
  neg <- noiseIntervalDP("histogramDP", 1, normalize = TRUE, n = 2000, cells = 10,
                         allow.negative = TRUE, which.sensitivity = "unbounded")
  a <- neg$details$half.width.count
  expect_equal(neg$half.width[1], 9 * a / (2000 - 10 * a))
  both <- noiseIntervalDP("histogramDP", 1, normalize = TRUE, n = 500, cells = 10,
                          which.sensitivity = "both")
  expect_named(both, c("Bounded", "Unbounded"))
  # a release and its interval: the cells of the released histogram
  x <- rep(0.05, 2000)
  h <- with_random_state(2, histogramDP(x, 1, 0, 1, breaks = seq(0, 1, by = 0.1),
                                        normalize = TRUE))
  rr <- noiseIntervalDP("histogramDP", 1, breaks = seq(0, 1, by = 0.1), lower.bound = 0,
                        upper.bound = 1, normalize = TRUE, n = 2000,
                        cells = length(h$counts), released = h$counts)
  truth <- c(1, rep(0, 9))
  expect_true(all(rr$lower <= truth & truth <= rr$upper))
})

test_that("the messages, in R's names", {
  expect_dppack_error(
    noiseIntervalDP("pooledVarDP", 1, lower.bound = 0, upper.bound = 1,
                    which.sensitivity = "unbounded"),
    paste("sizes is required: the size of each sample (under which.sensitivity =",
          "'unbounded', where the sizes are private, a public lower bound on each)."),
    "noiseIntervalDP")
  expect_dppack_error(
    noiseIntervalDP("pooledVarDP", 1, sizes = c(1, 30), lower.bound = 0, upper.bound = 1,
                    which.sensitivity = "unbounded"),
    "sizes must be whole numbers >= 2.", "noiseIntervalDP")
  expect_dppack_error(
    noiseIntervalDP("histogramDP", 1, normalize = TRUE, n = 1000,
                    which.sensitivity = "unbounded"),
    paste("cells is required for the proportions (normalize = TRUE): the number of cells",
          "of the histogram (with a rule for the breaks, that of the released histogram)."),
    "noiseIntervalDP")
  expect_dppack_error(
    noiseIntervalDP("histogramDP", 1, normalize = TRUE, cells = 10),
    paste("n is required for the proportions (normalize = TRUE): the number of records",
          "(which.sensitivity = 'bounded'), or a public lower bound on it ('unbounded',",
          "'both')."),
    "noiseIntervalDP")
  expect_error(noiseIntervalDP("histogramDP", 1, normalize = TRUE, cells = 10, n = 40,
                               which.sensitivity = "unbounded"),
               "n must exceed cells times the counts' half-width")
  # given breaks fix the number of cells: another one is refused
  expect_dppack_error(
    noiseIntervalDP("histogramDP", 1, breaks = c(0.2, 0.5, 0.8), lower.bound = 0,
                    upper.bound = 1, normalize = TRUE, n = 1000, cells = 2),
    "cells must be 4: the histogram of these breaks and bounds has 4 cells.",
    "noiseIntervalDP")
})
