package scale

// The child processes of the live cases: a sync or an undo of a
// fondue-neo4j binary against a test server, watched (its log records
// mark the phases, at which the CPU seconds of the job and of the server
// are sampled; its peak resident size), and the scores it wrote read back
// and checked against score's.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// liveEnv is the environment of a child against the server: the caller's
// without FONDUE_* settings, and the server's password.
func liveEnv(srv *neo4jtest.Server) []string {
	return append(filterEnv(os.Environ()), "FONDUE_NEO4J_PASSWORD="+srv.Password())
}

// syncArgs are the flags of a sync of an sbm case's graph on srv.
func syncArgs(cfg Config, srv *neo4jtest.Server, runID string) ([]string, error) {
	return syncArgsOf(cfg, srv, runID, []string{"--node-labels", liveLabel, "--relationship-types", liveType, "--id-property", liveProperty})
}

// syncArgsOf are the flags of a sync on srv of the graph that graph's
// flags select.
func syncArgsOf(cfg Config, srv *neo4jtest.Server, runID string, graph []string) ([]string, error) {
	empty := filepath.Join(cfg.CacheDir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		return nil, err
	}
	args := append([]string{"sync", "--config", empty, "--uri", srv.DirectURL()}, graph...)
	args = append(args, "--seed", strconv.FormatUint(cfg.Seed, 10), "--run-id", runID, "--output", "json",
		"--log-level", "debug", "--log-format", "json")
	if cfg.Threads > 0 {
		args = append(args, "--threads", strconv.Itoa(cfg.Threads))
	}
	return args, nil
}

// child is a running fondue-neo4j against a server, watched: its stderr's
// log records are read as they come, and at the records that end the
// phases the CPU seconds of the child and of the server are sampled; its
// peak resident size is read every 50 ms.
type child struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	srvPID int
	start  time.Time

	mu      sync.Mutex
	marks   map[string]cpuMark // first record of each message
	peakMB  float64
	logPeak float64
	est     float64
	done    chan struct{}
}

type cpuMark struct {
	at          time.Duration
	job, server float64
}

func startChild(ctx context.Context, bin string, args []string, env []string, srvPID int) (*child, error) {
	ch := &child{srvPID: srvPID, marks: map[string]cpuMark{}, done: make(chan struct{})}
	ch.cmd = exec.CommandContext(ctx, bin, args...)
	ch.cmd.Env = env
	ch.cmd.Stdout = &ch.stdout
	errPipe, err := ch.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	ch.mark("start")
	ch.start = time.Now()
	if err := ch.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(errPipe)
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			line := sc.Bytes()
			var rec struct {
				Msg  string  `json:"msg"`
				Peak float64 `json:"peak_rss_mb"`
				Est  float64 `json:"estimate_mb"`
			}
			if json.Unmarshal(line, &rec) == nil && rec.Msg != "" {
				ch.mark(rec.Msg)
				if rec.Msg == "scored" {
					ch.mu.Lock()
					ch.logPeak, ch.est = rec.Peak, rec.Est
					ch.mu.Unlock()
				}
			}
			ch.mu.Lock()
			ch.stderr.Write(line)
			ch.stderr.WriteByte('\n')
			ch.mu.Unlock()
		}
	}()
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ch.done:
				return
			case <-t.C:
				if mb, err := procMemMB(ch.cmd.Process.Pid, "VmHWM"); err == nil {
					ch.mu.Lock()
					ch.peakMB = math.Max(ch.peakMB, mb)
					ch.mu.Unlock()
				}
			}
		}
	}()
	return ch, nil
}

// mark samples the CPU seconds of the child and the server, once per
// message.
func (ch *child) mark(msg string) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if _, ok := ch.marks[msg]; ok {
		return
	}
	m := cpuMark{}
	if !ch.start.IsZero() {
		m.at = time.Since(ch.start)
	}
	if ch.cmd.Process != nil {
		m.job, _ = procCPU(ch.cmd.Process.Pid)
	}
	m.server, _ = procCPU(ch.srvPID)
	ch.marks[msg] = m
}

// wait waits for the child; the "exit" mark has its CPU from rusage.
func (ch *child) wait() (time.Duration, error) {
	err := ch.cmd.Wait()
	wall := time.Since(ch.start)
	close(ch.done)
	srvCPU, _ := procCPU(ch.srvPID)
	ch.mu.Lock()
	defer ch.mu.Unlock()
	m := cpuMark{at: wall, server: srvCPU}
	if ru, ok := ch.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.job = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	ch.marks["exit"] = m
	if err != nil {
		return wall, fmt.Errorf("%v: %s", err, lastLine(ch.stderr.String()))
	}
	return wall, nil
}

