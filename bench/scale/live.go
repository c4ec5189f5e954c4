package scale

// Live cases (neo4j:sbm:NODES:DEGREE): the same generated graph as the
// sbm case, bulk-imported into each test server (neo4j-admin database
// import full), then synced end to end by the fondue-neo4j binaries in
// child processes (pull, compute, write, split; then undo), with per phase
// the wall time and the CPU seconds of the job and of the server, both
// peaks, the planted nodes' AUC, and the scores checked bit for bit against
// score's on the graph's edge list. GDS on the same server (projection,
// write mode) is measured for reference.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The names of the imported graph: every node is a (:Node {uid}), every
// edge a [:LINK] from the smaller key to the larger.
const (
	liveLabel    = "Node"
	liveType     = "LINK"
	liveProperty = "uid"
)

// LiveConfig configures the live cases.
type LiveConfig struct {
	// Versions are the servers to run on (default neo4jtest.Versions).
	Versions []neo4jtest.Version
	// Heap and PageCache size each server (defaults "2g" and "1g").
	Heap, PageCache string
	// SplitTop is sync's --split-top (default 1000); score runs with the
	// same --split-top, so that both compute the same.
	SplitTop int
	// SyncArgs are added to every sync of the measured binary (not of the
	// baseline), e.g. a lever such as --write-concurrency 2.
	SyncArgs []string
	// Faults runs the scenarios of Faults after the measurements (kill -9
	// mid-write and mid-split, then a re-run; a long compute holding the
	// lock against a second run), on each server.
	Faults bool
	// FaultEpochs are the epochs of the long compute (no early stop);
	// 0, the default, takes as many as a compute of 2.5 lock TTLs (five
	// minutes) needs at the speed of the case's score runs (CNE seconds
	// per epoch; 400 when there are none).
	FaultEpochs int
	// GDSRepeats is the number of runs of each GDS reference (default 3).
	GDSRepeats int
	// Nights runs, instead of GDS and the measured syncs, the nightly
	// scenario (runNights): a first night, then second nights after 0%,
	// 0.1% and 1% of the relationships changed, with a state file (on a
	// KG case runNightsKG: the WROTE relationships, and the syncs only).
	Nights bool
	// LogDir, when set, keeps each sync's log there, as RUNID-SERVER.log.
	LogDir string
}

func (l *LiveConfig) defaults() {
	if len(l.Versions) == 0 {
		l.Versions = neo4jtest.Versions
	}
	if l.Heap == "" {
		l.Heap = "2g"
	}
	if l.PageCache == "" {
		l.PageCache = "1g"
	}
	if l.SplitTop <= 0 {
		l.SplitTop = 1000
	}
	if l.GDSRepeats <= 0 {
		l.GDSRepeats = 3
	}
}

// PhaseCPU are CPU seconds per phase of a sync: pull (with connecting and
// the lock), compute, write, split (with storing the plan), the rest of
// the command (releasing the lock, exit), and the undo command.
type PhaseCPU struct {
	Pull    float64 `json:"pull"`
	Compute float64 `json:"compute"`
	Write   float64 `json:"write"`
	Split   float64 `json:"split"`
	Rest    float64 `json:"rest"`
	Undo    float64 `json:"undo"`
}

// Total is the CPU of the sync command (undo excluded).
func (p PhaseCPU) Total() float64 { return p.Pull + p.Compute + p.Write + p.Split + p.Rest }

