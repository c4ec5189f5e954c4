package scale

// Nothing lost at scale: scripted fault scenarios on a live case's server,
// each checked and reported (FaultRun.Passed, Detail). Too slow for the
// test suite at 1M nodes; the suite has small-graph versions
// (cmd/fondue-neo4j/neo4jtests).

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// FaultRun is one fault scenario's outcome.
type FaultRun struct {
	Case     string `json:"case"`
	Server   string `json:"server"`
	Scenario string `json:"scenario"`
	Passed   bool   `json:"passed"`
	// Detail says what happened and what was checked, for the report.
	Detail string `json:"detail"`
	// KillAfterS is when the run was killed (after its start); DoneAtKill
	// what it had done then (nodes written, nodes split); RerunS the
	// re-run's wall time.
	KillAfterS float64 `json:"kill_after_s,omitempty"`
	DoneAtKill int     `json:"done_at_kill,omitempty"`
	RerunS     float64 `json:"rerun_s,omitempty"`
	// The long compute: how long it held the lock while computing, how
	// many second runs were refused (exit code 6) of how many tried.
	ComputeS float64 `json:"compute_s,omitempty"`
	Refused  int     `json:"refused,omitempty"`
	Tried    int     `json:"tried,omitempty"`
	Reused   bool    `json:"reused,omitempty"`
}

// graphState sums up the imported graph, to tell that nothing was lost or
// duplicated: the number of nodes and relationships, and sums over the keys
// at both ends of every relationship.
type graphState struct {
	Nodes, Rels, Clones, Locks int64
	SumStart, SumEnd, SumProd  int64
}

func (g graphState) String() string {
	return fmt.Sprintf("%d nodes (%d split clones), %d relationships, key sums %d/%d/%d, %d locks",
		g.Nodes, g.Clones, g.Rels, g.SumStart, g.SumEnd, g.SumProd, g.Locks)
}

// sameGraph compares the parts that a split and its undo must restore.
func (g graphState) sameGraph(h graphState) bool {
	return g.Nodes == h.Nodes && g.Rels == h.Rels && g.SumStart == h.SumStart && g.SumEnd == h.SumEnd && g.SumProd == h.SumProd
}

func readState(ctx context.Context, d neo4j.DriverWithContext) (graphState, error) {
	var s graphState
	one := func(q string, dst ...*int64) error {
		r, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		for k, p := range dst {
			*p, _ = r.Records[0].Values[k].(int64)
		}
		return nil
	}
	if err := one("MATCH (n) WHERE NOT n:FondueRun RETURN count(n), COUNT { (c:FondueSplit) }, COUNT { (l:FondueLock) }", &s.Nodes, &s.Clones, &s.Locks); err != nil {
		return s, err
	}
	// Keys at both ends, and a product that pairs them (integers: exact
	// in any order); a clone has no key (-1), so a moved relationship
	// counts differently until the undo moves it back.
	return s, one(fmt.Sprintf(`MATCH (a)-[r:%s]->(b)
WITH r, coalesce(a.%[2]s, -1) AS x, coalesce(b.%[2]s, -1) AS y
RETURN count(r), sum(x), sum(y), sum((x %% 1009) * (y %% 1013))`, liveType, liveProperty), &s.Rels, &s.SumStart, &s.SumEnd, &s.SumProd)
}

// countOf returns the count a statement returns.
func countOf(ctx context.Context, d neo4j.DriverWithContext, q string, params map[string]any) (int, error) {
	r, err := neo4j.ExecuteQuery(ctx, d, q, params, neo4j.EagerResultTransformer)
	if err != nil {
		return 0, err
	}
	n, _ := r.Records[0].Values[0].(int64)
	return int(n), nil
}