// between returns the CPU seconds of the job and the server between two
// marks (the first found of each list), 0 when one is missing.
func (ch *child) between(from, to []string) (job, server float64) {
	find := func(names []string) (cpuMark, bool) {
		for _, n := range names {
			if m, ok := ch.marks[n]; ok {
				return m, true
			}
		}
		return cpuMark{}, false
	}
	a, ok1 := find(from)
	b, ok2 := find(to)
	if !ok1 || !ok2 {
		return 0, 0
	}
	return math.Max(0, b.job-a.job), math.Max(0, b.server-a.server)
}

// The log records that end the phases of a sync.
var (
	markPulled = []string{"pulled the subgraph"}
	markScored = []string{"scored"}
	markWrote  = []string{"wrote the scores"}
	markSplit  = []string{"split"}
)

// syncSummary is the part of sync's JSON summary the bench reads.
type syncSummary struct {
	NodeCount             int   `json:"nodeCount"`
	RelationshipCount     int   `json:"relationshipCount"`
	NodePropertiesWritten int   `json:"nodePropertiesWritten"`
	PreProcessingMillis   int64 `json:"preProcessingMillis"`
	ComputeMillis         int64 `json:"computeMillis"`
	WriteMillis           int64 `json:"writeMillis"`
	SplitMillis           int64 `json:"splitMillis"`
	Split                 *struct {
		Split              int `json:"split"`
		NodesCreated       int `json:"nodesCreated"`
		RelationshipsMoved int `json:"relationshipsMoved"`
	} `json:"split"`
}

// runSync runs one sync of binary bin and measures it.
func runSync(ctx context.Context, cfg Config, srv *neo4jtest.Server, c Case, bin [2]string, rep int, runID string, extra []string, measured bool) (LiveRun, error) {
	lr := LiveRun{Case: c.Name, Server: srv.Version().Neo4j, Binary: bin[0], Repeat: rep, AUC: math.NaN()}
	args, err := syncArgs(cfg, srv, runID)
	if c.KG {
		args, err = syncArgsOf(cfg, srv, runID, kgGraphArgs)
	}
	if err != nil {
		return lr, err
	}
	args = append(args, extra...)
	pid := srv.PID()
	lr.ServerRSSMB, _ = procMemMB(pid, "VmRSS")
	if err := resetPeak(pid); err != nil {
		return lr, err
	}
	_ = sysmem.ResetPeakRSS() // see runScore
	ch, err := startChild(ctx, bin[1], args, liveEnv(srv), pid)
	if err != nil {
		return lr, err
	}
	wall, err := ch.wait()
	lr.WallS = wall.Seconds()
	if d := cfg.Live.LogDir; d != "" && runID != "" {
		ch.mu.Lock()
		lerr := keepLog(d, runID+"-"+lr.Server, ch.stderr.Bytes())
		ch.mu.Unlock()
		if lerr != nil && err == nil {
			err = lerr
		}
	}
	if err != nil {
		return lr, err
	}
	lr.ServerPeakRSSMB, _ = procMemMB(pid, "VmHWM")
	var sum syncSummary
	if err := json.Unmarshal(ch.stdout.Bytes(), &sum); err != nil {
		return lr, fmt.Errorf("sync's summary: %v: %.200s", err, ch.stdout.String())
	}
	lr.Nodes, lr.Relationships, lr.Properties = sum.NodeCount, sum.RelationshipCount, sum.NodePropertiesWritten
	if err := json.Unmarshal(ch.stdout.Bytes(), &lr.night); err != nil {
		return lr, err
	}
	lr.PullS, lr.ComputeS = float64(sum.PreProcessingMillis)/1000, float64(sum.ComputeMillis)/1000
	lr.WriteS, lr.SplitS = float64(sum.WriteMillis)/1000, float64(sum.SplitMillis)/1000
	if s := sum.Split; s != nil {
		lr.Split, lr.NodesCreated, lr.Moved = s.Split, s.NodesCreated, s.RelationshipsMoved
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	lr.JobPeakRSSMB, lr.EstimateMB = math.Max(ch.peakMB, ch.logPeak), ch.est
	if m, ok := ch.marks["wrote the scores"]; ok {
		lr.ToWriteS = m.at.Seconds()
	}
	start, exit := []string{"start"}, []string{"exit"}
	lr.JobCPU.Pull, lr.ServerCPU.Pull = ch.between(start, markPulled)
	lr.JobCPU.Compute, lr.ServerCPU.Compute = ch.between(markPulled, markScored)
	lr.JobCPU.Write, lr.ServerCPU.Write = ch.between(markScored, markWrote)
	afterWrite := markWrote
	if _, ok := ch.marks[markSplit[0]]; ok {
		lr.JobCPU.Split, lr.ServerCPU.Split = ch.between(markWrote, markSplit)
		afterWrite = markSplit
	}
	lr.JobCPU.Rest, lr.ServerCPU.Rest = ch.between(afterWrite, exit)
	return lr, nil
}

// keepLog writes a child's log to dir/name.log.
func keepLog(dir, name string, log []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".log"), log, 0o644)
}

