package fondue

import (
	"fmt"

	"github.com/fondue-neo4j/fondue-neo4j/internal/sysmem"
)

// MemoryEstimate predicts the peak memory of scoring a graph, like the
// .estimate mode of Neo4j GDS: a breakdown by phase and the expected peak
// resident size, so that a run that cannot fit is refused before it starts.
type MemoryEstimate struct {
	Nodes, Edges int64
	Phases       []PhaseMemory
	// Live is the largest amount of memory in use at once (the largest phase).
	Live int64
	// Peak is the expected peak resident size of the process: Live plus the
	// garbage collector's headroom and the runtime's own memory.
	Peak int64
}

// PhaseMemory is the memory in use during one phase.
type PhaseMemory struct {
	Phase string       `json:"phase"`
	Bytes int64        `json:"bytes"`
	Parts []MemoryPart `json:"parts"`
}

// MemoryPart is one data structure.
type MemoryPart struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// EstimateOptions describes the run being estimated.
type EstimateOptions struct {
	Dim          int  // embedding dimension (default 8)
	Workers      int  // goroutines (default: all cores)
	StringKeys   bool // node keys are strings rather than integers
	AvgKeyBytes  int  // average key length for string keys (default 16)
	KeepState    bool // a checkpoint will be saved (optimizer state kept)
	ExactMaxNode int  // largest graph fitted exactly (default 1000)
	// FromFile adds the edge-list reader's buffers to the load phase
	// (score); the connector builds the graph from streamed records instead.
	FromFile bool
}

// Go's collector lets the heap grow to twice the live data before it runs
// (GOGC=100); measured peak RSS sits between 1.2 and 1.6 times the live
// estimate on graphs of 10^4 to 10^6 nodes, so the peak uses 1.6.
const (
	gcHeadroom   = 1.6
	runtimeBytes = 16 << 20
	mapEntry     = 40 // bytes per entry of a Go map from key to index, with growth slack
)

// EstimateMemory predicts the memory of Score with FONDUE on a graph of the
// given size.
func EstimateMemory(nodes, edges int64, o EstimateOptions) MemoryEstimate {
	if o.Dim <= 0 {
		o.Dim = 8
	}
	if o.AvgKeyBytes <= 0 {
		o.AvgKeyBytes = 16
	}
	if o.ExactMaxNode <= 0 {
		o.ExactMaxNode = 1000
	}
	n, m, d := nodes, edges, int64(o.Dim)
	w := int64(workerCount(o.Workers))
	keys := 8 * n
	if o.StringKeys {
		keys = n * (16 + int64(o.AvgKeyBytes))
	}
	graph := []MemoryPart{
		{"adjacency (CSR)", 8*m + 8*(n+1)},
		{"node keys", keys},
		{"key index", mapEntry * n},
	}
	load := append([]MemoryPart{}, graph...)
	load = append(load,
		MemoryPart{"edge buffer while building", 2 * 8 * m}, // src/dst, with append's growth
		MemoryPart{"renumbering by key", 16 * n},
	)
	if o.FromFile {
		load = append(load, MemoryPart{"reader buffers", 1 << 20})
	}
	vec := 8 * n * d
	cne := append([]MemoryPart{}, graph...)
	cne = append(cne,
		MemoryPart{"prior multipliers", 12 * n},
		MemoryPart{"embedding, gradient, Adam moments", 4 * vec},
		MemoryPart{"negative-sampling buffers", w * (n/8 + 1<<16)},
	)
	if n > int64(o.ExactMaxNode) && vec > reorderMinBytes {
		cne = append(cne,
			MemoryPart{"renumbered graph for locality", 8*m + 16*n},
			MemoryPart{"renumbered vectors (transient)", 3 * vec},
		)
	}
	if o.KeepState {
		cne = append(cne, MemoryPart{"optimizer state for the checkpoint", 2 * vec})
	}
	scoring := append([]MemoryPart{}, graph...)
	scoring = append(scoring,
		MemoryPart{"embedding", vec},
		MemoryPart{"scores, ambiguity, ranking", 24 * n},
	)
	if o.KeepState {
		scoring = append(scoring, MemoryPart{"optimizer state for the checkpoint", 2 * vec})
	}
	e := MemoryEstimate{Nodes: nodes, Edges: edges}
	for _, ph := range []struct {
		name  string
		parts []MemoryPart
	}{{"load", load}, {"embedding", cne}, {"scoring", scoring}} {
		pm := PhaseMemory{Phase: ph.name, Parts: ph.parts}
		for _, p := range ph.parts {
			pm.Bytes += p.Bytes
		}
		e.Phases = append(e.Phases, pm)
		e.Live = max(e.Live, pm.Bytes)
	}
	e.Peak = int64(float64(e.Live)*gcHeadroom) + runtimeBytes
	return e
}

// CheckMemory returns an error when the estimate exceeds limit bytes
// (limit <= 0: no limit).
func (e MemoryEstimate) CheckMemory(limit int64) error {
	if limit > 0 && e.Peak > limit {
		return fmt.Errorf("estimated peak memory %s for %d nodes and %d edges exceeds the limit of %s (max_memory)",
			sysmem.FormatBytes(e.Peak), e.Nodes, e.Edges, sysmem.FormatBytes(limit))
	}
	return nil
}
