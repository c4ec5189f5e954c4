package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
)

const karate = "../../fondue/testdata/karate.edges"

// Problems that used to surface after the fit (or never) stop the run
// before it: a checkpoint that cannot be written, a checkpoint of another
// graph, an embedding dimension the graph cannot support.
func TestFailuresFoundEarly(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	code, out, stderr := runCLI(t, "", "score", lesmis, "--checkpoint", filepath.Join(dir, "missing", "emb.ck"), "--epochs", "100000", "--tol", "1e-300")
	if code != exitUsage || out != "" || !strings.Contains(stderr, "missing does not exist (checked before fitting") {
		t.Fatalf("checkpoint in a missing folder: exit %d, %q", code, stderr)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("the missing folder was found after %v: after fitting?", time.Since(start))
	}
	wantOneLine(t, "missing folder", stderr)
	code, _, stderr = runCLI(t, "", "score", lesmis, "--checkpoint", dir)
	if code != exitUsage || !strings.Contains(stderr, "is a folder") {
		t.Fatalf("checkpoint is a folder: exit %d, %q", code, stderr)
	}

	// A checkpoint saved for lesmis does not warm-start karate: their ids
	// overlap (1..34) but the graphs share 34 of 77 nodes.
	ck := filepath.Join(dir, "lesmis.ck")
	if code, _, stderr := runCLI(t, "", "score", lesmis, "--checkpoint", ck, "--epochs", "30"); code != 0 {
		t.Fatalf("lesmis: %s", stderr)
	}
	saved, _ := os.ReadFile(ck)
	code, out, stderr = runCLI(t, "", "score", karate, "--checkpoint", ck)
	if code != exitUsage || out != "" || !strings.Contains(stderr, "checkpoint "+ck+" and the graph share 34 of their 77 nodes (44%), less than 50%") ||
		!strings.Contains(stderr, "--checkpoint-force") {
		t.Fatalf("checkpoint of another graph: exit %d, %q", code, stderr)
	}
	wantOneLine(t, "another graph", stderr)
	if now, _ := os.ReadFile(ck); string(now) != string(saved) {
		t.Fatal("the refused checkpoint was overwritten")
	}
	code, out, stderr = runCLI(t, "", "score", karate, "--checkpoint", ck, "--checkpoint-force", "--top", "1")
	if code != 0 || out == "" || !strings.Contains(stderr, `"msg":"warm start","reused":34,"new":0,"dropped":43,"share":0.442`) {
		t.Fatalf("--checkpoint-force: exit %d, %q", code, stderr)
	}

	code, out, stderr = runCLI(t, "", "score", karate, "--dim", "1000")
	if code != exitUsage || out != "" || !strings.Contains(stderr, "embedding dimension 1000 is not smaller than the graph's 34 nodes") {
		t.Fatalf("--dim 1000 on karate: exit %d, %q", code, stderr)
	}
	wantOneLine(t, "dim", stderr)
}

// Off a terminal, a long phase logs its progress now and then, so that a
// slow run is never silent (and a short one stays quiet: TestScoreTSV).
func TestProgressLoggedOffTerminal(t *testing.T) {
	defer func(d time.Duration) { progressLogEvery = d }(progressLogEvery)
	progressLogEvery = 0
	code, _, stderr := runCLI(t, "", "score", karate, "--epochs", "60", "--tol", "1e-300", "--top", "1")
	if code != 0 || !strings.Contains(stderr, `"msg":"progress","phase":"embedding","epochs":`) || !strings.Contains(stderr, `"total":60`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// estimate FILE reads the counts from the edge list, and its largest
// degree: the estimate of --nodes and --edges with those counts, except the
// per-worker buffers that grow with the largest degree, which counts alone
// bound from above.
func TestEstimateFile(t *testing.T) {
	code, fromFile, stderr := runCLI(t, "", "estimate", lesmis, "--output", "json", "--max-memory", "1GiB", "--threads", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, fromCounts, _ := runCLI(t, "", "estimate", "--nodes", "77", "--edges", "254", "--output", "json", "--max-memory", "1GiB", "--threads", "2")
	type phase struct {
		Phase string
		Parts []memory.Part
	}
	var f, c struct {
		NodeCount, RelationshipCount, BytesPeak int64
		Phases                                  []phase
	}
	if json.Unmarshal([]byte(fromFile), &f) != nil || json.Unmarshal([]byte(fromCounts), &c) != nil ||
		f.NodeCount != 77 || f.RelationshipCount != 254 || c.NodeCount != 77 || c.RelationshipCount != 254 ||
		f.BytesPeak > c.BytesPeak || len(f.Phases) != len(c.Phases) {
		t.Fatalf("estimate FILE:\n%s\n--nodes 77 --edges 254:\n%s", fromFile, fromCounts)
	}
	// lesmis' largest degree is 36; counts alone assume 76.
	for k, ph := range f.Phases {
		for p, part := range ph.Parts {
			cp := c.Phases[k].Parts[p]
			want := cp.Bytes
			if strings.Contains(part.Name, "largest") {
				want = cp.Bytes * 36 / 76
			}
			if part.Name != cp.Name || part.Bytes != want {
				t.Errorf("%s / %s: %d from the file, %d from counts", ph.Phase, part.Name, part.Bytes, cp.Bytes)
			}
		}
	}
	code, _, stderr = runCLI(t, "", "estimate", lesmis, "--nodes", "5")
	if code != exitUsage || !strings.Contains(stderr, "the file gives the counts") {
		t.Fatalf("FILE and --nodes: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "estimate")
	if code != exitUsage || !strings.Contains(stderr, "estimate needs an edge-list file, or --nodes") {
		t.Fatalf("no graph: exit %d, %q", code, stderr)
	}
}
