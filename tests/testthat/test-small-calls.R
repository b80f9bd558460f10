# Small calls from R (issue 29): one round trip per release, and the same values and errors
# through the bridge's shortcuts (a float returned as it is, histogramDP's privacy as plain
# fields, the single scan for NA, short double vectors converted first).

test_that("a float release comes back as a plain double, equal to Python's", {
  x <- seq(0.05, 0.95, length.out = 100)
  m <- with_random_state(3, meanDP(x, 1, 0, 1))
  q <- with_random_state(3, quantileDP(x, 0.5, 1, 0, 1))
  expect_type(m, "double")
  expect_null(attributes(m))
  expect_null(attributes(q))
  dppack <- reticulate::import("dppack")
  np <- reticulate::import("numpy", convert = FALSE)
  expect_identical(m, dppack$meanDP(np$array(x), 1, 0, 1,
                                    random_state = np$random$default_rng(3L)))
  expect_identical(q, dppack$quantileDP(np$array(x), 0.5, 1, 0, 1,
                                        random_state = np$random$default_rng(3L)))
})

test_that("histogramDP's privacy attribute is the loss it spent, without a round trip each", {
  x <- seq(0.05, 0.95, length.out = 100)
  expect_identical(attr(histogramDP(x, 1, 0, 1), "privacy"), privacy_loss_pure(1))
  gaussian <- histogramDP(x, 0.5, 0, 1, mechanism = "Gaussian", delta = 0.01)
  expect_identical(attr(gaussian, "privacy"), privacy_loss_approx(0.5, 0.01))
  both <- histogramDP(x, 1, 0, 1, which.sensitivity = "both")
  expect_identical(attr(both$Bounded, "privacy"), attr(both$Unbounded, "privacy"))
  expect_s3_class(attr(both$Bounded, "privacy"), "privacy_loss")
  # a loss read from a core object still takes the round trips
  zcdp <- reticulate::import("dppack")$PrivacyLoss$zcdp(0.25)
  expect_identical(DPpackPy:::.privacy_loss_from_py(zcdp), privacy_loss_zcdp(0.25))
})

test_that("NA in any argument is still found and refused with DPpack's text", {
  x <- seq(0.05, 0.95, length.out = 10)
  expect_error(meanDP(c(x, NA), 1, 0, 1), "x must be finite", fixed = TRUE)
  expect_error(meanDP(x, NA, 0, 1), "eps", fixed = TRUE)
  expect_error(meanDP(x, 1, 0, 1, which.sensitivity = NA_character_), "which.sensitivity")
  expect_error(meanDP(as.integer(c(1, NA)), 1, 0, 1), "x must be finite", fixed = TRUE)
  # a plain double vector goes as a 1-d array, a double NA as a scalar NaN
  to_py <- DPpackPy:::.to_py
  expect_identical(to_py(c(1, 2)), as.array(c(1, 2)))
  expect_identical(to_py(numeric(0)), as.array(numeric(0)))
  expect_identical(to_py(NA_real_), NA_real_)
  expect_identical(to_py(c(a = 1, b = 2)), as.array(c(a = 1, b = 2)))
})
