package real

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/eval"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/research"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// The halves of the labelled names every real metric is reported for.
const (
	HalfAll     = "all"
	HalfDev     = "dev"
	HalfHeldOut = "held-out"
)

// halfOrder lists the halves in report order.
var halfOrder = [...]string{HalfAll, HalfDev, HalfHeldOut}

// Detection metrics (Seed.Detection).
const (
	MetricAUC     = "auc"             // ROC AUC, ties by average rank
	MetricAUCBins = "auc_within_bins" // metrics.AUCWithinBins
	MetricAUC2    = "auc_2_persons"   // AUC with only the 2-person positives
	MetricP100    = "p_at_100"        // metrics.PrecisionAt 100
)

// Splitting metrics (Seed.Splitting).
const (
	MetricARI         = "ari"               // mean over the split-evaluated names
	MetricARI2        = "ari_2_persons"     // over those with 2 persons
	MetricARI3        = "ari_3plus_persons" // over those with 3 or more
	MetricGroups      = "groups"            // mean number of groups proposed
	MetricPersons     = "persons"           // mean true number (persons)
	MetricGroupsExact = "groups_exact"      // share of names with as many groups as persons
	MetricGroupsMAE   = "groups_mae"        // mean |groups − persons|
)

// Entity-estimate metrics (Seed.Entities): over the split-evaluated
// positives (split_) and over all eligible labelled names (all_).
const (
	MetricSplitExact = "split_exact"
	MetricSplitMAE   = "split_mae"
	MetricSplitMean  = "split_mean"
	MetricAllExact   = "all_exact"
	MetricAllMAE     = "all_mae"
	MetricAllMean    = "all_mean"
)

// EstimatorEntities is the engine's estimate of the number of entities
// (fondue.Result.Entities of the default method); the other estimators
// are the component splitters' numbers of groups.
const EstimatorEntities = "entities"

// estimators lists the entity estimators in report order.
var estimators = [...]string{EstimatorEntities, research.EgoComponents, research.TwoHopComponents}

// precisionK is the k of the precision metric.
const precisionK = 100

// Num is a metric value; NaN (nothing to measure) is null in JSON.
type Num float64

func (x Num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(format.Round6(float64(x)))
}

func (x *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = Num(math.NaN())
		return nil
	}
	var f float64
	err := json.Unmarshal(b, &f)
	*x = Num(f)
	return err
}

// Metrics are named metric values.
type Metrics map[string]Num

// Config describes a run of the real benchmark.
type Config struct {
	// Dir is the real-data folder (Dir of the datasets folder).
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
	// Progress, when set, receives events from the calling goroutine.
	Progress func(Event)
}

// EventKind says what a Event reports.
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

// ConfigRecord is Config as recorded in the results.
type ConfigRecord struct {
	Dir             string       `json:"dir"`
	Sets            []string     `json:"sets"`
	Seeds           int          `json:"seeds"`
	Methods         []string     `json:"methods"`
	Splitters       []string     `json:"splitters"`
	DefaultMethod   string       `json:"default_method"`
	DefaultSplitter string       `json:"default_splitter"`
	Deterministic   []string     `json:"deterministic_methods"` // run once, the same in every seed's record
	Workers         int          `json:"workers"`
	Engine          setup.Engine `json:"engine"`
	SeedRule        string       `json:"seed_rule"`
}

// Results is the outcome of Run.
type Results struct {
	Config   ConfigRecord `json:"config"`
	Started  time.Time    `json:"started"`
	Finished time.Time    `json:"finished"`
	Seconds  float64      `json:"wall_seconds"`
	Sets     []*SetResult `json:"sets"`
}

// HalfInfo counts the names of a half.
type HalfInfo struct {
	Labelled   int `json:"labelled"`
	Positives  int `json:"positives"`   // persons >= 2, with an edge
	Positives2 int `json:"positives_2"` // of which exactly 2 persons
	Negatives  int `json:"negatives"`   // persons == 1, foreign == 0, with an edge
	// LeftOut counts the labelled names neither positive nor negative:
	// one person with foreign occurrences, or no edge.
	LeftOut int `json:"left_out"`
	// SplitNames counts the positives whose labelled neighbours span two
	// or more persons (the names splits are scored on), by persons.
	SplitNames  int `json:"split_names"`
	SplitNames2 int `json:"split_names_2"`
	SplitNames3 int `json:"split_names_3plus"`
}

