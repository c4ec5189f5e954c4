// Command incremental measures incremental nights in process (no Neo4j):
// a first, full night; then, for each share of relationships changed, an
// incremental night from the first night's state beside a full run on the
// same changed graph, and, for reference, a full run with another seed.
//
//	go run ./cmd/incremental -case sbm:1000000:10 -changes 0,0.001,0.01
//	go run ./cmd/incremental -case real:dblp679-kg -changes 0,0.001,0.01
//	go run ./cmd/incremental -case files:KG.nodes.csv,KG.rels.csv -full-runs=false -cpuprofile inc.prof
//
// A files case reads Neo4j import files (the kg case of fondue-bench
// scale, from its cache): the Author nodes scored, year the evidence.
//
// A change of share f removes f of the relationships at random and adds as
// many, each keeping one end of a removed one and moving the other to a
// random node of the same kind (in a knowledge graph: an author writes
// another paper). Compute is the Score call's prior, embedding and scoring
// time; the state's fingerprints, write and read are timed apart, and
// night 2's save over night 1's file (the rows that changed, appended).
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/generate"
	"github.com/fondue-neo4j/fondue-neo4j/bench/real"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

func main() {
	caseFlag := flag.String("case", "sbm:100000:10", "sbm:NODES:DEGREE or real:SET (a set of ../shared/datasets/real)")
	changes := flag.String("changes", "0,0.001,0.01", "shares of relationships changed, comma-separated")
	seed := flag.Uint64("seed", 1, "seed of the runs and of the changes")
	workers := flag.Int("workers", 0, "goroutines (0: all cores)")
	data := flag.String("data", "../../shared/datasets", "datasets folder (real sets)")
	configs := flag.String("configs", "default,exact", "incremental settings to measure: default (the Options' defaults), exact (MoveTolerance and RefitShare -1)")
	hops := flag.Int("hops", 0, "Options.RefitHops of the incremental runs")
	otherSeed := flag.Bool("other-seed", true, "also a full run with another seed, for reference")
	fullRuns := flag.Bool("full-runs", true, "also the warm and cold full runs on each changed graph (closeness; off: the incremental nights only)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the incremental nights (Score only) to this file")
	flag.Parse()
	ctx := context.Background()

	g, opts, err := load(ctx, *caseFlag, *data)
	if err != nil {
		log.Fatal(err)
	}
	opts.Seed, opts.Workers, opts.KeepState = *seed, *workers, true
	fmt.Printf("case %s: %d nodes, %d relationships, %d cores, workers %d\n", *caseFlag, g.NumNodes(), g.NumEdges(), runtime.NumCPU(), *workers)

	first, c1 := run(ctx, g, opts)
	cpu1 := lastCPU
	fmt.Printf("night 1 (full): cpu %s, compute %s (prior %s, embedding %s [%d epochs], scoring %s)\n",
		secs(cpu1), secs(c1), secs(first.Timings.Prior), secs(first.Timings.Embedding), first.CNE.Epochs, secs(first.Timings.Scoring))
	t0 := time.Now()
	st := first.State(g, opts)
	tState := time.Since(t0)
	dir, err := os.MkdirTemp("", "incremental")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state")
	t0 = time.Now()
	if err := st.WriteFile(path); err != nil {
		log.Fatal(err)
	}
	tWrite := time.Since(t0)
	t0 = time.Now()
	if st, err = fondue.ReadStateFile(path); err != nil {
		log.Fatal(err)
	}
	tRead := time.Since(t0)
	fi, _ := os.Stat(path)
	fmt.Printf("state: fingerprints+terms %s, write %s, read %s, %.1f MB\n", secs(tState), secs(tWrite), secs(tRead), float64(fi.Size())/1e6)
	night1, err := os.ReadFile(path) // each night 2 saves over night 1's file
	if err != nil {
		log.Fatal(err)
	}

	fmt.Println("| changed | rescoring | night 2 compute (wall) | share of night 1 (cpu share) | changed / trained / rescored nodes | epochs | warm full run compute | cold full run compute | top-1% overlap, Spearman: inc vs warm full | inc vs cold full | cold full night 1 vs night 2 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	var other string
	for _, f := range strings.Split(*changes, ",") {
		share, err := strconv.ParseFloat(f, 64)
		if err != nil {
			log.Fatalf("-changes: %v", err)
		}
		h := change(g, opts, share, *seed)
		warm, cold, cw, cc := first, first, c1, c1
		if share != 0 && *fullRuns {
			o := opts
			o.WarmStart = st.Checkpoint
			warm, cw = run(ctx, h, o)
			cold, cc = run(ctx, h, opts)
		}
		if *otherSeed && other == "" {
			// Once, on night 1's graph.
			o := opts
			o.Seed++
			res, _ := run(ctx, g, o)
			a, b := compare(first.Scores, res.Scores)
			other = fmt.Sprintf("two cold full runs of night 1's graph, seeds %d and %d: top-1%% overlap %.1f%%, Spearman %.3f, entity estimates equal %s", *seed, *seed+1, 100*a, b, sameEntities(first, res))
		}
		pair := func(a, b []float64) string {
			ov, rho := compare(a, b)
			return fmt.Sprintf("%.1f%%, %.3f", 100*ov, rho)
		}
		for _, cfg := range strings.Split(*configs, ",") {
			o := opts
			o.Since, o.RefitHops = st, *hops
			if cfg == "exact" {
				o.MoveTolerance, o.RefitShare = -1, -1
			}
			profiling = *cpuProfile
			inc, c2 := run(ctx, h, o)
			profiling = ""
			wall, cpu := lastWall, lastCPU
			s := inc.Incremental
			fmt.Printf("| %g%% | %s | %s (%s) | %.1f%% (cpu %.1f%%) | %d / %d / %d | %d | %s | %s | %s | %s | %s |\n", 100*share, cfg, secs(c2), secs(wall), 100*c2.Seconds()/c1.Seconds(), 100*cpu.Seconds()/cpu1.Seconds(),
				s.Changed, s.Trained, s.Rescored, inc.CNE.Epochs, secs(cw), secs(cc), pair(inc.Scores, warm.Scores), pair(inc.Scores, cold.Scores), pair(first.Scores, cold.Scores))
			if s.Full {
				fmt.Printf("  (full: %s)\n", s.Reason)
			}
			if share > 0 {
				fmt.Printf("  changed nodes in the top 1%%: incremental %s, cold full %s; inc vs night 1 %s\n",
					changedInTop(g, h, inc.Scores), changedInTop(g, h, cold.Scores), pair(first.Scores, inc.Scores))
			}
			if share > 0 && *fullRuns {
				fmt.Printf("  the top 1%% within the cold full run's top 1.5%%, 2%%, 5%%: incremental %s; cold full night 1 %s\n",
					withinTops(inc.Scores, cold.Scores), withinTops(first.Scores, cold.Scores))
			}
			if share == 0 || *fullRuns {
				fmt.Printf("  entity estimates merged anew %d; equal to the cold full run's: %s (cold full night 1 vs night 2: %s)\n",
					s.Merged, sameEntities(inc, cold), sameEntities(first, cold))
			}
			if share > 0 && *fullRuns {
				fmt.Printf("  cold full night 1 vs night 2, estimates that differ: %s\n", entityMoves(g, h, first, cold))
			}
			fmt.Printf("  night 2: prior %s, embedding %s, scoring %s; against night 1, ambiguity changed on %s\n",
				secs(inc.Timings.Prior), secs(inc.Timings.Embedding), secs(inc.Timings.Scoring), moves(first.Ambiguity, inc.Ambiguity))
			fmt.Printf("  night 2 output digest %016x (scores, ambiguity, entity estimates; %d merged anew)\n", digest(inc), s.Merged)
			if err := os.WriteFile(path, night1, 0o644); err != nil {
				log.Fatal(err)
			}
			t0 := time.Now()
			saved, err := inc.State(h, o).WriteFileSince(path, st)
			if err != nil {
				log.Fatal(err)
			}
			tSave := time.Since(t0)
			t0 = time.Now()
			if _, err := fondue.ReadStateFile(path); err != nil {
				log.Fatal(err)
			}
			fmt.Printf("  night 2 state: saved %s (%d rows, %.1f MB, patch %v), read %s\n", secs(tSave), saved.Rows, float64(saved.Bytes)/1e6, saved.Patch, secs(time.Since(t0)))
		}
	}
	fmt.Println(other)
}

// lastWall and lastCPU are the wall and CPU time (user + system, of the
// process) of the last run: on a shared machine CPU time is the steadier
// measure of compute.
var lastWall, lastCPU time.Duration

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profiling, when set, is the file run writes a CPU profile of its Score
// call to; each profiled run appends to a file of its own (FILE.N).
var (
	profiling string
	profiles  int
)

// run scores g and returns the result and its compute time.
func run(ctx context.Context, g *graph.Graph, opts fondue.Options) (*fondue.Result, time.Duration) {
	runtime.GC()
	var prof *os.File
	if profiling != "" {
		var err error
		profiles++
		if prof, err = os.Create(fmt.Sprintf("%s.%d", profiling, profiles)); err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(prof); err != nil {
			log.Fatal(err)
		}
	}
	t0, c0 := time.Now(), cpuTime()
	res, err := fondue.Score(ctx, g, opts)
	if err != nil {
		log.Fatal(err)
	}
	lastWall, lastCPU = time.Since(t0), cpuTime()-c0
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
	}
	t := res.Timings
	return res, t.Prior + t.Embedding + t.Scoring
}

