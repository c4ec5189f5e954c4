package real

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/research"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// Config describes a run of the real benchmark.
type Config struct {
	// Dir is the folder of the real sets: Dir(dataDir) of the datasets folder.
	Dir string
	// Sets are the real sets to run (default: every set in Dir).
	Sets []string
	// Seeds: engine seeds 1..Seeds (seed k embeds with Engine.Seed + k − 1).
	// The methods that fit no embedding are deterministic and run once.
	Seeds int
	// Methods are the detection methods (default score.Methods()).
	Methods []string
	// Splitters are the splitters (default setup.SplitterNames()).
	Splitters []string
	// Engine configures the engine as the score command does; Method,
	// Targets, Split and Progress are ignored.
	Engine fondue.Options
	// EvidenceProperties are the node properties read as evidence from a
	// knowledge-graph set's import files (nil: DefaultEvidenceProperties).
	EvidenceProperties []string
	// Progress, when set, receives events from the calling goroutine.
	Progress func(Event)
}

// DefaultEvidenceProperties are the evidence properties of the knowledge-graph sets.
var DefaultEvidenceProperties = []string{"title", "year"}

// EventKind says what an Event reports.
type EventKind int

const (
	EventLoaded   EventKind = iota // a set was read (Set)
	EventSeedDone                  // a seed of a set finished (Set, Seed)
	EventSetDone                   // a set finished (Set)
)

// Event is a progress report of Run.
type Event struct {
	Kind        EventKind
	Set         *SetResult
	Seed        *Seed
	Done, Total int // seeds done and in total
}

func (cfg Config) withDefaults() (Config, error) {
	if cfg.Seeds < 1 {
		return cfg, fmt.Errorf("seeds %d: need at least one", cfg.Seeds)
	}
	if len(cfg.Sets) == 0 {
		sets, err := SetNames(cfg.Dir)
		if err != nil {
			return cfg, fmt.Errorf("real data folder: %w", err)
		}
		if len(sets) == 0 {
			return cfg, fmt.Errorf("no real set in %s (want X%s with X%s and X%s beside it)", cfg.Dir, suffixEdges, suffixTruth, suffixNeighbours)
		}
		cfg.Sets = sets
	}
	var err error
	if cfg.Methods, cfg.Splitters, err = setup.Choose(cfg.Methods, cfg.Splitters); err != nil {
		return cfg, err
	}
	return cfg, cfg.Engine.CNE.Validate()
}

func (cfg Config) record() ConfigRecord {
	var det []string
	for _, m := range cfg.Methods {
		if !score.UsesEmbedding(m) {
			det = append(det, m)
		}
	}
	return ConfigRecord{
		Dir: cfg.Dir, Sets: cfg.Sets, Seeds: cfg.Seeds, Methods: cfg.Methods, Splitters: cfg.Splitters,
		DefaultMethod: score.DefaultMethod, DefaultSplitter: split.Default, Deterministic: det,
		Workers: cfg.Engine.Workers, Engine: setup.NewEngine(cfg.Engine),
		SeedRule: "seed k (1-based) scores with engine seed base_seed + k - 1; the methods that fit no embedding (deterministic_methods) run once; " +
			"the splitters split the split-evaluated names on the default method's score of the same seed (with its embedding)",
	}
}

// Run runs the real benchmark: for each set, every method's detection
// metrics, every splitter's split metrics and the entity estimates, per
// seed and half, with their means over seeds. On cancellation or error it
// returns what it has with the error.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	res := &Results{Config: cfg.record(), Started: time.Now()}
	finish := func(err error) (*Results, error) {
		res.Finished = time.Now()
		res.Seconds = res.Finished.Sub(res.Started).Seconds()
		return res, err
	}
	total, done := len(cfg.Sets)*cfg.Seeds, 0
	for _, name := range cfg.Sets {
		t0 := time.Now()
		set, err := LoadSet(cfg.Dir, name)
		if err == nil {
			props := cfg.EvidenceProperties
			if props == nil {
				props = DefaultEvidenceProperties
			}
			err = set.LoadContext(ctx, props)
		}
		if err != nil {
			return finish(&DataError{Set: name, Err: err})
		}
		ev := newSetEval(set, cfg)
		sr := ev.result
		res.Sets = append(res.Sets, sr)
		cfg.emit(Event{Kind: EventLoaded, Set: sr, Done: done, Total: total})
		for k := 1; k <= cfg.Seeds; k++ {
			if err := ctx.Err(); err != nil {
				return finish(err)
			}
			seed, err := ev.runSeed(ctx, k)
			if err != nil {
				return finish(fmt.Errorf("real set %s seed %d: %w", name, k, err))
			}
			sr.Seeds = append(sr.Seeds, seed)
			done++
			cfg.emit(Event{Kind: EventSeedDone, Set: sr, Seed: seed, Done: done, Total: total})
		}
		sr.Summary = summarize(sr.Seeds)
		sr.Seconds = time.Since(t0).Seconds()
		cfg.emit(Event{Kind: EventSetDone, Set: sr, Done: done, Total: total})
	}
	return finish(nil)
}

