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

# By default each call is seeded from the operating system: set.seed() does not reproduce it.
set.seed(42)
first <- LaplaceMechanism(c(mean = 3.2, sd = 1.1), eps = 1, sensitivities = c(0.1, 0.2))
set.seed(42)
again <- LaplaceMechanism(c(mean = 3.2, sd = 1.1), eps = 1, sensitivities = c(0.1, 0.2))
cat("Default mode, set.seed(42) twice gives the same release:", identical(first, again), "\n")
# For teaching and testing only (never to release real data), reproducible mode lets
# set.seed() govern DPpackPy calls as it does R's own functions. This demo keeps it on from
# here so that its output is the same on every run.
options(DPpackPy.reproducible = TRUE)
set.seed(42)
first <- LaplaceMechanism(c(mean = 3.2, sd = 1.1), eps = 1, sensitivities = c(0.1, 0.2))
set.seed(42)
again <- LaplaceMechanism(c(mean = 3.2, sd = 1.1), eps = 1, sensitivities = c(0.1, 0.2))
cat("Reproducible mode, set.seed(42) twice gives the same release:", identical(first, again), "\n")
print(first)

# DPpack's messages, without a Python traceback:
tryCatch(GaussianMechanism(5, eps = 3, delta = 0.01, sensitivities = 1),
         error = function(e) cat("Error shown to the user:", conditionMessage(e), "\n"))

# ---------------------------------------------------------------------------------------------
# Private descriptive statistics of the Pima Indians diabetes data (MASS; see
# python/dppack/data/README.md for its source and licence). Bounds are public knowledge
# about the measurements, not read from the data.
cat("\n== Private summary of the Pima data (n = 532), R ==\n")
pima <- rbind(MASS::Pima.tr, MASS::Pima.te)
bounds <- list(glu = c(40, 200), bp = c(30, 120), bmi = c(15, 70), age = c(20, 90))
set.seed(2026)
summary_rows <- lapply(names(bounds), function(v) {
  x <- pima[[v]]
  b <- bounds[[v]]
  data.frame(
    variable = v,
    mean = mean(x), mean.DP = meanDP(x, 0.5, b[1], b[2]),
    sd = sd(x), sd.DP = sdDP(x, 0.5, b[1], b[2]),
    median = median(x), median.DP = medianDP(x, 0.5, b[1], b[2])
  )
})
print(do.call(rbind, summary_rows), digits = 4, row.names = FALSE)
cat("cov(glu, bmi):", cov(pima$glu, pima$bmi), "  private:",
    covDP(pima$glu, pima$bmi, 0.5, 40, 200, 15, 70), "\n")
cat("Diabetic (type) counts, true and private:\n")
print(table(type = pima$type))
print(tableDP(type = pima$type, eps = 0.5))

dir.create("demo-output", showWarnings = FALSE)
histogram <- histogramDP(pima$glu, eps = 1, lower.bound = 40, upper.bound = 200)
png("demo-output/pima_glucose_R.png", width = 640, height = 480)
plot(histogram, main = "Private histogram of plasma glucose (eps = 1), R",
     xlab = "glucose")
invisible(dev.off())
cat("Private histogram saved to demo-output/pima_glucose_R.png\n")

# ---------------------------------------------------------------------------------------------
# Private logistic regression with private tuning of gamma, on the same data: train on
# MASS's Pima.te (332 women), test on Pima.tr (200). Accuracy beside the non-private fit.
cat("\n== Private logistic regression with private tuning, Pima data, R ==\n")
features <- c("glu", "bmi", "ped", "age")
upper <- c(200, 70, 2.5, 90)
lower <- c(40, 15, 0, 20)
train <- MASS::Pima.te
test <- MASS::Pima.tr
y.test <- as.integer(test$type == "Yes")
set.seed(2026)
for (eps in c(1, 5)) {
  models <- lapply(c(0.1, 1, 10, 100), function(g) LogisticRegressionDP$new("l2", eps, g))
  # type is a factor (No, Yes): its declared levels are the public label set
  best <- tune_classification_model(models, train[features], train$type, upper, lower,
                                    add.bias = TRUE)
  # predict() remembers add.bias and takes the features by name; it returns No/Yes
  accuracy <- mean(predict(best, test) == test$type)
  cat(sprintf("eps = %g: selected gamma = %g, test accuracy %.3f\n", eps, best$gamma,
              accuracy))
}
reference <- stats::glm(type ~ glu + bmi + ped + age, family = stats::binomial, data = train)
cat(sprintf("non-private logistic regression (glm): test accuracy %.3f\n",
            mean((stats::predict(reference, test, type = "response") > 0.5) == y.test)))
# The same model through a formula, with the bounds by variable; type is a factor (No, Yes).
private <- glmDP(type ~ glu + bmi + ped + age, train, family = binomial(), eps = 1, gamma = 10,
                 bounds = list(glu = c(40, 200), bmi = c(15, 70), ped = c(0, 2.5),
                               age = c(20, 90)))
cat(sprintf("glmDP(type ~ glu + bmi + ped + age), eps = 1, gamma = 10: test accuracy %.3f\n",
            mean(predict(private, test) == test$type)))

# ---------------------------------------------------------------------------------------------
# Accounting for privacy: a budget of eps = 1 for the Pima summaries. Each release is checked
# against what remains before it reads the data, and recorded; an overspend is refused.
cat("\n== Privacy accounting, R ==\n")
acc <- BudgetAccountant$new(eps = 1)
with_accountant(acc, {
  glu.mean <- meanDP(pima$glu, eps = 0.5, lower.bound = 40, upper.bound = 200)
  glu.sd <- sdDP(pima$glu, eps = 0.25, lower.bound = 40, upper.bound = 200)
})
bmi.median <- medianDP(pima$bmi, eps = 0.25, lower.bound = 15, upper.bound = 70,
                       accountant = acc)
cat(sprintf("glucose mean %.1f, sd %.1f; BMI median %.1f\n", glu.mean, glu.sd, bmi.median))
print(acc)
refused <- tryCatch(
  quantileDP(pima$bmi, 0.9, eps = 0.5, lower.bound = 15, upper.bound = 70, accountant = acc),
  error = function(e) conditionMessage(e)
)
cat("A further release of eps = 0.5:", refused, "\n")
