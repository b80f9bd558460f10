# Private confidence intervals for a logistic regression on the Pima data, R side.
# The private intervals (Wang, Kifer and Lee) beside the non-private Wald intervals of glm(),
# with a plot in demo-output/. The block inside with_random_state() prints the same private
# numbers as scripts/demo_confidence_intervals.py, bit for bit.
library(DPpackPy)

features <- c("glu", "bmi", "ped", "age")
pima <- rbind(MASS::Pima.tr, MASS::Pima.te)
# public bounds on the measurements, not read from the data; the features are centred at the
# midpoints of their bounds (public constants), which keeps the penalty's shrinkage moderate
upper <- c(200, 70, 2.5, 85)
lower <- c(50, 15, 0, 20)
middle <- (upper + lower) / 2
half <- (upper - lower) / 2
X <- sweep(as.matrix(pima[, features]), 2, middle)
y <- as.numeric(pima$type == "Yes")
gamma <- 1

cat(sprintf(
  "== Private confidence intervals, logistic regression on the Pima data (n = %d), R ==\n",
  nrow(X)
))
model <- LogisticRegressionDP$new("l2", eps = 5, gamma = gamma)  # eps = 5 for the whole release
with_random_state(2026, {
  dp <- confintDP(model, X, y, half, -half, add.bias = TRUE)
  zcdp <- confintERM(X, y, half, -half, gamma, rho = 2, perturbation.method = "output",
                     add.bias = TRUE)
})
cat("\nPrivate, objective perturbation:\n")
print(dp, digits = 4)
cat("\nPrivate, output perturbation:\n")
print(zcdp, digits = 4)

fit <- stats::glm(y ~ ., family = stats::binomial, data = data.frame(X, y = y))
wald <- stats::confint.default(fit)
cat("\nNon-private Wald intervals (glm, no penalty):\n")
print(round(cbind(estimate = stats::coef(fit), wald), 4))
penalised <- LogisticRegressionDP$new("l2", eps = Inf, gamma = gamma)
penalised$fit(X, y, half, -half, add.bias = TRUE)
cat("\nNon-private penalised fit (gamma = 1), the value the private intervals target:\n")
print(round(stats::setNames(penalised$coeff, rownames(dp)), 4))

dir.create("demo-output", showWarnings = FALSE)
png("demo-output/confidence_intervals_R.png", width = 1200, height = 340)
old <- par(mfrow = c(1, 4), mar = c(3, 1, 3, 1), oma = c(3, 0, 2, 0))
colours <- c("steelblue", "darkorange", "black")
for (j in seq_along(features)) {
  f <- features[j]
  bounds <- rbind(dp = unlist(dp[f, 2:3]), zcdp = unlist(zcdp[f, 2:3]), wald = wald[f, ])
  estimates <- c(dp[f, "estimate"], zcdp[f, "estimate"], stats::coef(fit)[[f]])
  plot(NA, xlim = range(bounds, 0), ylim = c(0.5, 3.5), yaxt = "n", xlab = "", ylab = "",
       main = f)
  abline(v = 0, lty = 3, col = "grey")
  abline(v = penalised$coeff[j + 1], col = "forestgreen")
  segments(bounds[, 1], 1:3, bounds[, 2], 1:3, col = colours, lwd = 4)
  points(estimates, 1:3, pch = 19, col = colours)
}
mtext("Pima: 95% intervals for the logistic regression slopes", outer = TRUE, line = 0.5)
par(fig = c(0, 1, 0, 1), oma = c(0, 0, 0, 0), mar = c(0, 0, 0, 0), new = TRUE)
plot(0, 0, type = "n", bty = "n", xaxt = "n", yaxt = "n")
legend("bottom", horiz = TRUE, bty = "n", lwd = c(1, 4, 4, 4),
       col = c("forestgreen", colours),
       legend = c("non-private penalised fit", "DP, eps = 5 (objective)",
                  "zCDP, rho = 2 (output)", "non-private Wald"))
invisible(dev.off())
cat("Interval plot saved to demo-output/confidence_intervals_R.png\n")