// DataError is a real set that could not be read: a missing or
// malformed file (the error names file:line).
type DataError struct {
	Set string
	Err error
}

func (e *DataError) Error() string { return e.Err.Error() }
func (e *DataError) Unwrap() error { return e.Err }

// IsDataError reports whether err is (or wraps) a DataError.
func IsDataError(err error) bool {
	var e *DataError
	return errors.As(err, &e)
}

func (cfg Config) emit(e Event) {
	if cfg.Progress != nil {
		cfg.Progress(e)
	}
}

// eligName is a labelled name detection is scored on.
type eligName struct {
	ln     *LabelledName
	node   int
	pos    bool
	degree int // in the graph
	dev    bool
}

// splitName is a positive name splits are scored on.
type splitName struct {
	ln   *LabelledName
	node int
	dev  bool
	nb   []LabelledNeighbour
}

// setEval is the state of one set's evaluation.
type setEval struct {
	cfg    Config
	set    *Set
	elig   []eligName
	split  []splitName
	result *SetResult
	// once holds the scores of the methods that fit no embedding, and
	// components the component splitters' groups of the eligible names:
	// deterministic, computed on the first seed.
	once       map[string][]float64
	onceSecs   map[string]float64
	components map[string][]int
}

func inHalf(half string, dev bool) bool {
	return half == HalfAll || (half == HalfDev) == dev
}

func newSetEval(set *Set, cfg Config) *setEval {
	g := set.Graph
	ev := &setEval{cfg: cfg, set: set, once: map[string][]float64{}, onceSecs: map[string]float64{}}
	sr := &SetResult{Name: set.Name, Prefix: set.Prefix, Nodes: g.NumNodes(), Edges: g.NumEdges(),
		DevRule: set.DevRule, Halves: map[string]HalfInfo{}, HasNames: set.Names != nil, Context: describeContext(set.Context)}
	for i := range g.NumNodes() {
		if g.Degree(i) > 0 && (set.Targets == nil || set.Targets[i]) {
			sr.Scored++
		}
	}
	for k := range set.Labelled {
		ln := &set.Labelled[k]
		dev := set.Dev[ln.ID]
		node, linked := set.NodeOf(ln.ID)
		pos := ln.Persons >= 2
		neg := ln.Persons == 1 && ln.Foreign == 0
		for _, h := range halfOrder {
			if !inHalf(h, dev) {
				continue
			}
			hi := sr.Halves[h]
			hi.Labelled++
			switch {
			case linked && pos:
				hi.Positives++
				if ln.Persons == 2 {
					hi.Positives2++
				}
			case linked && neg:
				hi.Negatives++
			default:
				hi.LeftOut++
			}
			sr.Halves[h] = hi
		}
		if !linked || !(pos || neg) {
			continue
		}
		ev.elig = append(ev.elig, eligName{ln: ln, node: node, pos: pos, degree: g.Degree(node), dev: dev})
		if g.Degree(node) == ln.Degree {
			sr.DegreeAgrees++
		}
		if !pos {
			continue
		}
		// Evaluated for splitting when its singly-labelled neighbours span
		// two persons or more.
		if _, _, _, ok := splitARI(set.Neighbours[ln.ID], nil); !ok {
			continue
		}
		ev.split = append(ev.split, splitName{ln: ln, node: node, dev: dev, nb: set.Neighbours[ln.ID]})
		for _, h := range halfOrder {
			if inHalf(h, dev) {
				hi := sr.Halves[h]
				hi.SplitNames++
				if ln.Persons == 2 {
					hi.SplitNames2++
				} else {
					hi.SplitNames3++
				}
				sr.Halves[h] = hi
			}
		}
	}
	sr.Eligible = len(ev.elig)
	var ep, sp []int
	for _, e := range ev.elig {
		ep = append(ep, e.ln.Persons)
	}
	for _, s := range ev.split {
		sp = append(sp, s.ln.Persons)
	}
	sr.EligiblePersons, sr.SplitPersons = Num(meanInts(ep)), Num(meanInts(sp))
	for _, s := range ev.split {
		sr.Splits = append(sr.Splits, SplitRecord{ID: s.ln.ID, Persons: s.ln.Persons, Dev: s.dev,
			Labelled: labelledCount(s.nb), ARI: map[string][]float64{}, Groups: map[string][]int{}})
	}
	ev.result = sr
	return ev
}

// labelledCount counts the neighbours with exactly one person.
func labelledCount(nb []LabelledNeighbour) int {
	n := 0
	for _, x := range nb {
		if len(x.Persons) == 1 {
			n++
		}
	}
	return n
}

// options returns the engine options of seed k.
func (ev *setEval) options(k int) fondue.Options {
	o := ev.cfg.Engine
	o.Seed = ev.cfg.Engine.Seed + uint64(k) - 1
	o.Targets = ev.set.Targets
	o.Context = ev.set.Context
	o.Split = fondue.SplitOptions{}
	o.Progress = nil
	o.Method = score.DefaultMethod
	return o
}

