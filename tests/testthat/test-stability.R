# Stability-based validation seen from R: worked numbers of Chaudhuri and Vinterbo (2013),
# the R surface (arguments, returned objects, which models are fitted), reproducibility and
# error texts. The noise laws and the stability properties are tested in Python (tests/python/
# model_selection/test_stability.py); bit-identity with Python in test_cross_language_stability.py.

skip_if_not(dppack_available(), "the Python core dppack is not available")

stable_data <- function(n, seed) {
  set.seed(seed)
  X <- matrix(stats::runif(2 * n, -1, 1), ncol = 2)
  y <- as.integer(stats::runif(n) < stats::plogis(3 * X[, 1] - 2 * X[, 2]))
  list(X = X, y = y)
}

test_that("the stability constants give the paper's worked numbers", {
  # Chaudhuri and Vinterbo (2013): the Magic experiment (Theorem 4) and histograms (Theorem 6)
  b <- stability_constants_linear(0.001, 15216, 1902, 10, 10, 1, 0.01)
  expect_equal(b, c(2000, 1))
  expect_equal(max(b[1] / 15216, b[2] / 1902), 0.1314, tolerance = 5e-4)
  h <- stability_constants_histogram(0.01, 10000, 2000, 5, 1, 0.01)
  expect_equal(h, c(609.26, 200), tolerance = 1e-5)
  expect_dppack_error(
    stability_constants_histogram(0.01, 150, 2000, 5, 1, 0.01),
    paste("Stability needs at least 154 training values for these bin widths, budget and",
          "delta (Thm 6); there are 150."),
    "stability_constants_histogram"
  )
})

test_that("tune_classification_model_stable fits and returns only the selected model", {
  d <- stable_data(2000, 1)
  models <- lapply(c(5, 50, 500), function(g) LogisticRegressionDP$new("l2", 1, g))
  best <- tune_classification_model_stable(models, d$X, d$y, c(1, 1), c(-1, -1), 1)
  expect_true(inherits(best, "LogisticRegressionDP"))
  chosen <- vapply(models, function(m) identical(m, best), logical(1))
  expect_equal(sum(chosen), 1)
  expect_length(best$coeff, 2)
  expect_true(all(vapply(models[!chosen], function(m) is.null(m$coeff), logical(1))))
  expect_true(all(best$predict(d$X) %in% c(0, 1)))
})

test_that("set.seed() makes the selection reproducible; options reach the core", {
  d <- stable_data(600, 2)
  run <- function() {
    models <- lapply(c(0.5, 5, 50), function(g) svmDP$new("l2", 1, g, "output"))
    set.seed(9)
    # gamma = 0.5 makes the selection near uniform (its warning is tested below)
    best <- suppressWarnings(tune_classification_model_stable(
      models, as.data.frame(d$X), d$y, c(1, 1), c(-1, -1), 2, add.bias = TRUE,
      validation.fraction = 0.25, score = "hinge", selector = "laplace", noise = "independent"
    ))
    c(best$gamma, best$coeff)
  }
  first <- run()
  expect_identical(run(), first)
  expect_length(first, 4)
})

test_that("tune_histogram_bin_width_stable returns an R histogram over the bounds", {
  set.seed(3)
  x <- 2 + 4 * stats::rbeta(20000, 2, 30)
  h <- tune_histogram_bin_width_stable(x, c(0.5, 0.02), 2, 2, lower.bound = 2, upper.bound = 6)
  expect_s3_class(h, "histogram")
  expect_equal(range(h$breaks), c(2, 6))
  expect_equal(diff(h$breaks)[1], 0.08)  # the fine width wins for a peaked density
  expect_true(all(h$counts >= 0))
  expect_equal(h$mids, (h$breaks[-1] + h$breaks[-length(h$breaks)]) / 2)
})

