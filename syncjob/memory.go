package syncjob

import (
	"log/slog"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
)

// MemoryGuard refuses a sync whose estimated peak memory (memory.Predict
// of the pulled graph, the engine's options and, from a MemorySizer
// store, the store's buffers) exceeds a limit. The zero value guards with
// the memory available to the process.
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

// MemorySizer is implemented by stores whose pull and split hold memory
// besides the engine's: the buffers of the pull (load, while it reads;
// held, kept for the run) and of the split (sink), as memory.Options'
// SourceLoad, Held and Sink.
type MemorySizer interface {
	SyncMemory(sg *Subgraph, o Options) (load, held, sink []memory.Part)
}

// check estimates the run's peak memory and refuses it (ErrMemory) when
// it exceeds the limit; it returns the estimate. A run with Duplicates is
// estimated as the duplicates command's (dedup.Predict).
func (m MemoryGuard) check(st Store, sg *Subgraph, o Options, log *slog.Logger) (memory.Estimate, error) {
	g := sg.Graph
	// The engine's options as score will run them (o.Score.Split has a
	// splitter exactly with o.Split), on the pulled targets and context.
	so := o.Score
	so.Targets, so.Context = sg.Targets, sg.Context
	mo := memory.ForGraph(g, so)
	// A job with a state file reads it and runs incrementally from it
	// unless Full (the cmd's loadsState, from the same settings).
	mo.Since = o.OnlyChanged && !o.Full
	if o.Duplicates != nil { // not scored: the context holds only its own
		mo.Held = memory.HeldByContext(g, so)
	}
	if ms, ok := st.(MemorySizer); ok {
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
	log.Debug("memory estimate", "phase", "pull", "peak_bytes", est.Peak, "limit_bytes", limit)
	if err := est.CheckMemory(limit); err != nil {
		return est, Errorf(ErrMemory, nil, "%s", err.Error())
	}
	return est, nil
}
