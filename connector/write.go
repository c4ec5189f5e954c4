package connector

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// WriteScores writes res (computed on sg.Graph) back to the nodes of sg (to
// sg.Targets only, when set: context nodes are left alone), in batches of
// UNWIND (lists of ids, keys and values), each its own transaction, retried
// on transient failures.
// Writes are idempotent: writing the same result again gives the same
// graph, so an interrupted write is completed by running it again. Nodes
// are matched by internal id and, with a key property, re-checked by key
// (and by the write labels, else the pulled labels), so a node deleted
// since the pull is counted in Missing, never confused with another.
func (c *Conn) WriteScores(ctx context.Context, sg *syncjob.Subgraph, res *fondue.Result, o syncjob.WriteOptions) (syncjob.WriteStats, error) {
	t0 := time.Now()
	o = writeDefaults(o)
	n := sg.Graph.NumNodes()
	if len(res.Ambiguity) != n || len(res.Scores) != n || (o.EntitiesProperty != "" && len(res.Entities) != n) {
		return syncjob.WriteStats{}, fmt.Errorf("connector: result for %d nodes, subgraph has %d", len(res.Scores), n)
	}
	if o.EmbeddingProperty != "" && res.Embedding == nil {
		return syncjob.WriteStats{}, errorf(syncjob.ErrInvalid, nil, "%s: method %q has no embedding to write", syncjob.OptWriteEmbeddingProperty, res.Method)
	}
	w, err := c.newScoreWriter(sg, res, o)
	if err != nil {
		return syncjob.WriteStats{}, err
	}
	c.log.Debug("writing scores", "statement", w.q, "nodes", n, "batch_size", o.BatchSize, "concurrency", o.Concurrency)
	st, err := w.run(ctx)
	st.Duration = time.Since(t0)
	if err != nil {
		return st, err
	}
	if st.Missing > 0 {
		c.log.Warn("nodes not found while writing, so not written: deleted since the pull, or their key or labels changed",
			"missing", st.Missing, "examples", fmt.Sprint(st.MissingKeys[:min(len(st.MissingKeys), 10)]))
	}
	return st, nil
}

func writeDefaults(o syncjob.WriteOptions) syncjob.WriteOptions {
	if o.Property == "" {
		o.Property = syncjob.DefaultWriteProperty
	}
	if o.BatchSize <= 0 {
		o.BatchSize = syncjob.DefaultBatchSize
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	return o
}

// scoreWriter is one WriteScores: its statements, and the batches'
// results gathered so far.
type scoreWriter struct {
	c        *Conn
	sg       *syncjob.Subgraph
	res      *fondue.Result
	o        syncjob.WriteOptions
	q        string // writes a batch's rows
	missingQ string // names the rows of a batch whose node was not found
	nodes    []int  // the nodes to write (sg.Targets), nil: every node
	n, nb    int    // nodes to write, batches
	props    int    // score properties per scored node

	mu    sync.Mutex
	st    syncjob.WriteStats
	done  int
	first error
}

// newScoreWriter renders the write statements: nodes are matched by
// element id and, with a key property, re-checked by key and labels (the
// write labels, else the pulled labels of a native projection).
func (c *Conn) newScoreWriter(sg *syncjob.Subgraph, res *fondue.Result, o syncjob.WriteOptions) (*scoreWriter, error) {
	labels := sg.Options.WriteNodeLabels
	if len(labels) == 0 && !sg.Options.Custom() {
		labels = sg.Options.NodeLabels
	}
	q, err := c.render("write_scores", cypher.Vars{IDProperty: sg.Options.IDProperty, NodeLabels: labels,
		WriteProperty: o.Property, ScoreProperty: o.ScoreProperty, EntitiesProperty: o.EntitiesProperty, RunProperty: o.RunProperty,
		EmbeddingProperty: o.EmbeddingProperty})
	if err != nil {
		return nil, err
	}
	missingQ, err := c.render("write_missing", cypher.Vars{IDProperty: sg.Options.IDProperty, NodeLabels: labels})
	if err != nil {
		return nil, err
	}
	var nodes []int
	n := sg.Graph.NumNodes()
	if sg.Targets != nil {
		nodes = make([]int, 0, n)
		for i, ok := range sg.Targets {
			if ok {
				nodes = append(nodes, i)
			}
		}
		n = len(nodes)
	}
	w := &scoreWriter{c: c, sg: sg, res: res, o: o, q: q, missingQ: missingQ, nodes: nodes, n: n,
		nb: (n + o.BatchSize - 1) / o.BatchSize, props: 1}
	if o.ScoreProperty != "" {
		w.props++
	}
	if o.EntitiesProperty != "" {
		w.props++
	}
	return w, nil
}

// run writes the batches with o.Concurrency workers; the first failure
// cancels the others.
func (w *scoreWriter) run(ctx context.Context) (syncjob.WriteStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan int)
	var wg sync.WaitGroup
	for range min(w.o.Concurrency, w.nb) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w.c.session(ctx, neo4j.AccessModeWrite)
			defer s.Close(context.WithoutCancel(ctx))
			for b := range batches {
				br, err := w.writeBatch(ctx, s, b)
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
		return w.st, w.first
	}
	return w.st, ctx.Err()
}

