package memory

import (
	"fmt"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/fitsize"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
)

// Estimate predicts the peak memory of scoring a graph, like the
// .estimate mode of Neo4j GDS: a breakdown by phase and the expected peak
// resident size, so that a run that cannot fit is refused before it starts.
type Estimate struct {
	Nodes, Edges int64
	Phases       []Phase
	// Live is the largest amount of memory in use at once (the largest phase).
	Live int64
	// Peak is the expected peak resident size of the process: Live plus the
	// garbage collector's headroom and the runtime's own memory.
	Peak int64
	// Least is Live and the runtime's own memory, without the collector's
	// headroom: the least the run can be given. Given less than Peak, it
	// runs with the collector held to its limit (HeldToLimit).
	Least int64
}

// Phase is the memory in use during one phase.
type Phase struct {
	Phase string `json:"phase"`
	Bytes int64  `json:"bytes"`
	Parts []Part `json:"parts"`
}

// Part is one data structure.
type Part struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// Options describes the run being estimated.
type Options struct {
	Dim         int  // embedding dimension (default cne.Options's)
	Workers     int  // goroutines (default: all cores)
	StringKeys  bool // node keys are strings rather than integers
	AvgKeyBytes int  // average key length for string keys (default 16)
	KeepState   bool // a checkpoint will be saved (optimizer state kept)
	// Since: the run is incremental from a saved state (fondue.State,
	// fondue.Options.Since: embedding.checkpoint set, not embedding.full),
	// which is held from the load to the end, with the incremental plan's
	// arrays (SinceParts). Assumed of the graph's size.
	Since        bool
	ExactMaxNode int // largest graph fitted exactly (default cne.Options's)
	NegRatio     int // negatives drawn per edge in sampled mode (default cne.Options's)
	// MaxDegree is the graph's largest degree, when known (a graph is
	// loaded); 0 means unknown, and the estimate then assumes the largest
	// degree the counts allow, min(nodes-1, edges): every per-worker buffer
	// below grows with it.
	MaxDegree int64
	// Split adds the phase of split proposals (score --split, sync --split).
	Split bool
	// NoEmbedding: the method fits no embedding (the baselines, such as
	// degree, without a splitter that needs one): no embedding phase, and
	// no vectors or prior in the later ones.
	NoEmbedding bool
	// FromFile adds the edge-list reader's buffers to the load phase
	// (score); the connector builds the graph from streamed records instead.
	FromFile bool
	// SourceLoad are a graph source's own buffers while the graph is
	// built, added to the load phase (the Neo4j connector's node table and
	// relationship buffers: connector.PullMemory).
	SourceLoad []Part
	// Held are what the caller keeps beside the engine through every
	// phase, added to each (sync keeps the pulled nodes' element ids and
	// keys to write the scores back).
	Held []Part
	// Sink are what the caller holds once the engine is done, while it
	// writes the scores and carries the splits out (sync --split: the
	// split plan, connector.SplitMemory): a phase of their own, with the
	// fitted graph, the embedding and the scores still held.
	Sink []Part
}

// The collector lets the heap grow to twice the live data (GOGC=100), but
// a run's peak RSS stays within gcHeadroom times the live estimate
// (docs/memory-and-scale.md has the measurements).
const (
	gcHeadroom   = 1.6
	runtimeBytes = 16 << 20
	// runtimePerWorker is the runtime's memory per worker thread (stack,
	// allocation caches, scheduler).
	runtimePerWorker = 8 << 20
	mapEntry         = 40 // bytes per entry of a Go map from key to index, with growth slack
	// workerFixed is each worker's small fixed scratch (stack, vectors of d).
	workerFixed = 1 << 16
)

// Predict predicts the memory of Score on a graph of the given size, phase
// by phase (load, embedding, scoring, split, and a sink phase when
// Options.Sink is given). Each phase counts the graph, the vectors and the
// per-worker buffers that grow with the largest degree (Options.MaxDegree,
// else the largest the counts allow); Live is the largest phase and Peak
// is Live times the collector's headroom plus the runtime's own memory.
// docs/memory-and-scale.md gives the formula of each part.
func Predict(nodes, edges int64, o Options) Estimate {
	s := newSizes(nodes, edges, o)
	phases := []Phase{{Phase: "load", Parts: s.load()}}
	if !o.NoEmbedding {
		phases = append(phases, Phase{Phase: "embedding", Parts: s.embedding()})
	}
	phases = append(phases, Phase{Phase: "scoring", Parts: s.scoring()})
	if o.Split {
		phases = append(phases, Phase{Phase: "split", Parts: s.split()})
	}
	if len(o.Sink) > 0 {
		phases = append(phases, Phase{Phase: "sink", Parts: s.sink()})
	}
	e := Estimate{Nodes: nodes, Edges: edges}
	var since []Part
	if o.Since && !o.NoEmbedding {
		since = SinceParts(nodes, edges, s.d, s.o.StringKeys, s.o.AvgKeyBytes)
	}
	for _, pm := range phases {
		if pm.Phase == "load" { // the state is read while the graph loads
			pm.Parts = slices.Concat(pm.Parts, since[:min(len(since), savedStateParts)])
		} else {
			pm.Parts = slices.Concat(pm.Parts, since)
		}
		pm.Parts = slices.Concat(pm.Parts, o.Held)
		for _, p := range pm.Parts {
			pm.Bytes += p.Bytes
		}
		e.Phases = append(e.Phases, pm)
		e.Live = max(e.Live, pm.Bytes)
	}
	rt := runtimeOverhead(parallel.WorkerCount(o.Workers))
	e.Peak, e.Least = int64(float64(e.Live)*gcHeadroom)+rt, e.Live+rt
	return e
}