// runSeed measures every method, splitter and estimator with seed k.
func (ev *setEval) runSeed(ctx context.Context, k int) (*Seed, error) {
	g := ev.set.Graph
	opts := ev.options(k)
	seed := &Seed{Seed: k, EngineSeed: opts.Seed, Seconds: map[string]float64{},
		Detection: map[string]map[string]Metrics{}, Splitting: map[string]map[string]Metrics{}, Entities: map[string]map[string]Metrics{}}
	// The default method's score: its entity estimates, and the score the
	// splits follow (with an embedding: when the default fits none, the
	// FONDUE score of the same seed gives the splitters one).
	t0 := time.Now()
	def, err := fondue.Score(ctx, g, opts)
	if err != nil {
		return nil, err
	}
	seed.Seconds["method:"+score.DefaultMethod] = time.Since(t0).Seconds()
	withEmb := def
	if def.Embedding == nil {
		o := opts
		o.Method = score.MethodFONDUE
		t0 := time.Now()
		if withEmb, err = fondue.Score(ctx, g, o); err != nil {
			return nil, err
		}
		seed.Seconds["method:"+score.MethodFONDUE] = time.Since(t0).Seconds()
	}
	if withEmb.Embedding != nil {
		seed.CNE = metrics.NewCNE(withEmb.CNE)
	}
	for _, m := range ev.cfg.Methods {
		scores, err := ev.methodScores(ctx, m, opts, def, withEmb, seed.Seconds)
		if err != nil {
			return nil, fmt.Errorf("method %s: %w", m, err)
		}
		seed.Detection[m] = ev.detection(scores)
	}
	if k == 1 {
		ev.result.Top = ev.top(def.Scores, def.Entities)
	}
	for _, s := range ev.cfg.Splitters {
		o := opts
		o.Split = fondue.SplitOptions{Splitter: split.Find(setup.Splitters(), s)}
		if split.Find(research.Splitters(), s) != nil {
			o.Context = nil // the component baselines: the links of the whole graph
		}
		nodes := make([]int, len(ev.split))
		for j, sn := range ev.split {
			nodes[j] = sn.node
		}
		t0 := time.Now()
		props, err := fondue.ProposeSplits(ctx, g, setup.Measured(withEmb, s), nodes, o)
		if err != nil {
			return nil, fmt.Errorf("splitter %s: %w", s, err)
		}
		seed.Seconds["splitter:"+s] = time.Since(t0).Seconds()
		seed.Splitting[s] = ev.splitting(s, props)
		if s == split.Default && k == 1 {
			for j, sn := range ev.split {
				for t := range ev.result.Top {
					if ev.result.Top[t].ID == sn.ln.ID {
						ev.result.Top[t].Groups = len(props[j].Groups)
					}
				}
			}
		}
	}
	if err := ev.entities(ctx, def, seed); err != nil {
		return nil, err
	}
	return seed, nil
}

// methodScores returns method m's scores: the default's from def, the
// other embedding methods' from the same embedding (ScoreEmbedding, else a
// Score of their own), and the deterministic ones computed once.
func (ev *setEval) methodScores(ctx context.Context, m string, opts fondue.Options, def, withEmb *fondue.Result, secs map[string]float64) ([]float64, error) {
	g := ev.set.Graph
	key := "method:" + m
	switch {
	case m == def.Method:
		return def.Scores, nil
	case m == withEmb.Method:
		return withEmb.Scores, nil
	case !score.UsesEmbedding(m):
		if s, ok := ev.once[m]; ok {
			secs[key] = ev.onceSecs[m]
			return s, nil
		}
		o := opts
		o.Method = m
		t0 := time.Now()
		res, err := fondue.Score(ctx, g, o)
		if err != nil {
			return nil, err
		}
		ev.once[m], ev.onceSecs[m] = res.Scores, time.Since(t0).Seconds()
		secs[key] = ev.onceSecs[m]
		return res.Scores, nil
	}
	o := opts
	o.Method = m
	t0 := time.Now()
	scores, err := fondue.ScoreEmbedding(ctx, g, withEmb.Embedding, o)
	var oe *fondue.OptionsError
	if errors.As(err, &oe) {
		// A method ScoreEmbedding does not know: a score of its own.
		var res *fondue.Result
		if res, err = fondue.Score(ctx, g, o); err == nil {
			scores = res.Scores
		}
	}
	secs[key] = time.Since(t0).Seconds()
	return scores, err
}

// describeContext says what a context holds: its kinds and evidence properties.
func describeContext(c *evidence.Context) string {
	if c == nil {
		return ""
	}
	var props []string
	for _, p := range c.Properties {
		kind := "text"
		if p.Numeric {
			kind = "number"
		}
		props = append(props, fmt.Sprintf("`%s` (%s)", p.Name, kind))
	}
	return fmt.Sprintf("kinds %s; evidence properties %s", strings.Join(c.Kinds, ", "), strings.Join(props, ", "))
}