// changedInTop counts the nodes of the top 1% of scores (on h) whose
// links differ between g and h (same node order).
func changedInTop(g, h *graph.Graph, scores []float64) string {
	r := score.Ranking(scores)
	top := (len(r) + 99) / 100
	n := 0
	for _, i := range r[:top] {
		if !slices.Equal(g.Neighbors(i), h.Neighbors(i)) {
			n++
		}
	}
	return fmt.Sprintf("%d of %d", n, top)
}

// sameEntities is the share of the scored nodes of a whose entity
// estimate b has too.
func sameEntities(a, b *fondue.Result) string {
	var n, same int
	for i, s := range a.Scores {
		if !math.IsNaN(s) {
			n++
			if a.Entities[i] == b.Entities[i] {
				same++
			}
		}
	}
	return fmt.Sprintf("%.2f%% of %d", 100*float64(same)/float64(max(n, 1)), n)
}

// entityMoves counts the scored nodes whose entity estimates differ in a
// and b, among the nodes whose two-hop neighbourhood is the same in g and
// h (their pieces are the same) and among the others.
func entityMoves(g, h *graph.Graph, a, b *fondue.Result) string {
	var same, sameMoved, other, otherMoved int
	for i, s := range a.Scores {
		if math.IsNaN(s) {
			continue
		}
		kept := slices.Equal(g.Neighbors(i), h.Neighbors(i))
		for _, p := range g.Neighbors(i) {
			kept = kept && slices.Equal(g.Neighbors(int(p)), h.Neighbors(int(p)))
		}
		moved := a.Entities[i] != b.Entities[i]
		switch {
		case kept:
			same++
			if moved {
				sameMoved++
			}
		default:
			other++
			if moved {
				otherMoved++
			}
		}
	}
	return fmt.Sprintf("%d of %d nodes whose two hops did not change, %d of %d others", sameMoved, same, otherMoved, other)
}

