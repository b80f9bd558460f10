# Stability-based private model selection on the Pima data, R side (Chaudhuri and Vinterbo
# 2013). Mirrors scripts/demo_stable_validation.py: inside
# with_random_state() the selected gammas and accuracies equal Python's bit for bit.
#
# Both procedures get the same 399 rows and the same total budget, eps 4: data splitting
# (DPpack's tune_classification_model, 5 models at eps 4 on 1/6 of the rows each) and
# stability (tune_classification_model_stable, every model at eps 2 on 80% of the rows,
# eps.select = 2 on the other 20%). The other 133 rows are the test set.
library(DPpackPy)

seed <- 2026
eps <- 4
gammas <- c(1, 3, 10, 30, 100)
columns <- c("npreg", "glu", "bmi", "ped", "age")
# public knowledge about the measurements, not read from the data; columns centred on the
# middle of their range so that the scaled rows fill the unit ball
upper <- c(17, 200, 70, 2.5, 90)
lower <- c(0, 40, 15, 0, 20)
middle <- (upper + lower) / 2
half <- (upper - lower) / 2

pima <- rbind(MASS::Pima.tr, MASS::Pima.te)
X <- sweep(as.matrix(pima[, columns]), 2, middle)
y <- as.numeric(pima$type == "Yes")
test <- seq_len(nrow(X)) %% 4 == 0  # every 4th row (Python's rows 3, 7, ...)
Xt <- X[!test, ]; yt <- y[!test]; Xw <- X[test, ]; yw <- y[test]

one_run <- function(run_seed) {
  with_random_state(run_seed, {
    split <- tune_classification_model(
      lapply(gammas, function(g) LogisticRegressionDP$new("l2", eps, g)), Xt, yt, half, -half,
      add.bias = TRUE)
    stable <- tune_classification_model_stable(
      lapply(gammas, function(g) LogisticRegressionDP$new("l2", eps / 2, g)), Xt, yt, half,
      -half, eps / 2, add.bias = TRUE)
  })
  sapply(list(split, stable), function(m) {
    c(gamma = m$gamma, accuracy = mean(m$predict(Xw, add.bias = TRUE) == yw))
  })
}

cat("\n== Stability-based validation on the Pima data (R) ==\n")
cat(nrow(Xt), "tuning rows,", nrow(Xw), "test rows; gammas", gammas, "; total eps", eps, "\n")
first <- one_run(seed)
cat(sprintf("seed %d: data splitting selected gamma %g, test accuracy %.4f\n", seed,
            first[1, 1], first[2, 1]))
cat(sprintf("seed %d: stability      selected gamma %g, test accuracy %.4f\n", seed,
            first[1, 2], first[2, 2]))
runs <- sapply(seed + 1:20, function(s) as.vector(one_run(s)))
for (i in 1:2) {
  name <- c("data splitting", "stability")[i]
  chosen <- table(factor(runs[2 * i - 1, ], levels = gammas))
  cat(sprintf("20 seeds, %-14s: mean test accuracy %.4f, gamma chosen %s\n", name,
              mean(runs[2 * i, ]), paste(names(chosen), chosen, sep = ": ", collapse = ", ")))
}
# before any data: how far from a random pick can the selection be? (public values only)
m <- nrow(Xt) %/% 5
for (gap in list(NULL, 0.05)) {  # the whole score range (most favourable), a realistic gap
  print(stability_selection_diagnosis(gammas, nrow(Xt) - m, m, ncol(Xt) + 1, eps / 2, eps / 2,
                                      score.gap = gap))
}
cat("Stability pays off for large gammas and large data (see the vignette).\n")