// TopName is one of the default method's highest-ranked labelled names.
type TopName struct {
	Rank     int     `json:"rank"` // among the eligible labelled names
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	Persons  int     `json:"persons"`
	Foreign  int     `json:"foreign"`
	Degree   int     `json:"degree"`
	Score    float64 `json:"score"`
	Entities int     `json:"entities"`
	Groups   int     `json:"groups,omitempty"` // of the default splitter, for a split-evaluated name
	Dev      bool    `json:"dev"`
}

// Seed is everything measured on a set with one engine seed: per
// method (splitter, estimator) and per half (halfOrder), the metrics.
type Seed struct {
	Seed       int                           `json:"seed"`
	EngineSeed uint64                        `json:"engine_seed"`
	CNE        *metrics.CNE                  `json:"cne,omitempty"`
	Detection  map[string]map[string]Metrics `json:"detection"`
	Splitting  map[string]map[string]Metrics `json:"splitting"`
	Entities   map[string]map[string]Metrics `json:"entities"`
	// Seconds: wall time of each method's scoring (the default's with its
	// embedding) and of each splitter, "method:NAME" and "splitter:NAME".
	Seconds map[string]float64 `json:"seconds"`
}

// SetResult is a set's results over the seeds.
type SetResult struct {
	Name string `json:"name"`
	// Prefix is the scored nodes' id prefix ("" when all are scored).
	Prefix  string              `json:"target_prefix"`
	Nodes   int                 `json:"nodes"`
	Edges   int                 `json:"edges"`
	Scored  int                 `json:"scored_nodes"` // nodes with an edge among the targets
	DevRule string              `json:"dev_rule"`
	Halves  map[string]HalfInfo `json:"halves"`
	// DegreeAgrees counts the eligible names whose truth-file degree is the
	// graph's (the graph's is used).
	DegreeAgrees int `json:"degree_agrees"`
	Eligible     int `json:"eligible"`
	// SplitPersons and EligiblePersons are the mean numbers of persons of
	// the split-evaluated names and of all eligible names (all halves).
	SplitPersons    Num           `json:"split_persons_mean"`
	EligiblePersons Num           `json:"eligible_persons_mean"`
	Top             []TopName     `json:"top"`
	Seeds           []*Seed       `json:"seeds"`
	Summary         *SetSummary   `json:"summary"`
	Seconds         float64       `json:"seconds"`
	HasNames        bool          `json:"display_names"`
	Splits          []SplitRecord `json:"splits"`
}

// SplitRecord is one split-evaluated name's ARI and groups, per
// splitter, over the seeds (for a reader who wants per-name numbers).
type SplitRecord struct {
	ID       string               `json:"id"`
	Persons  int                  `json:"persons"`
	Dev      bool                 `json:"dev"`
	Labelled int                  `json:"labelled_neighbours"`
	ARI      map[string][]float64 `json:"ari"`    // splitter -> per seed
	Groups   map[string][]int     `json:"groups"` // splitter -> per seed
}