// moves counts the nodes whose value changed at all, by more than 0.001
// and by more than 0.01 (what a sync that writes changed values writes).
func moves(a, b []float64) string {
	var any, milli, centi int
	for i := range a {
		if math.IsNaN(a[i]) && math.IsNaN(b[i]) {
			continue
		}
		d := math.Abs(a[i] - b[i])
		if d > 0 || math.IsNaN(d) {
			any++
		}
		if d > 0.001 || math.IsNaN(d) {
			milli++
		}
		if d > 0.01 || math.IsNaN(d) {
			centi++
		}
	}
	return fmt.Sprintf("%d nodes (> 0.001: %d, > 0.01: %d)", any, milli, centi)
}

// digest hashes a result's scores, ambiguity and entity estimates (FNV-1a
// of their bits): equal digests, equal outputs.
func digest(r *fondue.Result) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range r.Scores {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(r.Scores[i]))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(r.Ambiguity[i]))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], uint64(r.Entities[i]))
		h.Write(b[:])
	}
	return h.Sum64()
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// load builds the case's graph and options.
func load(ctx context.Context, c, data string) (*graph.Graph, fondue.Options, error) {
	var opts fondue.Options
	if name, ok := strings.CutPrefix(c, "real:"); ok {
		set, err := real.LoadSet(real.Dir(data), name)
		if err != nil {
			return nil, opts, err
		}
		if err := set.LoadContext(ctx, real.DefaultEvidenceProperties); err != nil {
			return nil, opts, err
		}
		opts.Targets, opts.Context = set.Targets, set.Context
		return set.Graph, opts, nil
	}
	if files, ok := strings.CutPrefix(c, "files:"); ok {
		// Neo4j import files (a kg case of fondue-bench scale): the authors
		// scored, year the evidence.
		f := strings.Split(files, ",")
		if len(f) != 2 {
			return nil, opts, fmt.Errorf("-case %q: want files:NODES.csv,RELS.csv", c)
		}
		kg, err := neo4jcsv.Read(ctx, neo4jcsv.Options{Nodes: f[:1], Relationships: f[1:], ScoreLabels: []string{"Author"},
			EvidenceProperties: []string{"year"}})
		if err != nil {
			return nil, opts, err
		}
		opts.Targets, opts.Context = kg.Targets, kg.Context
		return kg.Graph, opts, nil
	}
	f := strings.Split(c, ":")
	if len(f) != 3 || f[0] != "sbm" {
		return nil, opts, fmt.Errorf("-case %q: want sbm:NODES:DEGREE or real:SET", c)
	}
	n, err1 := strconv.Atoi(f[1])
	d, err2 := strconv.ParseFloat(f[2], 64)
	if err1 != nil || err2 != nil {
		return nil, opts, fmt.Errorf("-case %q: want sbm:NODES:DEGREE", c)
	}
	g, err := generate.SBM(generate.SBMOptions{Nodes: n, AvgDegree: d, Seed: 1})
	return g, opts, err
}

