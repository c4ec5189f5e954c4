// Package fitsize holds the sizes of the CNE fit that the memory estimate
// (package fondue/memory) reads too.
package fitsize

// Sizes of the fit.
const (
	// ReorderMinBytes is the embedding size above which sampled mode
	// renumbers the nodes for locality.
	ReorderMinBytes = 8 << 20
	// SmoothChunkCost is the cost of one chunk of rows of the smoothed start.
	SmoothChunkCost = 1 << 14
	// StableSample is the largest sample of nodes of the ranking-stability stop.
	StableSample = 1000
)