// SetSummary holds the mean (and spread) over seeds of every metric:
// per method (splitter, estimator), per half, per metric.
type SetSummary struct {
	Detection map[string]map[string]map[string]metrics.Stat `json:"detection"`
	Splitting map[string]map[string]map[string]metrics.Stat `json:"splitting"`
	Entities  map[string]map[string]map[string]metrics.Stat `json:"entities"`
	Seconds   map[string]float64                            `json:"seconds"` // mean per seed
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
	if cfg.Methods == nil {
		cfg.Methods = score.Methods()
	}
	for _, m := range cfg.Methods {
		if !slices.Contains(score.Methods(), m) {
			return cfg, fmt.Errorf("unknown method %q (want one of %v)", m, score.Methods())
		}
	}
	if cfg.Splitters == nil {
		cfg.Splitters = setup.SplitterNames()
	}
	for _, s := range cfg.Splitters {
		if split.Find(setup.Splitters(), s) == nil {
			return cfg, fmt.Errorf("unknown splitter %q (want one of %v)", s, setup.SplitterNames())
		}
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
		DevRule: set.DevRule, Halves: map[string]HalfInfo{}, HasNames: set.Names != nil}
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
		nodes := make([]int, len(ev.split))
		for j, sn := range ev.split {
			nodes[j] = sn.node
		}
		t0 := time.Now()
		props, err := fondue.ProposeSplits(ctx, g, withEmb, nodes, o)
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

// detection computes the detection metrics of scores (graph-indexed) per half.
func (ev *setEval) detection(scores []float64) map[string]Metrics {
	out := map[string]Metrics{}
	for _, h := range halfOrder {
		var s, s2 []float64
		var pos, pos2 []bool
		var deg []int
		for _, e := range ev.elig {
			if !inHalf(h, e.dev) {
				continue
			}
			x := scores[e.node]
			s, pos, deg = append(s, x), append(pos, e.pos), append(deg, e.degree)
			if !e.pos || e.ln.Persons == 2 {
				s2, pos2 = append(s2, x), append(pos2, e.pos)
			}
		}
		// A label per score in both lists: AUC has no error to report.
		auc, _ := eval.AUC(s, pos, eval.TiesAverage)
		auc2, _ := eval.AUC(s2, pos2, eval.TiesAverage)
		out[h] = Metrics{
			MetricAUC:     Num(auc),
			MetricAUCBins: Num(metrics.AUCWithinBins(s, pos, deg)),
			MetricAUC2:    Num(auc2),
			MetricP100:    Num(metrics.PrecisionAt(s, pos, precisionK)),
		}
	}
	return out
}

// splitting computes a splitter's metrics per half from its proposals (in
// the order of ev.split), and records each name's ARI and groups.
func (ev *setEval) splitting(splitter string, props []fondue.Proposal) map[string]Metrics {
	g := ev.set.Graph
	ari := make([]float64, len(ev.split))
	groups := make([]int, len(ev.split))
	for j, sn := range ev.split {
		groupOf := map[string]int{}
		for gi, grp := range props[j].Groups {
			for _, v := range grp {
				groupOf[g.Key(int(v))] = gi
			}
		}
		ari[j], _, _, _ = splitARI(sn.nb, groupOf)
		groups[j] = len(props[j].Groups)
		rec := &ev.result.Splits[j]
		rec.ARI[splitter] = append(rec.ARI[splitter], format.Round6(ari[j]))
		rec.Groups[splitter] = append(rec.Groups[splitter], groups[j])
	}
	out := map[string]Metrics{}
	for _, h := range halfOrder {
		var all, two, more []float64
		var est, truth []int
		for j, sn := range ev.split {
			if !inHalf(h, sn.dev) {
				continue
			}
			all = append(all, ari[j])
			if sn.ln.Persons == 2 {
				two = append(two, ari[j])
			} else {
				more = append(more, ari[j])
			}
			est, truth = append(est, groups[j]), append(truth, sn.ln.Persons)
		}
		exact, mae := metrics.CountErrors(est, truth)
		out[h] = Metrics{
			MetricARI: Num(meanFloats(all)), MetricARI2: Num(meanFloats(two)), MetricARI3: Num(meanFloats(more)),
			MetricGroups: Num(meanInts(est)), MetricPersons: Num(meanInts(truth)),
			MetricGroupsExact: Num(exact), MetricGroupsMAE: Num(mae),
		}
	}
	return out
}

// entities measures the estimators of the number of entities: the
// default method's Result.Entities and the component splitters' numbers of
// groups (computed once), over the split-evaluated and all eligible names.
func (ev *setEval) entities(ctx context.Context, def *fondue.Result, seed *Seed) error {
	g := ev.set.Graph
	if ev.components == nil {
		ev.components = map[string][]int{}
		nodes := make([]int, len(ev.elig))
		for j, e := range ev.elig {
			nodes[j] = e.node
		}
		for _, name := range estimators[1:] {
			o := ev.options(1)
			o.Split = fondue.SplitOptions{Splitter: split.Find(research.Splitters(), name)}
			props, err := fondue.ProposeSplits(ctx, g, nil, nodes, o)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			counts := make([]int, len(props))
			for j, p := range props {
				counts[j] = len(p.Groups)
			}
			ev.components[name] = counts
		}
	}
	splitIDs := map[string]bool{}
	for _, sn := range ev.split {
		splitIDs[sn.ln.ID] = true
	}
	for _, name := range estimators {
		est := ev.components[name]
		if name == EstimatorEntities {
			est = make([]int, len(ev.elig))
			if def.Entities != nil {
				for j, e := range ev.elig {
					est[j] = def.Entities[e.node]
				}
			}
		}
		per := map[string]Metrics{}
		for _, h := range halfOrder {
			var sEst, sTrue, aEst, aTrue []int
			for j, e := range ev.elig {
				if !inHalf(h, e.dev) {
					continue
				}
				aEst, aTrue = append(aEst, est[j]), append(aTrue, e.ln.Persons)
				if splitIDs[e.ln.ID] {
					sEst, sTrue = append(sEst, est[j]), append(sTrue, e.ln.Persons)
				}
			}
			se, sm := metrics.CountErrors(sEst, sTrue)
			ae, am := metrics.CountErrors(aEst, aTrue)
			per[h] = Metrics{MetricSplitExact: Num(se), MetricSplitMAE: Num(sm), MetricSplitMean: Num(meanInts(sEst)),
				MetricAllExact: Num(ae), MetricAllMAE: Num(am), MetricAllMean: Num(meanInts(aEst))}
		}
		seed.Entities[name] = per
	}
	return nil
}

// topN is the number of names in SetResult.Top.
const topN = 10

// top returns the default method's topN highest-scored eligible names.
func (ev *setEval) top(scores []float64, entities []int) []TopName {
	order := make([]int, 0, len(ev.elig))
	for j, e := range ev.elig {
		if !math.IsNaN(scores[e.node]) {
			order = append(order, j)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := scores[ev.elig[a].node], scores[ev.elig[b].node]
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	var out []TopName
	for r, j := range order[:min(topN, len(order))] {
		e := ev.elig[j]
		t := TopName{Rank: r + 1, ID: e.ln.ID, Name: ev.set.DisplayName(e.ln), Persons: e.ln.Persons, Foreign: e.ln.Foreign,
			Degree: e.degree, Score: format.Round6(scores[e.node]), Dev: e.dev}
		if entities != nil {
			t.Entities = entities[e.node]
		}
		out = append(out, t)
	}
	return out
}

// summarize aggregates the seeds: mean and spread of every metric.
func summarize(seeds []*Seed) *SetSummary {
	agg := func(get func(*Seed) map[string]map[string]Metrics) map[string]map[string]map[string]metrics.Stat {
		out := map[string]map[string]map[string]metrics.Stat{}
		vals := map[[3]string][]float64{}
		for _, s := range seeds {
			for m, halves := range get(s) {
				for h, ms := range halves {
					for k, v := range ms {
						key := [3]string{m, h, k}
						vals[key] = append(vals[key], float64(v))
					}
				}
			}
		}
		for key, xs := range vals {
			if out[key[0]] == nil {
				out[key[0]] = map[string]map[string]metrics.Stat{}
			}
			if out[key[0]][key[1]] == nil {
				out[key[0]][key[1]] = map[string]metrics.Stat{}
			}
			out[key[0]][key[1]][key[2]] = metrics.NewStat(xs)
		}
		return out
	}
	sum := &SetSummary{
		Detection: agg(func(s *Seed) map[string]map[string]Metrics { return s.Detection }),
		Splitting: agg(func(s *Seed) map[string]map[string]Metrics { return s.Splitting }),
		Entities:  agg(func(s *Seed) map[string]map[string]Metrics { return s.Entities }),
		Seconds:   map[string]float64{},
	}
	for _, s := range seeds {
		for k, v := range s.Seconds {
			sum.Seconds[k] += v / float64(len(seeds))
		}
	}
	return sum
}

// statMean returns the mean over seeds of a metric of a summary table
// (name, half, metric), NaN when absent.
func statMean(table map[string]map[string]map[string]metrics.Stat, name, half, metric string) float64 {
	if st, ok := table[name][half][metric]; ok && st.N > 0 {
		return st.Mean
	}
	return math.NaN()
}