// LiveRun is one sync, and the undo of its splits, against a live server.
type LiveRun struct {
	Case          string `json:"case"`
	Server        string `json:"server"` // Neo4j version
	Binary        string `json:"binary"`
	Repeat        int    `json:"repeat"`
	Nodes         int    `json:"nodes"`
	Relationships int    `json:"relationships"`
	// WallS is the sync command's wall time, start to exit; the phases
	// are the job's own (its summary's milliseconds).
	WallS    float64 `json:"wall_s"`
	PullS    float64 `json:"pull_s"` // connecting, the lock and the pull
	ComputeS float64 `json:"compute_s"`
	WriteS   float64 `json:"write_s"`
	SplitS   float64 `json:"split_s"`
	// ToWriteS is the wall time from the start to the end of the write:
	// what a sync without --split takes.
	ToWriteS  float64  `json:"to_write_s"`
	UndoS     float64  `json:"undo_s"` // the undo command's wall time
	JobCPU    PhaseCPU `json:"job_cpu"`
	ServerCPU PhaseCPU `json:"server_cpu"`
	// JobPeakRSSMB is the job's peak resident size (VmHWM, read every
	// 50 ms while it runs, and the figure it logs itself); EstimateMB its
	// memory estimate. ServerPeakRSSMB is the server's peak during the
	// sync (its VmHWM reset before), ServerRSSMB its size before.
	JobPeakRSSMB    float64 `json:"job_peak_rss_mb"`
	EstimateMB      float64 `json:"estimate_mb"`
	ServerPeakRSSMB float64 `json:"server_peak_rss_mb"`
	ServerRSSMB     float64 `json:"server_rss_mb"`
	Properties      int     `json:"properties_written"`
	Split           int     `json:"split"`
	NodesCreated    int     `json:"nodes_created"`
	Moved           int     `json:"relationships_moved"`
	Undone          int     `json:"undone"`
	AUC             float64 `json:"auc"`
	// Checked says whether the written scores were compared with score's
	// on the edge list; Mismatches counts the nodes whose ambiguity, raw
	// score or entities differ in any bit (or that are missing).
	Checked    bool         `json:"checked"`
	Mismatches int          `json:"mismatches"`
	Reused     bool         `json:"reused,omitempty"`
	Note       string       `json:"note,omitempty"`
	night      nightSummary // the summary's incremental counts (Nights)
}

// ServerRun is what a case cost on one server apart from the syncs: the
// import, and GDS's projection and write mode on the same graph.
type ServerRun struct {
	Case          string  `json:"case"`
	Server        string  `json:"server"`
	Nodes         int     `json:"nodes"`
	Relationships int     `json:"relationships"`
	Heap          string  `json:"heap"`
	PageCache     string  `json:"page_cache"`
	ImportS       float64 `json:"import_s"`  // neo4j-admin database import full
	RestartS      float64 `json:"restart_s"` // stop before and start after the import
	ConstraintS   float64 `json:"constraint_s"`
	StoreMB       float64 `json:"store_mb"` // the database's folder after the import
	// FirstWriteS is the write of the first sync (--method degree), which
	// creates the properties the later ones overwrite.
	FirstWriteS float64 `json:"first_write_s"`
	FirstPullS  float64 `json:"first_pull_s"`
	// GDS on the same server, one value per run: gds.graph.project of the
	// subgraph (NATURAL, as stored), gds.graph.nodeProperties.write of the
	// three numeric properties sync writes (ambiguity, ambiguity_score,
	// ambiguity_entities, projected from the nodes), gds.degree.write of
	// one property.
	GDSProjectS     []float64 `json:"gds_project_s"`
	GDSWrite3S      []float64 `json:"gds_write3_s"`
	GDSDegreeWriteS []float64 `json:"gds_degree_write_s"`
	ServerRSSMB     float64   `json:"server_rss_mb"` // after the GDS references
	Reused          bool      `json:"reused,omitempty"`
}

// Results are everything a run of the bench measured.
type Results struct {
	Runs    []Run       `json:"runs"`
	Live    []LiveRun   `json:"live,omitempty"`
	Servers []ServerRun `json:"servers,omitempty"`
	Faults  []FaultRun  `json:"faults,omitempty"`
	Splits  []SplitRun  `json:"splits,omitempty"` // Config.SplitTop's runs
	Nights  []NightRun  `json:"nights,omitempty"` // LiveConfig.Nights
}

// liveRef are the exact scores of score on a case's edge list, by key.
type liveRef map[string]scoreRow

type scoreRow struct {
	Node      json.RawMessage `json:"node"`
	Ambiguity *float64        `json:"ambiguity"`
	Score     *float64        `json:"score"`
	Entities  *int64          `json:"entities"`
	Degree    *int64          `json:"degree"`
}

