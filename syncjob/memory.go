package syncjob

import (
	"log/slog"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
)

// MemoryGuard refuses a sync whose estimated memory (memory.Predict of
// the pulled graph, the engine's options as Prepare left them and, from a
// MemorySizer store, the store's buffers) cannot fit in a limit
// (Estimate.CheckMemory). A run that fits only with the collector held to
// the limit (Estimate.HeldToLimit) goes on: Estimated is where the caller
// holds it.
// The zero value guards with the memory available to the process.
type MemoryGuard struct {
	// Limit is the most memory the run may use, in bytes: 0 is the memory
	// available to the process (no guard when that is unknown), a negative
	// value no limit.
	Limit int64
	// Estimated, when set, receives the estimate and the limit (0: none)
	// before they are compared, e.g. to log them or to set the runtime's
	// soft memory limit.
	Estimated func(e memory.Estimate, limit int64)
}

// MemorySizer is implemented by sources (stores) whose pull and split
// hold memory besides the engine's: the buffers of the pull (load, while
// it reads; held, kept for the run) and of the split (sink), as
// memory.Options' SourceLoad, Held and Sink.
type MemorySizer interface {
	SyncMemory(sg *Subgraph, o Options) (load, held, sink []memory.Part)
}

// FileSource is implemented by sources that read the graph from a file:
// the estimate counts the reader's buffers (memory.Options.FromFile).
type FileSource interface {
	FromFile() bool
}

// MemoryOptions are the options of memory.Predict for a run of o on g:
// the engine's options as the run scores with (memory.ForGraph, Since
// when a saved state was read into o.Score.Since; without g, a graph
// known by its counts only, memory.ForEngine, and Since when the run
// would read one: OnlyChanged, not Full). The one owner of the estimate of
// a run, which the guard completes with what the source holds.
func MemoryOptions(g *graph.Graph, o Options) memory.Options {
	o.splitDefaults()
	if g != nil {
		return memory.ForGraph(g, o.Score)
	}
	mo := memory.ForEngine(o.Score)
	mo.Since = mo.Since || (o.OnlyChanged && !o.Full)
	return mo
}

// check estimates the run's peak memory and refuses it (ErrMemory) when
// it exceeds the limit; it returns the estimate. A run with Duplicates is
// estimated as the duplicates command's (dedup.Predict).
func (m MemoryGuard) check(src Source, sg *Subgraph, o Options, log *slog.Logger) (memory.Estimate, error) {
	g := sg.Graph
	// The engine's options as score will run them, on the pulled targets
	// and context.
	o.Score.Targets, o.Score.Context = sg.Targets, sg.Context
	mo := MemoryOptions(g, o)
	if o.Duplicates != nil { // not scored: the context holds only its own
		mo.Held = memory.HeldByContext(g, o.Score)
	}
	if fs, ok := src.(FileSource); ok {
		mo.FromFile = fs.FromFile()
	}
	if ms, ok := src.(MemorySizer); ok {
		var held []memory.Part
		mo.SourceLoad, held, mo.Sink = ms.SyncMemory(sg, o)
		mo.Held = append(mo.Held, held...)
	}
	var est memory.Estimate
	if d := o.Duplicates; d != nil {
		targets, _ := fondue.CountTargets(g, sg.Targets)
		est = dedup.Predict(int64(g.NumNodes()), int64(g.NumEdges()), int64(targets), d.Find, mo)
	} else {
		est = memory.Predict(int64(g.NumNodes()), int64(g.NumEdges()), mo)
	}
	limit := m.Limit
	switch {
	case limit == 0:
		limit = memory.Available()
	case limit < 0:
		limit = 0
	}
	if m.Estimated != nil {
		m.Estimated(est, limit)
	}
	log.Debug("memory estimate", "phase", "pull", "peak_bytes", est.Peak, "least_bytes", est.Least, "limit_bytes", limit)
	if err := est.CheckMemory(limit); err != nil {
		return est, Errorf(ErrMemory, nil, "%s", err.Error())
	}
	return est, nil
}
