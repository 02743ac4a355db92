package expr

// Exports for the tests of package expr_test (the kernel fuzz test and its
// reference evaluator), which see only the package's exported API.

// MakeBatch is makeBatch: the fuzz test's batches, sliced or not.
var MakeBatch = makeBatch

// ColsUsed is colsUsed: the input ordinals an expression reads, which the
// fuzz test shows when a case fails.
var ColsUsed = colsUsed

// DaySuffix is daySuffix, the English ordinal suffixes of MySQL's %D: a
// table the reference's DATE_FORMAT prints with, not an evaluation it
// checks.
var DaySuffix = daySuffix
