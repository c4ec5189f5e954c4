package metrics

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var (
	t0 = time.Date(2026, 11, 26, 2, 0, 0, 0, time.UTC)
	t1 = t0.Add(24 * time.Hour)
)

// okSync is a successful sync that split nodes; failedSync a later one
// that stopped at the pull (Neo4j unreachable, no summary).
func okSync() Run {
	return Run{Command: "sync", Database: "neo4j", Start: t0, End: t0.Add(90 * time.Second), ExitCode: 0,
		Sync: &syncjob.Summary{
			NodeCount: 15545, RelationshipCount: 24576, UnscoredNodes: 3,
			PreProcessingMillis: 4200, ComputeMillis: 61000, WriteMillis: 2500, SplitMillis: 9000,
			Epochs: 73, WarmStartNodes: 15000,
			Scored: &syncjob.Scored{Nodes: 8869, Context: 6676, Labels: map[string]syncjob.LabelCount{
				"Author": {Scored: 8869, Unscored: 3}, "Paper": {Context: 6676}}},
			Split: &splitplan.SplitStats{Planned: 20, Split: 19, Skipped: 1, NodesCreated: 402, RelationshipsMoved: 1359},
		}}
}

func failedSync() Run {
	return Run{Command: "sync", Database: "neo4j", Start: t1, End: t1.Add(10 * time.Second), ExitCode: 4}
}

// series is one sample: its labels (name=value, sorted, joined by ",") and
// value, by metric name.
type series map[string]map[string]float64

func flatten(mfs map[string]*dto.MetricFamily) series {
	out := series{}
	for name, mf := range mfs {
		if mf.GetType() != dto.MetricType_GAUGE && !strings.HasPrefix(name, "push_") {
			panic(name + " is not a gauge")
		}
		out[name] = map[string]float64{}
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			slices.Sort(ls)
			out[name][strings.Join(ls, ",")] = m.GetGauge().GetValue()
		}
	}
	return out
}

// pushgateway is the Pushgateway's API as far as the tests need it: a
// group per path (/metrics/job/J/label/value...), PUT replaces a group,
// POST replaces its metrics of the names pushed, the body decoded with
// expfmt in the format the client says it sent.
type pushgateway struct {
	mu     sync.Mutex
	groups map[string]map[string]*dto.MetricFamily
	puts   int
}