test_that("bad arguments stop with the core's message and leave R's random stream alone", {
  d <- stable_data(200, 4)
  models <- list(LogisticRegressionDP$new("l2", 1, 1))
  set.seed(5)
  before <- .Random.seed
  expect_dppack_error(
    tune_classification_model_stable(models, d$X, d$y, c(1, 1), c(-1, -1), 1,
                                      selector = "max"),
    "selector must be one of 'exponential_noise', 'gumbel', 'laplace'.",
    "tune_classification_model_stable"
  )
  expect_identical(.Random.seed, before)
  expect_dppack_error(
    tune_classification_model_stable(
      list(LogisticRegressionDP$new("l2", 1, 1), LogisticRegressionDP$new("l2", 2, 1)),
      d$X, d$y, c(1, 1), c(-1, -1), 1
    ),
    "All DPmodels must have the same eps (the training budget).",
    "tune_classification_model_stable"
  )
  expect_dppack_error(
    tune_histogram_bin_width_stable(stats::runif(500), 0.3, 1, 1),
    "Every bin width h must have 1/h a whole number (not h = 0.3).",
    "tune_histogram_bin_width_stable"
  )
  expect_null(models[[1]]$coeff)
})

test_that("selection_privacy gives Thm 2's and Thm 5's accounting", {
  expect_identical(selection_privacy("stability", 0.5, eps.select = 0.25, delta = 0.01),
                   list(eps = 0.75, delta = 0.01))
  for (procedure in c("alphaSplit", "dataSplit", "random")) {
    # the baselines' delta is 0 whatever delta is passed (Thm 5)
    expect_identical(selection_privacy(procedure, 2, delta = 0.1),
                     list(eps = 2, delta = 0))
  }
  expect_dppack_error(selection_privacy("stability", 1),
                      "eps.select must be given for the 'stability' procedure.",
                      "selection_privacy")
  expect_dppack_error(
    selection_privacy("control", 1),
    "procedure must be one of 'stability', 'alphaSplit', 'dataSplit', 'random'.",
    "selection_privacy"
  )
})

test_that("advanced_composition_eps solves the composition equation", {
  # advanced composition (Dwork, Rothblum and Vadhan 2010) at k = 10, delta = 0.01
  expect_equal(advanced_composition_eps(0.3, 10, 0.01), 0.03029, tolerance = 2e-4)
  expect_equal(advanced_composition_eps(1, 10, 0.01), 0.09445, tolerance = 1e-4)
  # the root satisfies the equation, written out here
  for (eps in c(0.3, 1, 5)) {
    e <- advanced_composition_eps(eps, 7, 0.05)
    expect_equal(7 * expm1(e) * e + sqrt(2 * 7 * log(1 / 0.05)) * e, eps, tolerance = 1e-10)
  }
  # the crossover with alphaSplit's eps / k lies near 0.395
  expect_gt(advanced_composition_eps(0.39, 10, 0.01), 0.039)
  expect_lt(advanced_composition_eps(0.40, 10, 0.01), 0.040)
  expect_dppack_error(advanced_composition_eps(1, 10, 0),
                      "delta must be a number in (0, 1).", "advanced_composition_eps")
})

