package scale

// Live KG cases (neo4j:kg:NODES:DEGREE): the KG case's import files
// (kg.go) bulk-imported into each test server, then synced by each binary
// (the authors scored, the papers' years as evidence, the top nodes split)
// and undone: the job's peak resident size against its memory estimate,
// and the phases' times. No GDS reference and no bit-for-bit check here:
// the kg case scores the same files.

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// kgGraphArgs are sync's flags for a KG case's graph.
var kgGraphArgs = []string{"--node-labels", "Author,Paper,Venue,Keyword", "--relationship-types", "WROTE,PUBLISHED_IN,HAS_KEYWORD",
	"--id-property", "uid", "--write-node-labels", "Author", "--evidence-properties", "year"}

// executeLiveKG measures a live KG case on each server.
func executeLiveKG(ctx context.Context, cfg Config, c Case, p *prepared, res *Results, logf func(string, ...any)) error {
	bins := [][2]string{{BinaryMain, cfg.Binary}}
	if cfg.Baseline != "" {
		bins = append(bins, [2]string{BinaryBaseline, cfg.Baseline})
	}
	for _, v := range cfg.Live.Versions {
		if err := liveKGOnServer(ctx, cfg, c, p, v, bins, res, logf); err != nil {
			return fmt.Errorf("%s on Neo4j %s: %w", c.Name, v.Neo4j, err)
		}
	}
	return nil
}

// liveKGOnServer imports the case into server v, then runs the syncs,
// interleaved by binary, each followed by the undo of its splits.
func liveKGOnServer(ctx context.Context, cfg Config, c Case, p *prepared, v neo4jtest.Version, bins [][2]string, res *Results, logf func(string, ...any)) error {
	lc := cfg.Live
	logf("%s: starting Neo4j %s (heap %s, page cache %s)", c.Name, v.Neo4j, lc.Heap, lc.PageCache)
	srv, err := neo4jtest.Start(ctx, neo4jtest.Options{Version: v, HeapSize: lc.Heap, PageCache: lc.PageCache})
	if err != nil {
		return err
	}
	defer srv.Stop()
	sr := ServerRun{Case: c.Name, Server: v.Neo4j, Heap: lc.Heap, PageCache: lc.PageCache}
	t0 := time.Now()
	st, err := srv.Import(ctx, neo4jtest.ImportOptions{Nodes: []string{p.kgNodes}, Relationships: []string{p.kgRels}})
	if err != nil {
		return err
	}
	sr.ImportS, sr.RestartS = st.Duration.Seconds(), time.Since(t0).Seconds()-st.Duration.Seconds()
	sr.StoreMB = dirMB(filepath.Join(srv.Dir(), "data", "databases", "neo4j"))
	d, err := srv.Driver()
	if err != nil {
		return err
	}
	r, err := neo4j.ExecuteQuery(ctx, d, "MATCH (n) RETURN count(n) AS n, COUNT { ()-->() } AS r", nil, neo4j.EagerResultTransformer)
	if err != nil {
		return err
	}
	sr.Nodes, sr.Relationships = int(r.Records[0].Values[0].(int64)), int(r.Records[0].Values[1].(int64))
	logf("%s on %s: imported %d nodes, %d relationships in %.1fs (store %.0f MB)", c.Name, v.Neo4j, sr.Nodes, sr.Relationships, sr.ImportS, sr.StoreMB)
	res.Servers = append(res.Servers, sr)
	if lc.Nights {
		return runNightsKG(ctx, cfg, srv, d, c, p, res, logf)
	}
	for rep := 0; rep < cfg.Repeats; rep++ {
		for _, b := range bins {
			var extra []string
			if b[0] == BinaryMain {
				extra = lc.SyncArgs
			}
			runID := fmt.Sprintf("bench-%s-%d", b[0], rep+1)
			lr, err := runSync(ctx, cfg, srv, c, b, rep, runID, append([]string{"--split", "--split-top", strconv.Itoa(lc.SplitTop)}, extra...), true)
			if err != nil {
				return fmt.Errorf("sync (%s): %w", b[0], err)
			}
			if err := runUndo(ctx, cfg, srv, b, runID, &lr); err != nil {
				return fmt.Errorf("undo (%s): %w", b[0], err)
			}
			logf("%s on %s, %s #%d: sync %.1fs (pull %.1f, compute %.1f, write %.1f, split %.1f), undo %.1fs; peak job %.0f MB, estimate %.0f MB (%.2f); server %.0f MB",
				c.Name, v.Neo4j, b[0], rep+1, lr.WallS, lr.PullS, lr.ComputeS, lr.WriteS, lr.SplitS, lr.UndoS,
				lr.JobPeakRSSMB, lr.EstimateMB, lr.JobPeakRSSMB/lr.EstimateMB, lr.ServerPeakRSSMB)
			res.Live = append(res.Live, lr)
		}
	}
	return nil
}
