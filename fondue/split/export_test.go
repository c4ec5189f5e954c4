package split

// Test helpers of this package for its external tests (package split_test).
var (
	TwoCliques = twoCliques
	RangeGroup = rangeGroup
)
