package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
)

// lockedBuffer is a buffer that a heartbeat goroutine and a test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// progressApp is an app whose stderr (logs, or bars with tty) is w.
func progressApp(t *testing.T, w *lockedBuffer, tty bool) *app {
	t.Helper()
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, w)
	a.tty = tty
	var err error
	if a.log, err = cli.NewLogger(config.Log{}, w, tty); err != nil {
		t.Fatal(err)
	}
	return a
}

// progressLines returns the "progress" records of a JSON log.
func progressLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if l == "" {
			continue
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == "progress" {
			out = append(out, m)
		}
	}
	return out
}

// Off a terminal, a phase that runs long logs where it is every
// progressLogEvery even when the engine reports nothing new (an epoch of a
// big graph outlasts it), with the time left.
func TestProgressLogsBetweenReports(t *testing.T) {
	defer func(d time.Duration) { progressLogEvery = d }(progressLogEvery)
	progressLogEvery = 20 * time.Millisecond
	var w lockedBuffer
	p := newProgress(progressApp(t, &w, false))
	p.report(fondue.Progress{Phase: fondue.PhaseScoring, Done: 0, Total: 1000})
	p.report(fondue.Progress{Phase: fondue.PhaseScoring, Done: 250, Total: 1000})
	deadline := time.Now().Add(20 * time.Second)
	for len(progressLines(t, w.String())) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	p.finish()
	lines := progressLines(t, w.String())
	if len(lines) < 3 {
		t.Fatalf("no progress logged between reports:\n%s", w.String())
	}
	last := lines[len(lines)-1]
	if last["phase"] != "scoring" || last["done"] != 250.0 || last["total"] != 1000.0 || last["left_seconds"] == nil {
		t.Errorf("last progress record %v: want scoring, 250 of 1000, and the time left", last)
	}
}

// The time left: from the rate so far, and for the embedding an upper
// bound, to the epoch limit; none for a phase of unknown size.
func TestProgressTimeLeft(t *testing.T) {
	defer func(d, b time.Duration) { progressLogEvery, progressBeat = d, b }(progressLogEvery, progressBeat)
	progressLogEvery, progressBeat = 30*time.Second, time.Hour // no heartbeat: the test's clock decides
	var w lockedBuffer
	p := newProgress(progressApp(t, &w, false))
	now := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	at := func(d time.Duration, pr fondue.Progress) {
		p.now = func() time.Time { return now.Add(d) }
		p.report(pr)
	}
	at(0, fondue.Progress{Phase: fondue.PhaseEmbedding, Done: 0, Total: 2000})
	at(31*time.Second, fondue.Progress{Phase: fondue.PhaseEmbedding, Done: 100, Total: 2000})
	at(40*time.Second, fondue.Progress{Phase: fondue.PhaseScoring, Done: 0, Total: 1000})
	at(80*time.Second, fondue.Progress{Phase: fondue.PhaseScoring, Done: 400, Total: 1000})
	at(90*time.Second, fondue.Progress{Phase: phasePull, Done: 50000})
	at(130*time.Second, fondue.Progress{Phase: phasePull, Done: 100000})
	p.finish()
	lines := progressLines(t, w.String())
	want := []string{
		`{"epochs":100,"left_seconds_at_most":589,"phase":"embedding","seconds":31,"total":2000}`,
		`{"done":400,"left_seconds":60,"percent":40,"phase":"scoring","seconds":40,"total":1000}`,
		`{"done":100000,"phase":"pull","seconds":40}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d progress records, want %d:\n%s", len(lines), len(want), w.String())
	}
	for k, l := range lines {
		delete(l, "time")
		delete(l, "level")
		delete(l, "msg")
		got, _ := json.Marshal(l)
		if string(got) != want[k] {
			t.Errorf("record %d: %s, want %s", k, got, want[k])
		}
	}
}

// On a terminal the bar says the time left (the embedding's as an upper
// bound).
func TestProgressBarTimeLeft(t *testing.T) {
	var w lockedBuffer
	p := newProgress(progressApp(t, &w, true))
	now := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	at := func(d time.Duration, pr fondue.Progress) {
		p.now = func() time.Time { return now.Add(d) }
		p.report(pr)
	}
	at(0, fondue.Progress{Phase: fondue.PhaseEmbedding, Done: 0, Total: 2000})
	at(20*time.Second, fondue.Progress{Phase: fondue.PhaseEmbedding, Done: 100, Total: 2000})
	at(30*time.Second, fondue.Progress{Phase: fondue.PhaseScoring, Done: 0, Total: 1000})
	at(40*time.Second, fondue.Progress{Phase: fondue.PhaseScoring, Done: 500, Total: 1000})
	p.finish()
	out := w.String()
	for _, want := range []string{"embedding  at most 6m20s left", "scoring    10s left"} {
		if !strings.Contains(out, want) {
			t.Errorf("the bars do not say %q:\n%q", want, out)
		}
	}
}

// score off a terminal reports the progress of every phase, reading the
// file and scoring included (not only their start and end), with the time
// left, for FONDUE and for nc (no embedding, MCL on every neighbourhood).
func TestScoreProgressEveryPhase(t *testing.T) {
	defer func(d time.Duration) { progressLogEvery = d }(progressLogEvery)
	progressLogEvery = 0 // every report is logged
	var buf bytes.Buffer
	for i := 0; i < 3000; i++ { // a ring of cliques, 2.5 MB with long ids
		for d := 1; d <= 20; d++ {
			fmt.Fprintf(&buf, "node-with-a-long-name-%05d node-with-a-long-name-%05d\n", i, (i+d)%3000)
		}
	}
	file := filepath.Join(t.TempDir(), "ring.edges")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"fondue", "nc"} {
		code, _, stderr := runCLI(t, "", "score", file, "--method", method, "--threads", "1", "--epochs", "20", "--top", "1")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, stderr)
		}
		between := map[string]int{}
		for _, l := range progressLines(t, stderr) {
			ph, _ := l["phase"].(string)
			done, _ := l["done"].(float64)
			total, _ := l["total"].(float64)
			if ph == "load" && total != float64(buf.Len()) {
				t.Errorf("%s: load progress of %v bytes, the file has %d", method, total, buf.Len())
			}
			if done > 0 && done < total && l["left_seconds"] != nil {
				between[ph]++
			}
		}
		for _, ph := range []string{"load", "scoring"} {
			if between[ph] < 2 {
				t.Errorf("%s: %d progress records of %s between its start and end, with the time left; want several:\n%s", method, between[ph], ph, stderr)
			}
		}
	}
}