test_that("stability_selection_diagnosis gives the hand-computed numbers", {
  # two candidates, exponential noise: P(best) = 1 - exp(-x) / 2 with x = eps.select * 1 /
  # (2 * beta), beta = 2 * (1 + 1e-6) / min(gamma) (ramp score: range 1, m large)
  d <- stability_selection_diagnosis(c(2, 30), n = 5000, m = 5000, d = 3, eps = 1,
                                     eps.select = 0.7)
  beta <- 2 * (1 + 1e-6) / 2
  x <- 0.7 / (2 * beta)
  expect_s3_class(d, "stability_selection_diagnosis")
  expect_equal(d$sensitivity, beta, tolerance = 1e-12)
  expect_equal(d$best.probability, 1 - exp(-x) / 2, tolerance = 1e-12)
  expect_equal(d$distance.from.uniform, 0.5 - exp(-x) / 2, tolerance = 1e-12)
  expect_equal(d$utility.slack, 2 * beta * log(2 / 0.05) / 0.7, tolerance = 1e-12)
  expect_identical(d$verdict, "informative")
  # the exponential mechanism in closed form: P(best) = e^x / (e^x + k - 1)
  g <- stability_selection_diagnosis(c(2, 30, 300), n = 5000, m = 5000, d = 3, eps = 1,
                                     eps.select = 0.7, selector = "gumbel")
  expect_equal(g$best.probability, exp(x) / (exp(x) + 2), tolerance = 1e-12)
  # Laplace noise: Theorem 3 does not cover it; the slack is the exact worst case, where
  # P(the worse of two candidates wins) = (2 + x) e^-x / 4 (x in noise scales) is 0.05
  l <- stability_selection_diagnosis(c(2, 30), n = 5000, m = 5000, d = 3, eps = 1,
                                     eps.select = 0.7, selector = "laplace")
  xl <- l$utility.slack / l$noise.scale
  expect_equal((2 + xl) * exp(-xl) / 4, 0.05, tolerance = 1e-9)
  # hinge: the default gap 1 is below beta2, not the most favourable case
  h <- stability_selection_diagnosis(c(0.01, 1), n = 1000, m = 250, d = 3, eps = 1,
                                     eps.select = 1, score = "hinge")
  expect_false(grepl("favourable", h$text))
  # one candidate: nothing to select, nothing needed
  one <- stability_selection_diagnosis(5, n = 100, m = 50, d = 2, eps = 1, eps.select = 1)
  expect_identical(one$verdict, "one candidate")
  expect_null(one$gamma.min.needed)
})

test_that("the issue's grid is near uniform, gamma >= 50 is not, and print says so", {
  wide <- stability_selection_diagnosis(10^(-2:4), n = 40000, m = 10000, d = 9, eps = 1,
                                        eps.select = 1)
  expect_identical(wide$verdict, "near uniform")
  expect_lt(wide$distance.from.uniform, 0.1)
  expect_gt(wide$gamma.min.needed, 1)
  out <- capture.output(print(wide))
  expect_match(out[1], "near uniform", fixed = TRUE)
  expect_true(any(grepl("eps.select to at least", out, fixed = TRUE)))
  # at the proposed smallest gamma the distance is the threshold
  fixed <- stability_selection_diagnosis(wide$gamma.min.needed * 10^(0:6), n = 40000,
                                         m = 10000, d = 9, eps = 1, eps.select = 1)
  expect_equal(fixed$distance.from.uniform, 0.1, tolerance = 1e-6)
  narrow <- stability_selection_diagnosis(c(50, 100, 1000), n = 40000, m = 10000, d = 9,
                                          eps = 1, eps.select = 1)
  expect_identical(narrow$verdict, "informative")
  expect_dppack_error(
    stability_selection_diagnosis(c(1, 2), 100, 0, 2, 1, 1),
    "m must be a whole number >= 1.", "stability_selection_diagnosis"
  )
})

test_that("tune_classification_model_stable warns when the selection is near uniform", {
  d <- stable_data(1000, 6)
  grid <- 10^(-2:4)
  models <- lapply(grid, function(g) LogisticRegressionDP$new("l2", 1, g))
  cnd <- expect_warning(
    tune_classification_model_stable(models, d$X, d$y, c(1, 1), c(-1, -1), 1),
    "The selection is near uniform"
  )
  expect_match(conditionMessage(cnd), "eps.select to at least", fixed = TRUE)
  expect_match(conditionMessage(cnd), "tune_classification_model)", fixed = TRUE)
  expect_identical(conditionCall(cnd)[[1]], as.name("tune_classification_model_stable"))
  large <- lapply(c(50, 100, 1000), function(g) LogisticRegressionDP$new("l2", 1, g))
  expect_warning(
    tune_classification_model_stable(large, d$X, d$y, c(1, 1), c(-1, -1), 1),
    regexp = NA
  )
})