// executeLive measures a live case: score on its edge list (no server
// running), then on each server the import, GDS, and the syncs.
func executeLive(ctx context.Context, cfg Config, c Case, p *prepared, res *Results, logf func(string, ...any)) error {
	if c.KG {
		return executeLiveKG(ctx, cfg, c, p, res, logf)
	}
	lc := cfg.Live
	bins := [][2]string{{BinaryMain, cfg.Binary}}
	if cfg.Baseline != "" {
		bins = append(bins, [2]string{BinaryBaseline, cfg.Baseline})
	}
	scoreArgs := []string{"--output", "json", "--split", "--split-top", strconv.Itoa(lc.SplitTop)}
	if lc.Nights {
		// The nights compare with score runs of their own.
		nodesCSV, relsCSV, err := ensureCSV(cfg, c, p)
		if err != nil {
			return err
		}
		for _, v := range lc.Versions {
			if err := liveOnServer(ctx, cfg, c, p, v, bins, nil, nodesCSV, relsCSV, res, false, logf); err != nil {
				return fmt.Errorf("%s on Neo4j %s: %w", c.Name, v.Neo4j, err)
			}
		}
		return nil
	}
	// score on the file: timed runs (unless reused), and the reference of
	// the bit-for-bit check, kept in the cache per binary.
	var ref liveRef
	refPath, err := refFile(cfg, c, cfg.Binary)
	if err != nil {
		return err
	}
	if b, err := os.ReadFile(refPath); err == nil {
		if ref, err = parseScoreJSON(b); err != nil {
			return fmt.Errorf("%s: %w", refPath, err)
		}
	}
	have := map[string]bool{}
	for _, r := range cfg.Reuse {
		if r.Case == c.Name && !r.DoubleEpochs {
			rr := r
			rr.Reused = true
			res.Runs = append(res.Runs, rr)
			have[r.Binary] = true
		}
	}
	for rep := 0; rep < cfg.Repeats; rep++ {
		for _, b := range bins {
			if have[b[0]] {
				continue
			}
			r, out, err := runScoreOut(ctx, cfg, c, p, b, rep, scoreArgs)
			if err != nil {
				return fmt.Errorf("%s score (%s): %w", c.Name, b[0], err)
			}
			logf("%s score %s #%d: %.1fs wall, %d epochs, %.0f MB peak, AUC %.4f", c.Name, b[0], rep+1, r.WallS, r.Epochs, r.PeakRSSMB, r.AUC)
			res.Runs = append(res.Runs, r)
			if b[0] == BinaryMain && ref == nil {
				if ref, err = parseScoreJSON(out); err != nil {
					return err
				}
				if err := writeFileAtomic(refPath, out); err != nil {
					return err
				}
			}
		}
	}
	if ref == nil {
		// Reused score runs and no reference yet: one untimed run.
		logf("%s: scoring the edge list once more for the bit-for-bit check", c.Name)
		_, out, err := runScoreOut(ctx, cfg, c, p, bins[0], 0, scoreArgs)
		if err != nil {
			return err
		}
		if ref, err = parseScoreJSON(out); err != nil {
			return err
		}
		if err := writeFileAtomic(refPath, out); err != nil {
			return err
		}
	}
	nodesCSV, relsCSV, err := ensureCSV(cfg, c, p)
	if err != nil {
		return err
	}
	for _, v := range lc.Versions {
		reused := reusedLive(cfg, res, c, v)
		if reused && !lc.Faults && !lc.Nights {
			logf("%s on %s: reused from earlier results", c.Name, v.Neo4j)
			continue
		}
		if reused {
			logf("%s on %s: measurements reused from earlier results; the fault scenarios run again", c.Name, v.Neo4j)
		}
		if err := liveOnServer(ctx, cfg, c, p, v, bins, ref, nodesCSV, relsCSV, res, reused, logf); err != nil {
			return fmt.Errorf("%s on Neo4j %s: %w", c.Name, v.Neo4j, err)
		}
	}
	return nil
}

// reusedLive reports a case's live runs on server v from cfg.ReuseLive,
// if it has them.
func reusedLive(cfg Config, res *Results, c Case, v neo4jtest.Version) bool {
	found := false
	for _, s := range cfg.ReuseServers {
		if s.Case == c.Name && s.Server == v.Neo4j {
			s.Reused = true
			res.Servers = append(res.Servers, s)
			found = true
		}
	}
	if !found {
		return false
	}
	for _, r := range cfg.ReuseLive {
		if r.Case == c.Name && r.Server == v.Neo4j {
			r.Reused = true
			res.Live = append(res.Live, r)
		}
	}
	for _, f := range cfg.ReuseFaults {
		if f.Case == c.Name && f.Server == v.Neo4j && !cfg.Live.Faults { // --faults runs them again
			f.Reused = true
			res.Faults = append(res.Faults, f)
		}
	}
	return true
}

