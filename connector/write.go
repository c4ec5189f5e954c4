package connector

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Defaults of WriteOptions.
const (
	DefaultWriteProperty = "ambiguity"
	DefaultScoreProperty = "ambiguity_score"
	DefaultRunProperty   = "fondue_run"
	DefaultBatchSize     = 10000
)

// WriteOptions configure WriteScores.
type WriteOptions struct {
	// Property receives each node's ambiguity, its percentile in (0, 1]
	// (fondue.Result.Ambiguity): "ambiguity > 0.99" is the top 1%.
	Property string
	// ScoreProperty receives the raw score (fondue.Result.Scores); empty:
	// not written.
	ScoreProperty string
	// RunProperty receives RunID; empty: not written.
	RunProperty string
	RunID       string
	// BatchSize is the number of nodes per transaction (default 10,000).
	BatchSize int
	// Concurrency is the number of batches written at once (default 1).
	// Batches touch disjoint nodes, so they cannot deadlock.
	Concurrency int
	// EmbeddingProperty, when set, receives each node's embedding vector
	// from the result (for the next run's warm start; nodes without a score
	// get none).
	EmbeddingProperty string
	// Progress, when set, is called after each batch with the nodes written
	// so far and the total (from one goroutine at a time).
	Progress func(done, total int)
}

// WriteStats describe a write, in GDS terms.
type WriteStats struct {
	// Nodes is the number of nodes found and written.
	Nodes int
	// PropertiesWritten counts the score properties set (ambiguity and raw
	// score; not the run id). Isolated nodes have no score: their score
	// properties are removed instead.
	PropertiesWritten int
	// Missing counts nodes that were not found any more (deleted since the
	// pull, or their key or labels changed); MissingKeys names some of them
	// (keys, or element ids; at most 100).
	Missing     int
	MissingKeys []any
	Batches     int
	Duration    time.Duration
}

// WriteScores writes res (computed on sg.Graph) back to the nodes of sg, in
// batches of UNWIND $rows, each its own transaction, retried on transient
// failures. Writes are idempotent: writing the same result again gives the
// same graph, so an interrupted write is completed by running it again.
// Nodes are matched by internal id and, with a key property, re-checked by
// key, so a node deleted since the pull is counted in Missing, never
// confused with another.
func (c *Conn) WriteScores(ctx context.Context, sg *Subgraph, res *fondue.Result, o WriteOptions) (WriteStats, error) {
	t0 := time.Now()
	if o.Property == "" {
		o.Property = DefaultWriteProperty
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	n := sg.Graph.NumNodes()
	if len(res.Ambiguity) != n || len(res.Scores) != n {
		return WriteStats{}, fmt.Errorf("connector: result for %d nodes, subgraph has %d", len(res.Scores), n)
	}
	if o.EmbeddingProperty != "" && res.Embedding == nil {
		return WriteStats{}, errorf(ErrInvalid, nil, "embedding.property: method %q has no embedding to write", res.Method)
	}
	var labels []string
	if !sg.Options.Custom() {
		labels = sg.Options.NodeLabels
	}
	q, err := c.render("write_scores", cypher.Vars{IDProperty: sg.Options.IDProperty, NodeLabels: labels,
		WriteProperty: o.Property, ScoreProperty: o.ScoreProperty, RunProperty: o.RunProperty,
		EmbeddingProperty: o.EmbeddingProperty})
	if err != nil {
		return WriteStats{}, err
	}
	missingQ, err := c.render("write_missing", cypher.Vars{IDProperty: sg.Options.IDProperty, NodeLabels: labels})
	if err != nil {
		return WriteStats{}, err
	}
	c.log.Debug("writing scores", "statement", q, "nodes", n, "batch_size", o.BatchSize, "concurrency", o.Concurrency)

	nb := (n + o.BatchSize - 1) / o.BatchSize
	props := 1
	if o.ScoreProperty != "" {
		props = 2
	}
	var (
		mu    sync.Mutex
		st    WriteStats
		done  int
		first error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(o.Concurrency, nb); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := c.session(ctx, neo4j.AccessModeWrite)
			defer s.Close(context.WithoutCancel(ctx))
			for b := range batches {
				lo, hi := b*o.BatchSize, min(n, (b+1)*o.BatchSize)
				rows := make([]map[string]any, 0, hi-lo)
				for i := lo; i < hi; i++ {
					row := map[string]any{"id": sg.IDs[i], "ambiguity": nullNaN(res.Ambiguity[i])}
					if sg.Keys != nil {
						row["key"] = sg.Keys[i]
					}
					if o.ScoreProperty != "" {
						row["score"] = nullNaN(res.Scores[i])
					}
					if o.EmbeddingProperty != "" {
						row["embedding"] = nil
						if !math.IsNaN(res.Scores[i]) {
							row["embedding"] = slices.Clone(res.Embedding.Row(i))
						}
					}
					rows = append(rows, row)
				}
				params := map[string]any{"rows": rows, "run": o.RunID}
				out, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
					if err := c.checkFence(ctx, tx, fmt.Sprintf("writing batch %d of %d", b+1, nb)); err != nil {
						return nil, err
					}
					r, err := tx.Run(ctx, q, params)
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
					if err != nil || int(written) == len(rows) {
						return batchResult{int(written), int(scored), nil}, err
					}
					// Some nodes were not found: name them (rare).
					r, err = tx.Run(ctx, missingQ, params)
					if err != nil {
						return nil, err
					}
					recs, err := r.Collect(ctx)
					if err != nil {
						return nil, err
					}
					var missing []any
					for _, m := range recs {
						missing = append(missing, m.Values[0])
					}
					return batchResult{int(written), int(scored), missing}, nil
				}, neo4j.WithTxMetadata(map[string]any{"app": "fondue-neo4j", "run": o.RunID}))
				mu.Lock()
				if err != nil {
					if first == nil {
						first = c.classify(err, fmt.Sprintf("write batch %d of %d (nodes %d to %d)", b+1, nb, lo, hi-1))
						cancel()
					}
					mu.Unlock()
					continue
				}
				br := out.(batchResult)
				st.Batches++
				st.Nodes += br.written
				st.Missing += (hi - lo) - br.written
				st.PropertiesWritten += br.scored * props
				for _, k := range br.missing {
					if len(st.MissingKeys) < 100 {
						st.MissingKeys = append(st.MissingKeys, k)
					}
				}
				done += hi - lo
				if o.Progress != nil {
					o.Progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
	for b := 0; b < nb && ctx.Err() == nil; b++ {
		select {
		case batches <- b:
		case <-ctx.Done():
		}
	}
	close(batches)
	wg.Wait()
	st.Duration = time.Since(t0)
	if first != nil {
		return st, first
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if st.Missing > 0 {
		c.log.Warn("nodes not found while writing, so not written: deleted since the pull, or their key or labels changed",
			"missing", st.Missing, "examples", fmt.Sprint(st.MissingKeys[:min(len(st.MissingKeys), 10)]))
	}
	return st, nil
}

type batchResult struct {
	written, scored int
	missing         []any
}

func nullNaN(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}