// runUndo undoes run runID's splits with binary bin.
func runUndo(ctx context.Context, cfg Config, srv *neo4jtest.Server, bin [2]string, runID string, lr *LiveRun) error {
	empty := filepath.Join(cfg.CacheDir, "empty.yaml")
	args := []string{"undo", "--config", empty, "--uri", srv.DirectURL(), "--run-id", runID, "--output", "json", "--log-format", "json"}
	ch, err := startChild(ctx, bin[1], args, liveEnv(srv), srv.PID())
	if err != nil {
		return err
	}
	wall, err := ch.wait()
	if err != nil {
		return err
	}
	lr.UndoS = wall.Seconds()
	lr.JobCPU.Undo, lr.ServerCPU.Undo = ch.between([]string{"start"}, []string{"exit"})
	if lr.Undone, err = undoneOf(ch.stdout.Bytes()); err != nil {
		return fmt.Errorf("undo's summary: %v: %.200s", err, ch.stdout.String())
	}
	return nil
}

// undoneOf reads the split nodes restored from undo's JSON summary
// (syncjob.UndoStats: "restored").
func undoneOf(summary []byte) (int, error) {
	var sum struct {
		Restored *int `json:"restored"`
	}
	if err := json.Unmarshal(summary, &sum); err != nil {
		return 0, err
	}
	if sum.Restored == nil {
		return 0, fmt.Errorf(`no "restored" in it`)
	}
	return *sum.Restored, nil
}

// readScores reads every keyed node's written scores.
func readLive(ctx context.Context, d neo4j.DriverWithContext, f func(key int64, amb, score any, ent any)) error {
	s := d.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, FetchSize: 20000})
	defer s.Close(ctx)
	_, err := s.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		r, err := tx.Run(ctx, fmt.Sprintf("MATCH (n:%s) WHERE n.%s IS NOT NULL RETURN n.%s, n.ambiguity, n.ambiguity_score, n.ambiguity_entities", liveLabel, liveProperty, liveProperty), nil)
		if err != nil {
			return nil, err
		}
		for r.Next(ctx) {
			v := r.Record().Values
			k, _ := v[0].(int64)
			f(k, v[1], v[2], v[3])
		}
		return nil, r.Err()
	})
	return err
}

// checkScores compares the scores the sync wrote with score's on the edge
// list, bit for bit, and computes the AUC of the planted nodes.
func checkScores(ctx context.Context, d neo4j.DriverWithContext, ref liveRef, p *prepared, lr *LiveRun) error {
	seen := 0
	var vals []float64
	var labels []bool
	same := func(a *float64, b any) bool {
		bf, ok := b.(float64)
		if a == nil || !ok {
			return a == nil && b == nil
		}
		return math.Float64bits(*a) == math.Float64bits(bf)
	}
	err := readLive(ctx, d, func(key int64, amb, score, ent any) {
		k := strconv.FormatInt(key, 10)
		r, ok := ref[k]
		seen++
		bi, _ := ent.(int64)
		if !ok || !same(r.Ambiguity, amb) || !same(r.Score, score) || (r.Entities == nil) != (ent == nil) || (r.Entities != nil && *r.Entities != bi) {
			lr.Mismatches++
		}
		if a, ok := amb.(float64); ok {
			vals = append(vals, a)
			labels = append(labels, p.ambiguous[k])
		}
	})
	if err != nil {
		return err
	}
	// Nodes that score printed and the server does not hold.
	lr.Mismatches += max(0, len(ref)-seen)
	lr.Checked = true
	auc, err := eval.AUC(vals, labels, eval.TiesAverage)
	if err != nil {
		return err
	}
	lr.AUC = auc
	return nil
}

// liveAUC is the AUC of the planted nodes under the written ambiguity.
func liveAUC(ctx context.Context, d neo4j.DriverWithContext, p *prepared, lr *LiveRun) error {
	var vals []float64
	var labels []bool
	err := readLive(ctx, d, func(key int64, amb, _, _ any) {
		if a, ok := amb.(float64); ok {
			vals = append(vals, a)
			labels = append(labels, p.ambiguous[strconv.FormatInt(key, 10)])
		}
	})
	if err != nil {
		return err
	}
	auc, err := eval.AUC(vals, labels, eval.TiesAverage)
	if err != nil {
		return err
	}
	lr.AUC = auc
	return nil
}
