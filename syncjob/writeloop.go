package syncjob

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// WriteScores writes res (computed on sg.Graph) to the nodes of sg: to
// its Targets when they are set, leaving every other node (the context)
// alone, properties and all; in batches of o.BatchSize (Sink.WriteBatch),
// o.Concurrency at once (batches touch disjoint nodes, so they cannot
// deadlock). Writes are idempotent: an interrupted write is completed by
// running it again. Nodes gone since the pull (or no longer carrying a
// write label) are counted in WriteStats.Missing. The first failure stops
// the other batches. Unless o.All, a node whose values read back by the
// pull (PullOptions.ReadBack) are the computed ones, within
// AmbiguityTolerance, is not written (WriteStats.Unchanged).
func WriteScores(ctx context.Context, st Sink, sg *Subgraph, res *fondue.Result, o WriteOptions, log *slog.Logger) (WriteStats, error) {
	t0 := time.Now()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Property == "" {
		o.Property = DefaultWriteProperty
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultWriteConcurrency
	}
	n := sg.Graph.NumNodes()
	if len(res.Ambiguity) != n || len(res.Scores) != n || (o.EntitiesProperty != "" && len(res.Entities) != n) {
		return WriteStats{}, fmt.Errorf("syncjob: result for %d nodes, subgraph has %d", len(res.Scores), n)
	}
	if o.EmbeddingProperty != "" && res.Embedding == nil {
		return WriteStats{}, Errorf(ErrInvalid, nil, "method %q has no embedding to write to the embedding property", res.Method)
	}
	w := newScoreWriter(st, sg, res, o)
	ws, err := w.run(ctx)
	ws.Duration = time.Since(t0)
	if err != nil {
		return ws, err
	}
	if ws.Missing > 0 {
		log.Warn("nodes not found while writing, so not written: deleted since the pull, or their key or labels changed",
			"missing", ws.Missing, "examples", fmt.Sprint(ws.MissingKeys[:min(len(ws.MissingKeys), 10)]))
	}
	return ws, nil
}

// scoreWriter is one WriteScores: the batches' results gathered so far.
type scoreWriter struct {
	st     Sink
	sg     *Subgraph
	res    *fondue.Result
	o      WriteOptions
	labels []string // a node must still have one
	props  []string // the properties written, the ambiguity first
	scored int      // score properties per scored node
	nodes  []int    // the nodes to write (sg.Targets)
	nb     int      // batches

	mu    sync.Mutex
	ws    WriteStats
	done  int
	first error
}

func newScoreWriter(st Sink, sg *Subgraph, res *fondue.Result, o WriteOptions) *scoreWriter {
	w := &scoreWriter{st: st, sg: sg, res: res, o: o, labels: sg.Options.WriteNodeLabels, props: []string{o.Property}, scored: 1}
	if len(w.labels) == 0 && !sg.Options.Custom() {
		w.labels = sg.Options.NodeLabels
	}
	for _, p := range []string{o.ScoreProperty, o.EntitiesProperty} {
		if p != "" {
			w.props = append(w.props, p)
			w.scored++
		}
	}
	for _, p := range []string{o.RunProperty, o.EmbeddingProperty} {
		if p != "" {
			w.props = append(w.props, p)
		}
	}
	same := w.unchanged()
	for i := range sg.Graph.NumNodes() {
		switch {
		case !sg.IsTarget(i):
		case same != nil && same(i):
			w.ws.Unchanged++
		default:
			w.nodes = append(w.nodes, i)
		}
	}
	w.ws.Compared = same != nil
	w.nb = (len(w.nodes) + o.BatchSize - 1) / o.BatchSize
	return w
}

