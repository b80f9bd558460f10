# The online noise reduction charges an R accountant with delta > 0 one ledger entry, restated
# at each reduce as the current level (all releases so far cost that level together, Ligett
# et al. 2017, Thm 2.7) and added to the other spends by basic composition, never in zCDP. The composition itself is tested in Python
# (tests/python/accuracy_first/test_noise_reduction.py). Deterministic: no statistical assertion.

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

test_that("the entry is added basically to a zCDP total, after earlier spends", {
  acc <- BudgetAccountant$new(eps = 30, delta = 1e-3)
  others <- BudgetAccountant$new(eps = 30, delta = 1e-3)
  acc$spend(privacy_loss_approx(0.3, 1e-7), "before")
  others$spend(privacy_loss_approx(0.3, 1e-7), "before")
  nr <- LaplaceNoiseReductionOnline$new(1, eps = 0.1, sensitivity = 1, accountant = acc)
  for (i in 1:400) {
    acc$spend(privacy_loss_pure(0.05), "other")
    others$spend(privacy_loss_pure(0.05), "other")
  }
  nr$reduce(0.2)
  expect_identical(acc$ledger$label[1:2], c("before", "LaplaceNoiseReductionOnline"))
  expect_identical(acc$ledger$eps[2], 0.2)
  expect_identical(others$composition, "zCDP")
  expect_identical(acc$composition, "zCDP + basic")
  expect_identical(unclass(acc$spent), unclass(others$spent + privacy_loss_pure(0.2)))
})
