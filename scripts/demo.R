# DPpackPy demo, R side: DPpack 0.2.2 code, unchanged, run by DPpackPy.
# The block inside with_random_state() prints the same numbers as scripts/demo.py.
library(DPpackPy)

cat("== DPpackPy (R) ==\n")
with_random_state(2026, {
  cat("Laplace, eps 1, sensitivity 0.5, on 5:      ",
      LaplaceMechanism(5, 1, 0.5), "\n")
  cat("Laplace with allocation (1, 9) on (10, 20): ",
      LaplaceMechanism(c(10, 20), 1, c(0.5, 1), alloc.proportions = c(1, 9)), "\n")
  cat("Gaussian aDP, eps 0.9, delta 0.01, on 5:    ",
      GaussianMechanism(5, 0.9, 0.01, 1), "\n")
  cat("Gaussian pDP, eps 0.9, delta 0.01, on 5:    ",
      GaussianMechanism(5, 0.9, 0.01, 1, type.DP = "pDP"), "\n")
  cat("Analytic Gaussian, eps 2, delta 1e-5, on 5: ",
      GaussianMechanism(5, 2, 1e-5, 1, analytic = TRUE), "\n")
  cat("Exponential mechanism, utilities (-5,-1,0,3):",
      ExponentialMechanism(c(-5, -1, 0, 3), 1, 1, candidates = c("a", "b", "c", "d")), "\n")
})
cat("AGM sigma for eps 1, delta 1e-5, sensitivity 1:",
    calibrateAnalyticGaussianMechanism(1, 1e-5, 1), "\n")

# Outside with_random_state(), set.seed() governs reproducibility as for R's own functions.
set.seed(42)
first <- LaplaceMechanism(c(mean = 3.2, sd = 1.1), eps = 1, sensitivities = c(0.1, 0.2))
set.seed(42)
again <- LaplaceMechanism(c(mean = 3.2, sd = 1.1), eps = 1, sensitivities = c(0.1, 0.2))
cat("set.seed(42) twice gives the same release:", identical(first, again), "\n")
print(first)

# DPpack's messages, without a Python traceback:
tryCatch(GaussianMechanism(5, eps = 3, delta = 0.01, sensitivities = 1),
         error = function(e) cat("Error shown to the user:", conditionMessage(e), "\n"))