// unchanged returns whether node i holds its computed values already (see
// AmbiguityTolerance), or nil when that cannot be told: o.All, or the
// pull did not read every written value back.
func (w *scoreWriter) unchanged() func(i int) bool {
	sg, res, o := w.sg, w.res, w.o
	if o.All || sg.ReadBack == nil {
		return nil
	}
	col := func(p string) []float64 {
		if k := slices.Index(sg.Options.ReadBack, p); k >= 0 && k < len(sg.ReadBack) {
			return sg.ReadBack[k]
		}
		return nil
	}
	amb, sc, ent := col(o.Property), col(o.ScoreProperty), col(o.EntitiesProperty)
	switch {
	case amb == nil, o.ScoreProperty != "" && sc == nil, o.EntitiesProperty != "" && ent == nil,
		o.EmbeddingProperty != "" && sg.Embeddings == nil:
		return nil
	}
	return func(i int) bool {
		scored := !math.IsNaN(res.Scores[i])
		switch {
		case !AmbiguityUnchanged(amb[i], res.Ambiguity[i]):
			return false
		case sc != nil && math.IsNaN(sc[i]) != math.IsNaN(res.Scores[i]):
			return false // a raw score missing (removed by hand), or one to remove
		case ent != nil && scored && ent[i] != float64(res.Entities[i]):
			return false
		case ent != nil && !scored && !math.IsNaN(ent[i]):
			return false
		case o.EmbeddingProperty != "" && scored && !slices.Equal(sg.Embeddings[i], res.Embedding.Row(i)):
			return false
		case o.EmbeddingProperty != "" && !scored && sg.Embeddings[i] != nil:
			return false
		}
		return true
	}
}

// run writes the batches with o.Concurrency workers; the first failure
// cancels the others.
func (w *scoreWriter) run(ctx context.Context) (WriteStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan int)
	var wg sync.WaitGroup
	for range min(w.o.Concurrency, w.nb) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				br, err := w.st.WriteBatch(ctx, w.batch(b))
				w.record(b, br, err, cancel)
			}
		}()
	}
	for b := 0; b < w.nb && ctx.Err() == nil; b++ {
		select {
		case batches <- b:
		case <-ctx.Done():
		}
	}
	close(batches)
	wg.Wait()
	if w.first != nil {
		return w.ws, w.first
	}
	return w.ws, ctx.Err()
}

// bounds are the positions [lo, hi) of batch b among the nodes to write.
func (w *scoreWriter) bounds(b int) (lo, hi int) {
	return b * w.o.BatchSize, min(len(w.nodes), (b+1)*w.o.BatchSize)
}

// batch is batch b: per node its id, key, ambiguity, raw score, entities,
// run id and embedding (nil where the node has no score).
func (w *scoreWriter) batch(b int) *Batch {
	lo, hi := w.bounds(b)
	sg, res, o := w.sg, w.res, w.o
	bt := &Batch{IDs: make([]keys.Key, hi-lo), Labels: w.labels, Props: w.props, Values: make([][]any, len(w.props)),
		Doing: fmt.Sprintf("writing batch %d of %d", b+1, w.nb)}
	if sg.Keys != nil {
		bt.KeyProperty, bt.Keys = sg.Options.IDProperty, make([]keys.Key, hi-lo)
	}
	for k := range bt.Values {
		bt.Values[k] = make([]any, hi-lo)
	}
	for k := range hi - lo {
		i := w.nodes[lo+k]
		bt.IDs[k] = sg.IDs[i]
		if bt.Keys != nil {
			bt.Keys[k] = sg.Keys[i]
		}
		scored := !math.IsNaN(res.Scores[i])
		c := 0
		col := func(v any) { bt.Values[c][k] = v; c++ }
		col(nullNaN(res.Ambiguity[i]))
		if o.ScoreProperty != "" {
			col(nullNaN(res.Scores[i]))
		}
		if o.EntitiesProperty != "" {
			var v any
			if scored {
				v = int64(res.Entities[i])
			}
			col(v)
		}
		if o.RunProperty != "" {
			col(o.RunID)
		}
		if o.EmbeddingProperty != "" {
			var v any
			if scored {
				v = slices.Clone(res.Embedding.Row(i))
			}
			col(v)
		}
	}
	return bt
}

// record adds batch b's result to the stats and reports progress; the
// first failure is kept and cancels the write.
func (w *scoreWriter) record(b int, br BatchResult, err error, cancel context.CancelFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	lo, hi := w.bounds(b)
	if err != nil {
		if w.first == nil {
			w.first = err
			cancel()
		}
		return
	}
	w.ws.Batches++
	w.ws.Nodes += br.Written
	w.ws.Missing += (hi - lo) - br.Written
	w.ws.PropertiesWritten += br.Set * w.scored
	for _, k := range br.Missing {
		if len(w.ws.MissingKeys) < 100 {
			w.ws.MissingKeys = append(w.ws.MissingKeys, k)
		}
	}
	w.done += hi - lo
	if w.o.Progress != nil {
		w.o.Progress(w.done, len(w.nodes))
	}
}

func nullNaN(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}
