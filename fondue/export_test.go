package fondue

// Test helpers of this package for its external tests (package fondue_test).
var (
	ChangeEdges     = cne.changeEdges
	TwoCliques      = split.twoCliques
	RangeGroup      = split.rangeGroup
	RandomEmbedding = cne.randomEmbedding
)