func newPushgateway(t *testing.T) (*pushgateway, *httptest.Server) {
	pg := &pushgateway{groups: map[string]map[string]*dto.MetricFamily{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/metrics/job/") || (r.Method != http.MethodPut && r.Method != http.MethodPost) {
			http.Error(w, "not a push", http.StatusBadRequest)
			return
		}
		dec := expfmt.NewDecoder(r.Body, expfmt.ResponseFormat(r.Header))
		got := map[string]*dto.MetricFamily{}
		for {
			mf := &dto.MetricFamily{}
			if err := dec.Decode(mf); err != nil {
				break
			}
			got[mf.GetName()] = mf
		}
		key, ok := groupKey(r.URL.Path)
		if !ok {
			http.Error(w, "bad grouping key", http.StatusBadRequest)
			return
		}
		pg.mu.Lock()
		defer pg.mu.Unlock()
		if r.Method == http.MethodPut || pg.groups[key] == nil {
			pg.groups[key] = map[string]*dto.MetricFamily{}
		}
		maps.Copy(pg.groups[key], got)
		if r.Method == http.MethodPut {
			pg.puts++
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return pg, srv
}

// groupKey is the grouping key of a push path, /metrics/job/J/k/v...:
// its label pairs, sorted (their order in the path does not matter).
func groupKey(path string) (string, bool) {
	parts := strings.Split(strings.TrimPrefix(path, "/metrics/"), "/")
	if len(parts)%2 != 0 {
		return "", false
	}
	var pairs []string
	for i := 0; i < len(parts); i += 2 {
		pairs = append(pairs, parts[i]+"="+parts[i+1])
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ","), true
}

// group returns the metrics of the group with these label pairs
// ("k=v,k=v", sorted).
func (pg *pushgateway) group(key string) series {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	return flatten(pg.groups[key])
}

func want(t *testing.T, got series, name, labels string, v float64) {
	t.Helper()
	if g, ok := got[name][labels]; !ok || g != v {
		t.Errorf("%s{%s} = %v (present %v), want %v", name, labels, g, ok, v)
	}
}

// checkSync checks the values of okSync in got, under the labels scope.
func checkSync(t *testing.T, got series, scope string) {
	t.Helper()
	with := func(l string) string {
		if scope == "" {
			return l
		}
		if l == "" {
			return scope
		}
		ls := strings.Split(scope+","+l, ",")
		slices.Sort(ls)
		return strings.Join(ls, ",")
	}
	want(t, got, LastRun, scope, unix(t0.Add(90*time.Second)))
	want(t, got, ExitCode, scope, 0)
	want(t, got, Duration, scope, 90)
	for phase, s := range map[string]float64{"pull": 4.2, "score": 61, "write": 2.5, "split": 9} {
		want(t, got, Phase, with("phase="+phase), s)
	}
	want(t, got, "fondue_neo4j_scored_nodes", scope, 8869)
	want(t, got, "fondue_neo4j_context_nodes", scope, 6676)
	want(t, got, "fondue_neo4j_label_nodes", with("label=Author,state=scored"), 8869)
	want(t, got, "fondue_neo4j_label_nodes", with("label=Author,state=unscored"), 3)
	want(t, got, "fondue_neo4j_label_nodes", with("label=Paper,state=context"), 6676)
	want(t, got, "fondue_neo4j_split_nodes", scope, 19)
	want(t, got, "fondue_neo4j_split_clones", scope, 402)
	want(t, got, "fondue_neo4j_split_relationships_moved", scope, 1359)
	want(t, got, "fondue_neo4j_warm_start_nodes", scope, 15000)
}

// TestPushKeepsLastSuccess: a successful sync replaces its group and the
// success group; a failed sync the day after replaces its group (nothing
// of the success stays, the exit code is 4) and leaves the last success
// as it was.
func TestPushKeepsLastSuccess(t *testing.T) {
	pg, srv := newPushgateway(t)
	o := Options{PushgatewayURL: srv.URL, Job: "nightly"}
	const group, okGroup = "command=sync,database=neo4j,job=nightly", "command=sync,database=neo4j,job=nightly,result=success"
	if err := Record(context.Background(), o, okSync()); err != nil {
		t.Fatal(err)
	}
	checkSync(t, pg.group(group), "")
	if _, ok := pg.group(group)[LastSuccess]; ok {
		t.Errorf("the run's group holds %s: a failed run would replace it", LastSuccess)
	}
	want(t, pg.group(okGroup), LastSuccess, "", unix(t0.Add(90*time.Second)))
	if n := len(pg.group(okGroup)); n != 1 {
		t.Errorf("the success group holds %d metrics, want 1", n)
	}

	if err := Record(context.Background(), o, failedSync()); err != nil {
		t.Fatal(err)
	}
	got := pg.group(group)
	want(t, got, ExitCode, "", 4)
	want(t, got, LastRun, "", unix(t1.Add(10*time.Second)))
	if _, ok := got["fondue_neo4j_split_clones"]; ok {
		t.Error("the failed run's group still holds the successful run's splits")
	}
	want(t, pg.group(okGroup), LastSuccess, "", unix(t0.Add(90*time.Second)))
	if pg.puts != 3 {
		t.Errorf("%d PUTs, want 3 (success: run and success groups; failure: run group)", pg.puts)
	}
}

// TestPushUndo: an undo pushes to a group of its own (command=undo), with
// its counts and phase.
func TestPushUndo(t *testing.T) {
	pg, srv := newPushgateway(t)
	r := Run{Command: "undo", Start: t0, End: t0.Add(3 * time.Second),
		Undo: &syncjob.UndoStats{Originals: 20, Restored: 19, ClonesDeleted: 402, RelationshipsMoved: 1359,
			Failed: []splitplan.NodeOutcome{{}}, Duration: 2500 * time.Millisecond}, ExitCode: 1}
	if err := Push(context.Background(), Options{PushgatewayURL: srv.URL}, r); err != nil {
		t.Fatal(err)
	}
	got := pg.group("command=undo,job=" + DefaultJob)
	want(t, got, Phase, "phase=undo", 2.5)
	want(t, got, "fondue_neo4j_undo_restored_nodes", "", 19)
	want(t, got, "fondue_neo4j_undo_clones_deleted", "", 402)
	want(t, got, "fondue_neo4j_undo_relationships_moved", "", 1359)
	want(t, got, "fondue_neo4j_undo_failed_nodes", "", 1)
	want(t, got, ExitCode, "", 1)
	if _, ok := got["fondue_neo4j_scored_nodes"]; ok {
		t.Error("an undo pushed a sync's metrics")
	}
}

// TestPushError: a Pushgateway that refuses the push is an error naming it.
func TestPushError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	err := Record(context.Background(), Options{PushgatewayURL: srv.URL}, okSync())
	if err == nil || !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("error %v, want one naming %s and the status", err, srv.URL)
	}
}

