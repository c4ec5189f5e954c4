package neo4jtests

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/metrics"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// gauge is the value of name{labels} in mfs (labels: name=value pairs).
func gauge(mfs map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	for _, m := range mfs[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			match = match && have[labels[i]] == labels[i+1]
		}
		if match {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// A sync that splits and its undo, on the test server, report what their
// JSON summaries say: to the textfile (both in one file) and to a
// Pushgateway (a PUT of each run's group, a success group each).
func TestMetricsOfSyncAndUndo(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	var mu sync.Mutex
	pushes := map[string]int{}
	pg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		pushes[r.Method+" "+r.URL.Path]++
		mu.Unlock()
	}))
	defer pg.Close()
	textfile := filepath.Join(t.TempDir(), "fondue.prom")
	report := []string{"--metrics-textfile", textfile, "--pushgateway-url", pg.URL, "--run-id", "metrics-1"}
	code, out, stderr := runCLI(t, "", syncArgs("sync", append(report, "--node-labels", "Book", "--id-property", "uid",
		"--split", "--split-top", "3", "--output", "json")...)...)
	var sum syncSummary
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || sum.Split == nil || sum.Split.Split == 0 {
		t.Fatalf("sync: exit %d: %s\n%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", syncArgs("undo", append(report, "--output", "json")...)...)
	var us undoSummary
	if code != 0 || json.Unmarshal([]byte(out), &us) != nil || us.Restored == 0 {
		t.Fatalf("undo: exit %d: %s\n%s", code, out, stderr)
	}

	f, err := os.Open(textfile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{metrics.ExitCode, []string{"command", "sync"}, 0},
		{"fondue_neo4j_pulled_nodes", []string{"command", "sync"}, float64(sum.NodeCount)},
		{"fondue_neo4j_scored_nodes", []string{"command", "sync"}, float64(sum.Scored.Nodes)},
		{"fondue_neo4j_label_nodes", []string{"command", "sync", "label", "Book", "state", "scored"}, float64(sum.Scored.Labels["Book"].Scored)},
		{"fondue_neo4j_split_nodes", []string{"command", "sync"}, float64(sum.Split.Split)},
		{"fondue_neo4j_split_clones", []string{"command", "sync"}, float64(sum.Split.NodesCreated)},
		{"fondue_neo4j_split_relationships_moved", []string{"command", "sync"}, float64(sum.Split.RelationshipsMoved)},
		{metrics.Phase, []string{"command", "sync", "phase", "score"}, float64(sum.ComputeMillis) / 1000},
		{metrics.ExitCode, []string{"command", "undo"}, 0},
		{"fondue_neo4j_undo_restored_nodes", []string{"command", "undo"}, float64(us.Restored)},
		{"fondue_neo4j_undo_clones_deleted", []string{"command", "undo"}, float64(us.ClonesDeleted)},
		{"fondue_neo4j_undo_relationships_moved", []string{"command", "undo"}, float64(us.RelationshipsMoved)},
	} {
		if got, ok := gauge(mfs, c.name, c.labels...); !ok || got != c.want {
			t.Errorf("textfile: %s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	for _, cmd := range []string{"sync", "undo"} {
		if _, ok := gauge(mfs, metrics.LastSuccess, "command", cmd); !ok {
			t.Errorf("textfile: no %s of %s", metrics.LastSuccess, cmd)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, cmd := range []string{"sync", "undo"} {
		run, ok := "PUT /metrics/job/fondue-neo4j/command/"+cmd, "PUT /metrics/job/fondue-neo4j/command/"+cmd+"/result/success"
		alt := "PUT /metrics/job/fondue-neo4j/result/success/command/" + cmd
		if pushes[run] != 1 || pushes[ok]+pushes[alt] != 1 {
			t.Errorf("pushes %v: want one PUT of %s's group and one of its success group", pushes, cmd)
		}
	}
}