// sizes are the quantities of Predict's formulas: n nodes, m edges,
// dimension d, negative ratio r, w workers, largest degree deg, and vec =
// 8nd, the bytes of one float64 vector per node; o with its defaults.
type sizes struct {
	o                       Options
	n, m, d, r, w, deg, vec int64
}

func newSizes(nodes, edges int64, o Options) sizes {
	fit := cne.Options{Dim: o.Dim, ExactMaxNodes: o.ExactMaxNode, NegRatio: o.NegRatio}.WithDefaults()
	o.Dim, o.ExactMaxNode, o.NegRatio = fit.Dim, fit.ExactMaxNodes, fit.NegRatio
	if o.AvgKeyBytes <= 0 {
		o.AvgKeyBytes = 16
	}
	s := sizes{o: o, n: nodes, m: edges, d: int64(o.Dim), r: int64(o.NegRatio),
		w: int64(parallel.WorkerCount(o.Workers)), deg: o.MaxDegree}
	if s.deg <= 0 {
		s.deg = max(min(s.n-1, s.m), 0)
	}
	s.vec = 8 * s.n * s.d
	return s
}

// graph returns the parts of the graph itself, a fresh slice.
func (s sizes) graph() []Part {
	keys := 8 * s.n
	if s.o.StringKeys {
		keys = s.n * (16 + int64(s.o.AvgKeyBytes))
	}
	return []Part{
		{"adjacency (CSR)", 8*s.m + 8*(s.n+1)},
		{"node keys", keys},
		{"key index", mapEntry * s.n},
	}
}

// load returns the parts of the load phase.
func (s sizes) load() []Part {
	load := append(s.graph(),
		Part{"edge buffer while building", 2 * 8 * s.m}, // src/dst, with append's growth
		Part{"renumbering by key", 16 * s.n},
	)
	if s.o.FromFile {
		load = append(load, Part{"reader buffers", 1 << 20})
	}
	load = append(load, s.o.SourceLoad...)
	return load
}

// embedding returns the parts of the embedding phase.
func (s sizes) embedding() []Part {
	n, m, d, r, w, deg, vec := s.n, s.m, s.d, s.r, s.w, s.deg, s.vec
	cne := append(s.graph(),
		Part{"prior multipliers", 12 * n},
		Part{"embedding, gradient, Adam moments", 4 * vec},
		Part{"node marks (per worker)", w * (n/8 + workerFixed)},
		// The smoothed start reuses the moments and gradient as scratch;
		// its per-chunk sums are d^2 per chunk of rows. The stability
		// stop holds its sample (index, score, rank: 16 bytes each, two
		// top sets of a tenth) and the differences to the neighbours of
		// its largest sampled node.
		Part{"smoothed start sums, stability-stop sample", 8*d*d*((2*m+4*n)/fitsize.SmoothChunkCost+1) + int64(fitsize.StableSample)*20},
		Part{"stability-stop differences of the largest sampled node", deg * (8*d + 16)},
	)
	if n > int64(s.o.ExactMaxNode) {
		// Both buffers are padded to a multiple of eight entries, which
		// the fixed scratch of each worker covers.
		need := min(r*deg, r*max(n-1, 0)/(r+1))
		cne = append(cne,
			Part{"negative-sampling buffers (per worker, grow with the largest degree)", w * need * (8*d + 12)},
			Part{"gathered neighbours of the largest node (per worker)", w * deg * (8*d + 8)})
	}
	if n > int64(s.o.ExactMaxNode) && vec > fitsize.ReorderMinBytes {
		cne = append(cne,
			Part{"renumbered graph for locality", 8*m + 16*n},
			Part{"renumbered vectors (transient)", 3 * vec},
		)
	}
	if s.o.KeepState {
		cne = append(cne, Part{"optimizer state for the checkpoint", 2 * vec})
	}
	return cne
}