// change returns g with a share of its relationships moved (see the
// package comment); same nodes, keys and order.
func change(g *graph.Graph, opts fondue.Options, share float64, seed uint64) *graph.Graph {
	if share == 0 {
		return g
	}
	r := rand.New(rand.NewPCG(seed, 41))
	kind := func(i int) int32 {
		if c := opts.Context; c != nil {
			return kindOf(c, i)
		}
		return 0
	}
	byKind := map[int32][]int32{}
	for i := range g.NumNodes() {
		byKind[kind(i)] = append(byKind[kind(i)], int32(i))
	}
	var e [][2]int32
	for i := range g.NumNodes() {
		for _, j := range g.Neighbors(i) {
			if int(j) > i {
				e = append(e, [2]int32{int32(i), j})
			}
		}
	}
	k := int(math.Round(share * float64(len(e))))
	r.Shuffle(len(e), func(a, b int) { e[a], e[b] = e[b], e[a] })
	for t := range k {
		u, v := e[t][0], e[t][1]
		if r.IntN(2) == 0 {
			u, v = v, u
		}
		pool := byKind[kind(int(v))]
		e[t] = [2]int32{u, pool[r.IntN(len(pool))]}
	}
	edges := make([][2]int, len(e))
	for t, x := range e {
		edges[t] = [2]int{int(x[0]), int(x[1])}
	}
	h, err := graph.NewGraph(g.NumNodes(), edges)
	if err != nil {
		log.Fatal(err)
	}
	keys := make([]string, g.NumNodes())
	for i := range keys {
		keys[i] = g.Key(i)
	}
	if h, err = h.WithKeys(keys); err != nil {
		log.Fatal(err)
	}
	return h
}

func kindOf(c *evidence.Context, i int) int32 {
	if c.Kind == nil {
		return 0
	}
	return c.Kind[i]
}

// withinTops gives the share of a's top 1% that is within b's top 1.5%,
// 2% and 5% (nodes scored in both): whether the nodes the two top 1%s do
// not share sit just past the line or far from it.
func withinTops(a, b []float64) string {
	ka, kb := scoredInBoth(a, b)
	top := (len(ka) + 99) / 100
	rank := make([]int, len(kb))
	for r, i := range score.Ranking(kb) {
		rank[i] = r
	}
	var out []string
	for _, f := range []float64{0.015, 0.02, 0.05} {
		lim, in := int(math.Ceil(f*float64(len(kb)))), 0
		for _, i := range score.Ranking(ka)[:top] {
			if rank[i] < lim {
				in++
			}
		}
		out = append(out, fmt.Sprintf("%.1f%%", 100*float64(in)/float64(top)))
	}
	return strings.Join(out, ", ")
}

// scoredInBoth returns the scores of the nodes scored in both a and b.
func scoredInBoth(a, b []float64) (ka, kb []float64) {
	for i := range a {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			ka, kb = append(ka, a[i]), append(kb, b[i])
		}
	}
	return ka, kb
}

// compare returns the share of the top 1% of a (by score, among nodes
// scored in both) that is in b's top 1%, and the Spearman correlation of
// the two.
func compare(a, b []float64) (overlap, rho float64) {
	ka, kb := scoredInBoth(a, b)
	top := (len(ka) + 99) / 100
	ra, rb := score.Ranking(ka)[:top], score.Ranking(kb)[:top]
	in := map[int]bool{}
	for _, i := range rb {
		in[i] = true
	}
	for _, i := range ra {
		if in[i] {
			overlap++
		}
	}
	overlap /= float64(top)
	pa, pb := score.Percentiles(ka), score.Percentiles(kb)
	var ma, mb float64
	for i := range pa {
		ma += pa[i]
		mb += pb[i]
	}
	ma /= float64(len(pa))
	mb /= float64(len(pb))
	var sab, saa, sbb float64
	for i := range pa {
		sab += (pa[i] - ma) * (pb[i] - mb)
		saa += (pa[i] - ma) * (pa[i] - ma)
		sbb += (pb[i] - mb) * (pb[i] - mb)
	}
	return overlap, sab / math.Sqrt(saa*sbb)
}
