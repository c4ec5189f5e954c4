package fondue

// Test helpers of this package for its external tests (package fondue_test).
var (
	ChangeEdges     = changeEdges
	TwoCliques      = twoCliques
	RangeGroup      = rangeGroup
	RandomEmbedding = randomEmbedding
)
