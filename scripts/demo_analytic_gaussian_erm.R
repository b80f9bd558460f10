# Demo part: ERM with the analytic Gaussian mechanism on the Pima data (R side).
# OPERA (output perturbation) and the sound GRPUA (noisy SGD with a total budget) fit a
# logistic regression and a Huber SVM at a few eps; the mean test accuracy over 10 private fits
# is printed beside the non-private fit of the same algorithm (eps = Inf). Inside
# with_random_state(2026, ...) the numbers equal those of scripts/demo_analytic_gaussian_erm.py.
library(DPpackPy)

cat("\n== ERM with the analytic Gaussian mechanism, Pima data, R ==\n")
features <- c("glu", "bmi", "ped", "age")
upper <- c(200, 70, 2.5, 90)  # public bounds of the measurements
lower <- c(40, 15, 0, 20)
# Centre on the bounds' midpoints (public, not read from the data): the scaling to unit row
# norm then loses less of the signal.
middle <- (upper + lower) / 2
half <- (upper - lower) / 2
centre <- function(d) sweep(as.matrix(d[features]), 2, middle)
train <- MASS::Pima.te  # 332 women
test <- MASS::Pima.tr   # 200 women
X.train <- centre(train)
X.test <- centre(test)
y.train <- as.integer(train$type == "Yes")
y.test <- as.integer(test$type == "Yes")
gamma <- 3
delta <- 1e-5
runs <- 10
cat(sprintf("gamma = %g, delta = %g; mean test accuracy of %d private fits\n", gamma, delta,
            runs))
with_random_state(2026, {
  for (method in c("OPERA", "GRPUA")) {
    generator <- if (method == "OPERA") OutputPerturbationAGM else GradientPerturbationAGM
    for (loss in c("logistic", "huber")) {
      cells <- vapply(c(1, 5, 20, Inf), function(eps) {
        n.runs <- if (is.infinite(eps)) 1 else runs
        # correct predictions counted as integers: the same mean to the bit in Python
        correct <- vapply(seq_len(n.runs), function(i) {
          model <- generator$new(loss, eps, delta, gamma)
          model$fit(X.train, y.train, half, -half, add.bias = TRUE)
          sum(model$predict(X.test, add.bias = TRUE) == y.test)
        }, integer(1))
        label <- if (is.infinite(eps)) "non-private" else sprintf("eps %g", eps)
        sprintf("%s: %.3f", label, sum(correct) / (n.runs * length(y.test)))
      }, character(1))
      cat(sprintf("%s %-8s %s\n", method, loss, paste(cells, collapse = "  ")))
    }
  }
})