// scored returns the parts held once the embedding is fitted: the graph,
// the embedding, the prior (and the optimizer state for a checkpoint).
func (s sizes) scored() []Part {
	if s.o.NoEmbedding {
		return s.graph()
	}
	scored := append(s.graph(),
		Part{"embedding", s.vec},
		Part{"prior multipliers", 8 * s.n},
	)
	if s.o.KeepState {
		scored = append(scored, Part{"optimizer state for the checkpoint", 2 * s.vec})
	}
	return scored
}

// scoring returns the parts of the scoring phase.
func (s sizes) scoring() []Part {
	n, d, w, deg := s.n, s.d, s.w, s.deg
	return append(s.scored(),
		Part{"scores, disconnection, ranks", 49 * n},
		Part{"cross-pair marks (per worker)", w * (8*n + workerFixed)},
		Part{"cross-pair side words (per worker)", w * 16 * min(64*deg, n)},
		Part{"split search of the largest node (per worker)", w * deg * (8*d + 32)},
	)
}

// split returns the parts of the split phase.
func (s sizes) split() []Part {
	n, m, w, deg := s.n, s.m, s.w, s.deg
	return append(s.scored(),
		Part{"scores, ambiguity, ranking", 24 * n},
		Part{"ego and two-hop markers (per worker)", w * (8*n + workerFixed)},
		Part{"ego net, two-hop lists, affinity, MCL of the largest node (per worker)", w * 40 * (min(deg*deg, 2*m) + deg)},
	)
}

// sink returns the parts of the sink phase: the scored graph, the scores
// and the caller's Sink.
func (s sizes) sink() []Part {
	return slices.Concat(s.scored(), []Part{{"scores, disconnection, ranks", 49 * s.n}}, s.o.Sink)
}

// savedStateParts is the number of SinceParts that are the state read
// (the CLI reads it while the graph loads); the others are allocated by
// the run.
const savedStateParts = 4

// SinceParts are what an incremental run holds for a saved state of n
// rows, m links and dimension d (fondue.ReadState's arrays, and what
// fondue/incremental.go and cne.Checkpoint.WarmStart allocate), in bytes:
//
//	state keys     = n(16 + k)  string headers and bytes; k the average key
//	                            length, or an integer's digits rounded to 8
//	state vectors  = 3a         embedding and the two Adam moments, each
//	                            a = 8dn (fondue.ReadStateFile makes them
//	                            whole from the file's size)
//	state per node = 40n        fingerprint 8, terms 24 (FONDUE, disconnection,
//	                            pieces), entity estimate 4, degree 4
//	state links    = 8m         a 4-byte row per link end
//	warm start     = 24dn + 8n  the starting embedding and moments, copied
//	                            by the fit, and each node's saved row
//	plan           = 43n        rows 8, fingerprints 8, link offsets 8,
//	                            changed 4, trained 4 and its ring marks 1,
//	                            saved row to node 4, rescore flags, counts
//	                            and marks 6
func SinceParts(n, m, d int64, stringKeys bool, avgKeyBytes int) []Part {
	k := int64(avgKeyBytes)
	if !stringKeys {
		digits := int64(1)
		for v := n; v >= 10; v /= 10 {
			digits++
		}
		k = (digits + 7) / 8 * 8
	}
	a := 8 * d * n
	return []Part{
		{"saved state: keys", n * (16 + k)},
		{"saved state: embedding and optimizer state", 3 * a},
		{"saved state: fingerprints, terms, entities, degrees", 40 * n},
		{"saved state: links", 8 * m},
		{"warm start: embedding and moments", 24*d*n + 8*n},
		{"incremental plan", 43 * n},
	}
}

// runtimeOverhead is the Go runtime's own memory with w worker threads.
func runtimeOverhead(w int) int64 { return runtimeBytes + int64(w)*runtimePerWorker }

// CheckMemory returns an error when the run cannot fit in limit bytes
// (limit <= 0: no limit): when its live data and the runtime's memory
// (Least) exceed it. A run that fits only without the collector's
// headroom is accepted, and HeldToLimit says so.
func (e Estimate) CheckMemory(limit int64) error {
	if limit > 0 && e.Least > limit {
		return fmt.Errorf("estimated memory %s for %d nodes and %d edges (%s at its peak) exceeds the limit of %s (max_memory)",
			sysmem.FormatBytes(e.Least), e.Nodes, e.Edges, sysmem.FormatBytes(e.Peak), sysmem.FormatBytes(limit))
	}
	return nil
}

// HeldToLimit reports whether a run fits in limit bytes only when the
// collector is held to it (Go's soft memory limit, which the commands set):
// its live data fits and its peak with the collector's usual headroom does
// not. Such a run collects more often, so it spends more CPU.
func (e Estimate) HeldToLimit(limit int64) bool {
	return limit > 0 && e.Peak > limit && e.Least <= limit
}

// Available returns the memory available to the process, in bytes (its
// cgroup's limit or the machine's available memory), 0 when unknown: the
// default limit of a run.
func Available() int64 { return sysmem.AvailableMemory() }