// refFile is where the exact scores of binary on case c are kept.
func refFile(cfg Config, c Case, binary string) (string, error) {
	f, err := os.Open(binary)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return filepath.Join(cfg.CacheDir, fmt.Sprintf("%s-r%g-s%d-top%d-%s.scores.json", strings.TrimPrefix(c.Name, "neo4j-"), cfg.Ratio, cfg.Seed,
		cfg.Live.SplitTop, hex.EncodeToString(h.Sum(nil))[:12])), nil
}

func parseScoreJSON(b []byte) (liveRef, error) {
	var rows []scoreRow
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("score's JSON output: %w", err)
	}
	ref := make(liveRef, len(rows))
	for _, r := range rows {
		ref[strings.Trim(string(r.Node), `"`)] = r
	}
	return ref, nil
}

// ensureCSV writes the case's graph as the import's CSV files (cached
// beside its edge list), and sets p's node and edge counts (those of the
// edge list: nodes with an edge).
func ensureCSV(cfg Config, c Case, p *prepared) (nodes, rels string, err error) {
	dir := strings.TrimSuffix(p.edges, ".edges") + ".csv"
	nodes, rels = filepath.Join(dir, "nodes.csv"), filepath.Join(dir, "relationships.csv")
	done := filepath.Join(dir, "done")
	if b, err := os.ReadFile(done); err == nil {
		if _, err := fmt.Sscan(string(b), &p.nodes, &p.edgesN); err == nil {
			return nodes, rels, nil
		}
	}
	g, _, err := edgelist.ReadFile(p.edges, edgelist.HeaderAuto)
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	if nodes, rels, err = testgraph.WriteCSV(g, dir, liveProperty); err != nil {
		return "", "", err
	}
	p.nodes, p.edgesN = g.NumNodes(), g.NumEdges()
	return nodes, rels, os.WriteFile(done, []byte(fmt.Sprintf("%d %d\n", p.nodes, p.edgesN)), 0o644)
}

