# The last file of the run (testthat takes the files in alphabetical order): every file before it
# restored the options it changed. helper-dppack.R turns reproducible mode on for the whole run;
# a file that leaves it off makes the set.seed() tests of the files after it fail by chance
# (test-short-call.R once did, through two on.exit() restores in the wrong order).

test_that("the earlier test files left reproducible mode on", {
  expect_identical(getOption("DPpackPy.reproducible"), TRUE)
})