// runFaults runs the scenarios on srv, whose graph is the imported one
// with the written scores (every split undone).
func runFaults(ctx context.Context, cfg Config, srv *neo4jtest.Server, c Case, p *prepared, ref liveRef, epochs int, logf func(string, ...any)) ([]FaultRun, error) {
	d, err := srv.Driver()
	if err != nil {
		return nil, err
	}
	var out []FaultRun
	for _, sc := range []struct {
		name string
		run  func() (FaultRun, error)
	}{
		{"kill -9 mid-write, re-run", func() (FaultRun, error) { return faultKillWrite(ctx, cfg, srv, d, ref, p) }},
		{"kill -9 mid-split, re-run, undo", func() (FaultRun, error) { return faultKillSplit(ctx, cfg, srv, d) }},
		{"long compute holds the lock", func() (FaultRun, error) { return faultLongCompute(ctx, cfg, srv, d, epochs) }},
	} {
		logf("%s on %s: fault scenario %q", c.Name, srv.Version().Neo4j, sc.name)
		fr, err := sc.run()
		fr.Case, fr.Server, fr.Scenario = c.Name, srv.Version().Neo4j, sc.name
		if err != nil {
			fr.Detail = strings.TrimSpace(fr.Detail + " " + err.Error())
		}
		out = append(out, fr)
		logf("%s on %s: %q %s: %s", c.Name, srv.Version().Neo4j, sc.name, map[bool]string{true: "passed", false: "FAILED"}[fr.Passed], fr.Detail)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// killWhen starts a sync with args and kills it (SIGKILL) once ready()
// says so, polled every 100 ms; it fails if the sync exits first.
func killWhen(ctx context.Context, cfg Config, srv *neo4jtest.Server, args []string, ready func() (int, bool, error)) (killAfter float64, done int, err error) {
	ch, err := startChild(ctx, cfg.Binary, args, liveEnv(srv), srv.PID())
	if err != nil {
		return 0, 0, err
	}
	exited := make(chan error, 1)
	go func() { _, err := ch.wait(); exited <- err }()
	for {
		select {
		case err := <-exited:
			return 0, 0, fmt.Errorf("the run ended (%v) before it could be killed", err)
		case <-time.After(100 * time.Millisecond):
		}
		n, ok, err := ready()
		if err != nil {
			ch.cmd.Process.Kill()
			<-exited
			return 0, 0, err
		}
		if ok {
			ch.cmd.Process.Signal(syscall.SIGKILL)
			<-exited
			return time.Since(ch.start).Seconds(), n, nil
		}
	}
}

// rerun runs a sync to completion and returns its summary and wall time.
func rerunSync(ctx context.Context, cfg Config, srv *neo4jtest.Server, args []string) (map[string]any, string, float64, error) {
	ch, err := startChild(ctx, cfg.Binary, args, liveEnv(srv), srv.PID())
	if err != nil {
		return nil, "", 0, err
	}
	wall, err := ch.wait()
	if err != nil {
		return nil, ch.stderr.String(), wall.Seconds(), err
	}
	var sum map[string]any
	if err := json.Unmarshal(ch.stdout.Bytes(), &sum); err != nil {
		return nil, ch.stderr.String(), wall.Seconds(), fmt.Errorf("summary: %v", err)
	}
	return sum, ch.stderr.String(), wall.Seconds(), nil
}

// faultKillWrite kills a sync mid-write and re-runs it: the re-run takes
// the dead run's lock over, writes every node, and the graph holds exactly
// score's values, nothing more.
func faultKillWrite(ctx context.Context, cfg Config, srv *neo4jtest.Server, d neo4j.DriverWithContext, ref liveRef, p *prepared) (FaultRun, error) {
	var fr FaultRun
	before, err := readState(ctx, d)
	if err != nil {
		return fr, err
	}
	const runID = "fault-write"
	args, err := syncArgs(cfg, srv, runID)
	if err != nil {
		return fr, err
	}
	written := fmt.Sprintf("MATCH (n:%s) WHERE n.fondue_run = $run RETURN count(n)", liveLabel)
	// Killed once at least two batches are in, well before the end.
	fr.KillAfterS, fr.DoneAtKill, err = killWhen(ctx, cfg, srv, args, func() (int, bool, error) {
		n, err := countOf(ctx, d, written, map[string]any{"run": runID})
		return n, n >= 20000, err
	})
	if err != nil {
		return fr, err
	}
	locks, err := countOf(ctx, d, "MATCH (l:FondueLock {run: $run}) RETURN count(l)", map[string]any{"run": runID})
	if err != nil {
		return fr, err
	}
	_, stderr, wall, err := rerunSync(ctx, cfg, srv, args)
	fr.RerunS = wall
	if err != nil {
		return fr, fmt.Errorf("re-run: %w", err)
	}
	after, err := readState(ctx, d)
	if err != nil {
		return fr, err
	}
	all, err := countOf(ctx, d, written, map[string]any{"run": runID})
	if err != nil {
		return fr, err
	}
	lr := LiveRun{}
	if err := checkScores(ctx, d, ref, p, &lr); err != nil {
		return fr, err
	}
	tookOver := strings.Contains(stderr, "took over the lock of a run that is no longer running")
	fr.Passed = locks == 1 && tookOver && after == before && int64(all) == before.Nodes && lr.Mismatches == 0
	fr.Detail = fmt.Sprintf("killed %.1fs after the start with %d of %d nodes written; the dead run's lock left behind: %d; the re-run (%.1fs) took it over at once: %v; after the re-run %d nodes carry the run id, %d nodes' scores differ from score's; graph before %s, after %s",
		fr.KillAfterS, fr.DoneAtKill, before.Nodes, locks, fr.RerunS, tookOver, all, lr.Mismatches, before, after)
	return fr, nil
}

// faultKillSplit kills a sync mid-split and re-runs the same run id: the
// re-run resumes the stored plan, every planned node is split once, no
// clone is duplicated, no relationship lost; undo restores the graph.
func faultKillSplit(ctx context.Context, cfg Config, srv *neo4jtest.Server, d neo4j.DriverWithContext) (FaultRun, error) {
	var fr FaultRun
	before, err := readState(ctx, d)
	if err != nil {
		return fr, err
	}
	const runID = "fault-split"
	args, err := syncArgs(cfg, srv, runID)
	if err != nil {
		return fr, err
	}
	args = append(args, "--split", "--split-top", strconv.Itoa(cfg.Live.SplitTop))
	clones := "MATCH (c:FondueSplit {fondue_split_run: $run}) RETURN count(c)"
	originals := "MATCH (o) WHERE $run IN o.fondue_split_runs RETURN count(o)"
	// Killed once 50 clones exist; what it had done then is the nodes
	// split (a node's clones are made in one transaction, and a hub can
	// have hundreds).
	clonesAtKill := 0
	fr.KillAfterS, fr.DoneAtKill, err = killWhen(ctx, cfg, srv, args, func() (int, bool, error) {
		n, err := countOf(ctx, d, clones, map[string]any{"run": runID})
		if err != nil || n < 50 {
			return 0, false, err
		}
		clonesAtKill = n
		o, err := countOf(ctx, d, originals, map[string]any{"run": runID})
		return o, true, err
	})
	if err != nil {
		return fr, err
	}
	sum, _, wall, err := rerunSync(ctx, cfg, srv, args)
	fr.RerunS = wall
	if err != nil {
		return fr, fmt.Errorf("re-run: %w", err)
	}
	split, _ := sum["split"].(map[string]any)
	num := func(k string) int { v, _ := split[k].(float64); return int(v) }
	resumed, _ := sum["resumed"].(bool)
	mid, err := readState(ctx, d)
	if err != nil {
		return fr, err
	}
	n, err := countOf(ctx, d, clones, map[string]any{"run": runID})
	if err != nil {
		return fr, err
	}
	keys, err := countOf(ctx, d, "MATCH (c:FondueSplit {fondue_split_run: $run}) RETURN count(DISTINCT c.fondue_split_key)", map[string]any{"run": runID})
	if err != nil {
		return fr, err
	}
	origs, err := countOf(ctx, d, originals, map[string]any{"run": runID})
	if err != nil {
		return fr, err
	}
	// undo
	empty := filepath.Join(cfg.CacheDir, "empty.yaml")
	ch, err := startChild(ctx, cfg.Binary, []string{"undo", "--config", empty, "--uri", srv.DirectURL(), "--run-id", runID, "--output", "json"}, liveEnv(srv), srv.PID())
	if err != nil {
		return fr, err
	}
	if _, err := ch.wait(); err != nil {
		return fr, fmt.Errorf("undo: %w", err)
	}
	after, err := readState(ctx, d)
	if err != nil {
		return fr, err
	}
	planned := num("planned")
	fr.Passed = resumed && num("failed") == 0 && num("split")+num("alreadyDone") == planned && planned > 0 && num("alreadyDone") >= fr.DoneAtKill &&
		keys == n && int64(n) == mid.Clones && mid.Rels == before.Rels && mid.Nodes == before.Nodes+int64(n) && origs == planned &&
		after.sameGraph(before) && after.Clones == 0 && after.Locks == 0
	fr.Detail = fmt.Sprintf("killed %.1fs after the start with %d nodes split (%d clones); the re-run (%.1fs) resumed the stored plan: %v, %d planned, %d split now, %d already split, %d failed; then %d clones (%d distinct split keys) of %d originals, %d relationships (before %d), %d nodes (before %d); after undo %s (before %s)",
		fr.KillAfterS, fr.DoneAtKill, clonesAtKill, fr.RerunS, resumed, planned, num("split"), num("alreadyDone"), num("failed"), n, keys, origs, mid.Rels, before.Rels, mid.Nodes, before.Nodes, after, before)
	return fr, nil
}

// faultLongCompute runs a sync whose compute lasts several lock TTLs
// (epochs without early stop) and, while it computes, a second sync once a
// minute: each must exit with code 6 (another run holds the lock) and the
// lock's expiry must move on (the heartbeat). The first run then ends
// normally and releases the lock.
func faultLongCompute(ctx context.Context, cfg Config, srv *neo4jtest.Server, d neo4j.DriverWithContext, epochs int) (FaultRun, error) {
	var fr FaultRun
	args, err := syncArgs(cfg, srv, "fault-long")
	if err != nil {
		return fr, err
	}
	args = append(args, "--epochs", strconv.Itoa(epochs), "--stability-stop=false", "--tol", "1e-300")
	ch, err := startChild(ctx, cfg.Binary, args, liveEnv(srv), srv.PID())
	if err != nil {
		return fr, err
	}
	exited := make(chan error, 1)
	go func() { _, err := ch.wait(); exited <- err }()
	phase := func(msg string) bool {
		ch.mu.Lock()
		defer ch.mu.Unlock()
		_, ok := ch.marks[msg]
		return ok
	}
	var expiries []int64
	second, err := syncArgs(cfg, srv, "fault-second")
	if err != nil {
		return fr, err
	}
	second = append(second, "--method", "degree")
	var notes []string
	var pulledAt time.Time
wait:
	for {
		select {
		case err := <-exited:
			if err != nil {
				return fr, fmt.Errorf("the long run: %w", err)
			}
			break wait
		case <-time.After(time.Second):
		}
		if !phase("pulled the subgraph") || phase("scored") {
			continue
		}
		if pulledAt.IsZero() {
			pulledAt = time.Now()
			continue
		}
		if time.Since(pulledAt) < time.Duration(fr.Tried+1)*time.Minute {
			continue
		}
		// A minute more into the compute: the lock's expiry, then a second run.
		r, err := neo4j.ExecuteQuery(ctx, d, "MATCH (l:FondueLock) RETURN l.expires - timestamp()", nil, neo4j.EagerResultTransformer)
		if err == nil && len(r.Records) == 1 {
			left, _ := r.Records[0].Values[0].(int64)
			expiries = append(expiries, left)
		}
		sc, err := startChild(ctx, cfg.Binary, second, liveEnv(srv), srv.PID())
		if err != nil {
			return fr, err
		}
		t0 := time.Now()
		_, werr := sc.wait()
		fr.Tried++
		code := sc.cmd.ProcessState.ExitCode()
		if code == 6 && strings.Contains(sc.stderr.String(), "another run holds the lock") {
			fr.Refused++
		} else {
			notes = append(notes, fmt.Sprintf("second run %d: exit %d (%v)", fr.Tried, code, werr))
		}
		notes = append(notes, fmt.Sprintf("%.0fs into the compute: lock expires in %.1fs, second run exit %d in %.1fs",
			time.Since(pulledAt).Seconds(), float64(expiries[len(expiries)-1])/1000, code, time.Since(t0).Seconds()))
	}
	var sum syncSummary
	json.Unmarshal(ch.stdout.Bytes(), &sum)
	fr.ComputeS = float64(sum.ComputeMillis) / 1000
	locks, err := countOf(ctx, d, "MATCH (l:FondueLock) RETURN count(l)", nil)
	if err != nil {
		return fr, err
	}
	ttl := lockTTL
	fr.Passed = fr.Tried >= 2 && fr.Refused == fr.Tried && fr.ComputeS > 2*ttl && locks == 0 && len(expiries) == fr.Tried && minOf(expiries) > 0
	fr.Detail = fmt.Sprintf("compute %.0fs (%.1f times lock.ttl %.0fs); %d of %d second runs refused with exit code 6; lock left after the run: %d; %s",
		fr.ComputeS, fr.ComputeS/ttl, ttl, fr.Refused, fr.Tried, locks, strings.Join(notes, "; "))
	return fr, nil
}

func minOf(xs []int64) int64 {
	m := int64(math.MaxInt64)
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

// faultEpochs are the epochs of the long compute: Live.FaultEpochs if set,
// else as many as 2.5 lock TTLs (300 s) of compute take at the CNE speed
// of the case's score runs of the measured binary (their median seconds
// per epoch), at least 100; 400 when the case has no score runs.
func faultEpochs(cfg Config, res *Results, c Case) int {
	if cfg.Live.FaultEpochs > 0 {
		return cfg.Live.FaultEpochs
	}
	var perEpoch []float64
	for _, r := range res.Runs {
		if r.Case == c.Name && r.Binary == BinaryMain && !r.DoubleEpochs && r.Epochs > 0 && r.EmbeddingS > 0 {
			perEpoch = append(perEpoch, r.EmbeddingS/float64(r.Epochs))
		}
	}
	if len(perEpoch) == 0 {
		return 400
	}
	return max(100, int(math.Ceil(2.5*lockTTL/median(perEpoch))))
}

// lockTTL is sync's default lock.ttl in seconds, which the long compute
// keeps (the heartbeat renews it).
var lockTTL = syncjob.DefaultLockTTL.Seconds()