// bounds are the positions [lo, hi) of batch b among the nodes to write.
func (w *scoreWriter) bounds(b int) (lo, hi int) {
	return b * w.o.BatchSize, min(w.n, (b+1)*w.o.BatchSize)
}

// node is the graph node at position k of the nodes to write.
func (w *scoreWriter) node(k int) int {
	if w.nodes == nil {
		return k
	}
	return w.nodes[k]
}

// params are the parameters of batch b: per node (a list per column) its
// element id, key, ambiguity, raw score, entities and embedding (null where
// the node has no score), and the run id.
func (w *scoreWriter) params(b int) map[string]any {
	lo, hi := w.bounds(b)
	sg, res, o := w.sg, w.res, w.o
	n := hi - lo
	ids, amb := make([]any, n), make([]any, n)
	var keys, scores, entities, embs []any
	if sg.Keys != nil {
		keys = make([]any, n)
	}
	if o.ScoreProperty != "" {
		scores = make([]any, n)
	}
	if o.EntitiesProperty != "" {
		entities = make([]any, n)
	}
	if o.EmbeddingProperty != "" {
		embs = make([]any, n)
	}
	for k := range n {
		i := w.node(lo + k)
		ids[k], amb[k] = sg.IDs[i].Value(), nullNaN(res.Ambiguity[i])
		if keys != nil {
			keys[k] = sg.Keys[i].Value()
		}
		if scores != nil {
			scores[k] = nullNaN(res.Scores[i])
		}
		scored := !math.IsNaN(res.Scores[i])
		if entities != nil && scored {
			entities[k] = int64(res.Entities[i])
		}
		if embs != nil && scored {
			embs[k] = slices.Clone(res.Embedding.Row(i))
		}
	}
	return map[string]any{"ids": ids, "keys": keys, "ambiguity": amb, "scores": scores, "entities": entities, "embeddings": embs, "run": w.o.RunID}
}

// writeBatch writes batch b in one transaction (retried by the driver),
// after the lock's fence, and names the nodes it did not find.
func (w *scoreWriter) writeBatch(ctx context.Context, s neo4j.SessionWithContext, b int) (batchResult, error) {
	params := w.params(b)
	lo, hi := w.bounds(b)
	out, err := w.c.writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
		r, err := tx.Run(ctx, w.q, params)
		if err != nil {
			return nil, err
		}
		rec, err := r.Single(ctx)
		if err != nil {
			return nil, err
		}
		written, _, err := neo4j.GetRecordValue[int64](rec, "written")
		if err != nil {
			return nil, err
		}
		scored, _, err := neo4j.GetRecordValue[int64](rec, "scored")
		if err != nil {
			return nil, err
		}
		br := batchResult{int(written), int(scored), nil}
		if br.written != hi-lo {
			// Some nodes were not found: name them (rare).
			if br.missing, err = w.missing(ctx, tx, params); err != nil {
				return nil, err
			}
		}
		// The fence comes last: the lock node's write lock is then held
		// for the commit only, and batches written at once (concurrency)
		// do not wait for each other; a batch that finds the lock lost is
		// rolled back.
		if err := w.c.checkFence(ctx, tx, fmt.Sprintf("writing batch %d of %d", b+1, w.nb)); err != nil {
			return nil, err
		}
		return br, nil
	}, neo4j.WithTxMetadata(map[string]any{"app": "fondue-neo4j", "run": w.o.RunID}))
	if err != nil {
		return batchResult{}, err
	}
	return out.(batchResult), nil
}

// missing names the rows of a batch whose node was not found.
func (w *scoreWriter) missing(ctx context.Context, tx neo4j.ManagedTransaction, params map[string]any) ([]keys.Key, error) {
	r, err := tx.Run(ctx, w.missingQ, params)
	if err != nil {
		return nil, err
	}
	recs, err := r.Collect(ctx)
	if err != nil {
		return nil, err
	}
	var missing []keys.Key
	for _, m := range recs {
		missing = append(missing, idOf(m.Values[0])) // a key or element id of params
	}
	return missing, nil
}

// record adds batch b's result to the stats and reports progress; the
// first failure is kept and cancels the write.
func (w *scoreWriter) record(b int, br batchResult, err error, cancel context.CancelFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	lo, hi := w.bounds(b)
	if err != nil {
		if w.first == nil {
			w.first = w.c.classify(err, fmt.Sprintf("write batch %d of %d (nodes %d to %d)", b+1, w.nb, lo, hi-1))
			cancel()
		}
		return
	}
	w.st.Batches++
	w.st.Nodes += br.written
	w.st.Missing += (hi - lo) - br.written
	w.st.PropertiesWritten += br.scored * w.props
	for _, k := range br.missing {
		if len(w.st.MissingKeys) < 100 {
			w.st.MissingKeys = append(w.st.MissingKeys, k)
		}
	}
	w.done += hi - lo
	if w.o.Progress != nil {
		w.o.Progress(w.done, w.n)
	}
}

type batchResult struct {
	written, scored int
	missing         []keys.Key
}

func nullNaN(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}
