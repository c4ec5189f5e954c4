package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/metrics"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricsOfFailedRun: a sync that cannot reach Neo4j (exit 4) pushes
// its exit code to the Pushgateway and writes it to the textfile; a dry
// run and an undo without a run id report nothing.
func TestMetricsOfFailedRun(t *testing.T) {
	var mu sync.Mutex
	var pushes []string // method path: body
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		pushes = append(pushes, r.Method+" "+r.URL.Path+": "+string(body))
		mu.Unlock()
	}))
	defer srv.Close()
	textfile := filepath.Join(t.TempDir(), "fondue.prom")
	base := []string{"--uri", "bolt://" + closedAddr(t), "--connect-timeout", "2s",
		"--pushgateway-url", srv.URL, "--metrics-textfile", textfile, "--database", "graph"}

	code, _, stderr := runCLI(t, "", append([]string{"sync"}, base...)...)
	if code != exitUnreachable {
		t.Fatalf("sync: exit %d, want %d: %s", code, exitUnreachable, stderr)
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
	mf := mfs[metrics.ExitCode]
	if mf == nil || len(mf.Metric) != 1 || mf.Metric[0].GetGauge().GetValue() != exitUnreachable {
		t.Errorf("textfile's %s: %v, want %d", metrics.ExitCode, mf, exitUnreachable)
	}
	if mfs[metrics.LastSuccess] != nil {
		t.Errorf("a failed first run wrote %s", metrics.LastSuccess)
	}
	mu.Lock()
	if len(pushes) != 1 || !strings.HasPrefix(pushes[0], "PUT /metrics/job/fondue-neo4j/") ||
		!strings.Contains(pushes[0], "/command/sync") || !strings.Contains(pushes[0], "/database/graph") || !strings.Contains(pushes[0], metrics.ExitCode) {
		t.Errorf("pushes %q, want one PUT of the sync's group", pushes)
	}
	pushes = nil
	mu.Unlock()

	// Reported nowhere: a dry run, and undo's usage error before the run.
	os.Remove(textfile)
	for _, args := range [][]string{{"sync", "--dry-run"}, {"undo"}} {
		code, _, stderr := runCLI(t, "", append(args, base...)...)
		if code == 0 {
			t.Fatalf("%v: exit 0: %s", args, stderr)
		}
	}
	if _, err := os.Stat(textfile); !os.IsNotExist(err) || len(pushes) != 0 {
		t.Errorf("a dry run or a usage error reported metrics (textfile: %v, pushes %q)", err, pushes)
	}
}

// TestMetricsBadSettings: a Pushgateway URL that is not http(s) is a
// usage error naming the flag's key.
func TestMetricsBadSettings(t *testing.T) {
	code, _, stderr := runCLI(t, "", "sync", "--pushgateway-url", "pushgateway:9091")
	if code != exitUsage || !strings.Contains(stderr, "metrics.pushgateway_url") || !strings.Contains(stderr, "http://") {
		t.Errorf("exit %d, %q; want %d naming metrics.pushgateway_url", code, stderr, exitUsage)
	}
}