func readProm(t *testing.T, path string) series {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return flatten(mfs)
}

// TestTextfileKeepsLastSuccess: the textfile of a successful sync holds
// its metrics; a failed sync replaces them but keeps the last success read
// from the file; an undo written to the same file keeps the sync's series.
// Nothing but the file is left in its folder.
func TestTextfileKeepsLastSuccess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fondue.prom")
	const scope = "command=sync,database=neo4j"
	if err := Record(context.Background(), Options{Textfile: path}, okSync()); err != nil {
		t.Fatal(err)
	}
	got := readProm(t, path)
	checkSync(t, got, scope)
	want(t, got, LastSuccess, scope, unix(t0.Add(90*time.Second)))

	if err := WriteTextfile(path, failedSync()); err != nil {
		t.Fatal(err)
	}
	got = readProm(t, path)
	want(t, got, LastSuccess, scope, unix(t0.Add(90*time.Second)))
	want(t, got, LastRun, scope, unix(t1.Add(10*time.Second)))
	want(t, got, ExitCode, scope, 4)
	if _, ok := got["fondue_neo4j_split_clones"]; ok {
		t.Error("the failed run's file still holds the successful run's splits")
	}

	undo := Run{Command: "undo", Database: "neo4j", Start: t1, End: t1.Add(time.Minute),
		Undo: &syncjob.UndoStats{Restored: 19, ClonesDeleted: 402, RelationshipsMoved: 1359}}
	if err := WriteTextfile(path, undo); err != nil {
		t.Fatal(err)
	}
	got = readProm(t, path)
	want(t, got, LastSuccess, scope, unix(t0.Add(90*time.Second)))
	want(t, got, ExitCode, scope, 4)
	want(t, got, LastSuccess, "command=undo,database=neo4j", unix(t1.Add(time.Minute)))
	want(t, got, "fondue_neo4j_undo_clones_deleted", "command=undo,database=neo4j", 402)

	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("the folder holds %v (%v), want the textfile only", entries, err)
	}
}

// TestTextfileFirstFailure: a failed first run has no last success.
func TestTextfileFirstFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fondue.prom")
	if err := WriteTextfile(path, failedSync()); err != nil {
		t.Fatal(err)
	}
	got := readProm(t, path)
	if _, ok := got[LastSuccess]; ok {
		t.Errorf("a failed first run wrote %s", LastSuccess)
	}
	want(t, got, ExitCode, "command=sync,database=neo4j", 4)
}

// TestTextfileNotMetrics: a file in the way that is not metrics is left
// alone, with an error naming it.
func TestTextfileNotMetrics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fondue.prom")
	const junk = "this is { not metrics\n"
	if err := os.WriteFile(path, []byte(junk), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Record(context.Background(), Options{Textfile: path}, okSync())
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want one naming %s", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != junk {
		t.Errorf("the file was changed to %q", b)
	}
}
