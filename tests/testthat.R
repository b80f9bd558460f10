library(testthat)
library(DPpackPy)

test_check("DPpackPy")