// liveOnServer runs a case on one server: start, import, constraint, a
// first sync (which creates the written properties), GDS's references,
// then the measured syncs, interleaved by binary, each followed by the
// undo of its splits; then the fault scenarios, if asked. faultsOnly
// (the measurements reused) skips GDS and the measured syncs.
func liveOnServer(ctx context.Context, cfg Config, c Case, p *prepared, v neo4jtest.Version, bins [][2]string, ref liveRef,
	nodesCSV, relsCSV string, res *Results, faultsOnly bool, logf func(string, ...any)) error {
	lc := cfg.Live
	logf("%s: starting Neo4j %s (heap %s, page cache %s)", c.Name, v.Neo4j, lc.Heap, lc.PageCache)
	srv, err := neo4jtest.Start(ctx, neo4jtest.Options{Version: v, HeapSize: lc.Heap, PageCache: lc.PageCache})
	if err != nil {
		return err
	}
	defer srv.Stop()
	sr := ServerRun{Case: c.Name, Server: v.Neo4j, Heap: lc.Heap, PageCache: lc.PageCache}
	t0 := time.Now()
	st, err := srv.Import(ctx, neo4jtest.ImportOptions{Nodes: []string{liveLabel + "=" + nodesCSV},
		Relationships: []string{liveType + "=" + relsCSV}, IDType: "integer"})
	if err != nil {
		return err
	}
	sr.ImportS, sr.RestartS = st.Duration.Seconds(), time.Since(t0).Seconds()-st.Duration.Seconds()
	sr.StoreMB = dirMB(filepath.Join(srv.Dir(), "data", "databases", "neo4j"))
	logf("%s on %s: imported in %.1fs (store %.0f MB)", c.Name, v.Neo4j, sr.ImportS, sr.StoreMB)
	d, err := srv.Driver()
	if err != nil {
		return err
	}
	q := func(stmt string) ([]*neo4j.Record, error) {
		r, err := neo4j.ExecuteQuery(ctx, d, stmt, nil, neo4j.EagerResultTransformer)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
		return r.Records, nil
	}
	t0 = time.Now()
	if _, err := q(fmt.Sprintf("CREATE CONSTRAINT fondue_bench_uid IF NOT EXISTS FOR (n:%s) REQUIRE n.%s IS UNIQUE", liveLabel, liveProperty)); err != nil {
		return err
	}
	if _, err := q("CALL db.awaitIndexes(3600)"); err != nil {
		return err
	}
	sr.ConstraintS = time.Since(t0).Seconds()
	recs, err := q(fmt.Sprintf("MATCH (n:%s) RETURN count(n) AS n, COUNT { ()-[:%s]->() } AS r", liveLabel, liveType))
	if err != nil {
		return err
	}
	sr.Nodes, sr.Relationships = int(recs[0].Values[0].(int64)), int(recs[0].Values[1].(int64))
	if sr.Nodes != p.nodes || sr.Relationships != p.edgesN {
		return fmt.Errorf("the server holds %d nodes and %d relationships after the import, the graph %d and %d", sr.Nodes, sr.Relationships, p.nodes, p.edgesN)
	}

	// The first sync writes the properties the others overwrite (as a
	// nightly job's every run but its first), warms the server up, and
	// gives the first write's cost.
	first, err := runSync(ctx, cfg, srv, c, [2]string{BinaryMain, cfg.Binary}, -1, "bench-first", append([]string{"--method", "degree"}, lc.SyncArgs...), false)
	if err != nil {
		return fmt.Errorf("first sync: %w", err)
	}
	sr.FirstPullS, sr.FirstWriteS = first.PullS, first.WriteS
	logf("%s on %s: first sync (degree): pull %.1fs, write %.1fs", c.Name, v.Neo4j, first.PullS, first.WriteS)

	if lc.Nights {
		return runNights(ctx, cfg, srv, d, c, p, ref, res, logf)
	}
	if faultsOnly {
		fr, err := runFaults(ctx, cfg, srv, c, p, ref, faultEpochs(cfg, res, c), logf)
		res.Faults = append(res.Faults, fr...)
		if err != nil {
			return fmt.Errorf("fault scenarios: %w", err)
		}
		return nil
	}
	scramble := func(props ...string) error {
		return scrambleProps(ctx, d, props...)
	}
	if err := gdsReferences(ctx, q, scramble, &sr, lc.GDSRepeats, logf); err != nil {
		return err
	}
	if rss, err := procMemMB(srv.PID(), "VmRSS"); err == nil {
		sr.ServerRSSMB = rss
	}
	res.Servers = append(res.Servers, sr)

	for rep := 0; rep < cfg.Repeats; rep++ {
		for _, b := range bins {
			var extra []string
			if b[0] == BinaryMain {
				extra = lc.SyncArgs
			}
			runID := fmt.Sprintf("bench-%s-%d", b[0], rep+1)
			// Neo4j does not write a property set to the value it has:
			// every run's write must change every value, as a nightly
			// run's does (the run id changes anyway).
			if err := scramble(scoreProps...); err != nil {
				return err
			}
			lr, err := runSync(ctx, cfg, srv, c, b, rep, runID, append([]string{"--split", "--split-top", strconv.Itoa(lc.SplitTop)}, extra...), true)
			if err != nil {
				return fmt.Errorf("sync (%s): %w", b[0], err)
			}
			if b[0] == BinaryMain && rep == 0 {
				if err := checkScores(ctx, d, ref, p, &lr); err != nil {
					return err
				}
			} else {
				if err := liveAUC(ctx, d, p, &lr); err != nil {
					return err
				}
			}
			if err := runUndo(ctx, cfg, srv, b, runID, &lr); err != nil {
				return fmt.Errorf("undo (%s): %w", b[0], err)
			}
			logf("%s on %s, %s #%d: sync %.1fs (pull %.1f, compute %.1f, write %.1f, split %.1f), undo %.1fs; CPU job %.1f, server %.1f; peaks job %.0f MB (estimate %.0f), server %.0f MB; AUC %.4f; %s",
				c.Name, v.Neo4j, b[0], rep+1, lr.WallS, lr.PullS, lr.ComputeS, lr.WriteS, lr.SplitS, lr.UndoS, lr.JobCPU.Total(), lr.ServerCPU.Total(),
				lr.JobPeakRSSMB, lr.EstimateMB, lr.ServerPeakRSSMB, lr.AUC, checkNote(lr))
			res.Live = append(res.Live, lr)
		}
	}
	if lc.Faults {
		fr, err := runFaults(ctx, cfg, srv, c, p, ref, faultEpochs(cfg, res, c), logf)
		res.Faults = append(res.Faults, fr...)
		if err != nil {
			return fmt.Errorf("fault scenarios: %w", err)
		}
	}
	return nil
}

