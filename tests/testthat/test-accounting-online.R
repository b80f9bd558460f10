# The online noise reduction charges an R accountant with delta > 0 exactly: one ledger entry,
# restated at each reduce as the current level (all releases so far cost that level together,
# Ligett et al. 2017, Thm 2.7). The composition itself is tested in Python
# (tests/python/test_noise_reduction.py). Deterministic: no statistical assertion.

test_that("reduce restates one entry of an accountant with delta > 0", {
  acc <- BudgetAccountant$new(eps = 1, delta = 1e-6)
  nr <- LaplaceNoiseReductionOnline$new(c(1, 2), eps = 0.25, sensitivity = 1,
                                        accountant = acc)
  nr$reduce(0.5)
  nr$reduce(0.9) # whole levels (0.25 + 0.5 + 0.9 = 1.65) would be over this budget
  expect_identical(acc$ledger$label, "LaplaceNoiseReductionOnline")
  expect_identical(acc$ledger$eps, 0.9)
  expect_identical(unclass(acc$spent), list(kind = "pure", eps = 0.9, delta = 0))
  expect_error(nr$reduce(1.5), "Privacy budget exceeded", fixed = TRUE)
  expect_identical(acc$ledger$eps, 0.9)
})