func checkNote(lr LiveRun) string {
	if !lr.Checked {
		return "scores not checked"
	}
	if lr.Mismatches == 0 {
		return "scores equal score's bit for bit"
	}
	return fmt.Sprintf("%d nodes' scores DIFFER from score's", lr.Mismatches)
}

// scoreProps are the numeric properties sync writes by default.
var scoreProps = []string{"ambiguity", "ambiguity_score", "ambiguity_entities"}

// scrambleProps sets props of every node to -1 (untimed), so that the next
// write of each changes its value: Neo4j skips a property set to the value
// it has, which would make a repeated write of the same scores (same seed)
// look cheaper than a nightly run's.
func scrambleProps(ctx context.Context, d neo4j.DriverWithContext, props ...string) error {
	sets := make([]string, len(props))
	for k, p := range props {
		sets[k] = fmt.Sprintf("n.%s = -1", p)
	}
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	res, err := s.Run(ctx, fmt.Sprintf("MATCH (n:%s) CALL (n) { SET %s } IN TRANSACTIONS OF 50000 ROWS", liveLabel, strings.Join(sets, ", ")), nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	return err
}

// gdsReferences times GDS on the same graph: the projection, the write of
// the three numeric properties sync writes, and gds.degree.write of one,
// each write changing every value it writes (scramble first).
func gdsReferences(ctx context.Context, q func(string) ([]*neo4j.Record, error), scramble func(...string) error, sr *ServerRun, repeats int, logf func(string, ...any)) error {
	timed := func(stmts ...string) (float64, error) {
		t0 := time.Now()
		for _, s := range stmts {
			if _, err := q(s); err != nil {
				return 0, err
			}
		}
		return time.Since(t0).Seconds(), nil
	}
	drop := func(name string) error {
		_, err := q(fmt.Sprintf("CALL gds.graph.drop('%s', false) YIELD graphName RETURN graphName", name))
		return err
	}
	project := fmt.Sprintf("CALL gds.graph.project('fb-project', '%s', {%s: {orientation: 'NATURAL'}}) YIELD nodeCount RETURN nodeCount", liveLabel, liveType)
	// The three properties of sync's default write, with their values:
	// the first sync wrote them.
	projectW := fmt.Sprintf("CALL gds.graph.project('fb-write', {%s: {properties: ['ambiguity', 'ambiguity_score', 'ambiguity_entities']}}, {%s: {orientation: 'UNDIRECTED'}}) YIELD nodeCount RETURN nodeCount", liveLabel, liveType)
	for k := 0; k <= repeats; k++ { // the first of each is a warm-up
		s, err := timed(project)
		if err != nil {
			return err
		}
		if err := drop("fb-project"); err != nil {
			return err
		}
		if k > 0 {
			sr.GDSProjectS = append(sr.GDSProjectS, s)
		}
	}
	if _, err := q(projectW); err != nil {
		return err
	}
	defer drop("fb-write")
	for k := 0; k <= repeats; k++ {
		if err := scramble(scoreProps...); err != nil {
			return err
		}
		s, err := timed("CALL gds.graph.nodeProperties.write('fb-write', ['ambiguity', 'ambiguity_score', 'ambiguity_entities']) YIELD propertiesWritten RETURN propertiesWritten")
		if err != nil {
			return err
		}
		// Overwrites ambiguity with the degree: the next sync writes it again.
		if err := scramble("ambiguity"); err != nil {
			return err
		}
		s1, err := timed("CALL gds.degree.write('fb-write', {writeProperty: 'ambiguity'}) YIELD nodePropertiesWritten RETURN nodePropertiesWritten")
		if err != nil {
			return err
		}
		if k > 0 {
			sr.GDSWrite3S = append(sr.GDSWrite3S, s)
			sr.GDSDegreeWriteS = append(sr.GDSDegreeWriteS, s1)
		}
	}
	logf("%s on %s: GDS project %.2fs, write of 3 properties %.2fs, degree.write %.2fs (medians)", sr.Case, sr.Server,
		median(sr.GDSProjectS), median(sr.GDSWrite3S), median(sr.GDSDegreeWriteS))
	return nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	v := slices.Clone(xs)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func dirMB(dir string) float64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return float64(n) / (1 << 20)
}
