package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// Config describes one benchmark run.
type Config struct {
	// Datasets to run (names of paper.json; default: all available).
	Datasets []string
	// Ratios are the contraction ratios (default: the paper's 0.001, 0.01, 0.1).
	Ratios []float64
	// Seeds is the number of contraction seeds per cell for identification
	// (seeds 1..Seeds; the paper used 10). SplitSeeds is the number for
	// splitting (seeds 1..SplitSeeds; the paper used 3). A seed counted by
	// both uses one contraction and one embedding for both evaluations.
	Seeds, SplitSeeds int
	// Methods are the identification methods (default score.Methods()).
	Methods []string
	// Splitters are the splitters evaluated (default setup.SplitterNames()).
	Splitters []string
	// Ties is the AUC tie convention of the tables; both conventions are
	// always recorded in the JSON.
	Ties eval.TieMode
	// Engine configures the engine as the score command does. Engine.Seed is
	// the base seed: seed k of a cell embeds with Engine.Seed + k − 1.
	// Method, Split and Progress are ignored.
	Engine fondue.Options
	// DataDir holds the edge lists (see setup.FindDataDir).
	DataDir string
	// Journal, when set, is a file of finished seeds (JSON lines): every
	// seed is appended as soon as it is done, and seeds already in it with
	// the same configuration are not run again (resume after a crash).
	Journal string
	// Fresh ignores and truncates an existing journal.
	Fresh bool
	// ReportOnly runs nothing: the results are the journal's seeds that
	// match the configuration, and the rest is reported as not run.
	ReportOnly bool
	// Progress, when set, receives events from the calling goroutine.
	Progress func(Event)
	// Checkpoint, when set, receives the results so far after every cell
	// (dataset and ratio), e.g. to rewrite a report as the run goes.
	Checkpoint func(*Results)
}

// EventKind says what an Event reports.
type EventKind int

const (
	EventStart    EventKind = iota // the run starts; Total is the number of seeds to do
	EventLoaded                    // a dataset was read
	EventSeedDone                  // a seed finished (Seed is set)
	EventResumed                   // a seed was taken from the journal (Seed is set)
	EventCellSkip                  // a cell has q = 0 and is skipped, as in the paper
)

// Event is a progress report of Run.
type Event struct {
	Kind        EventKind
	Done, Total int // seeds done (run or resumed) and in total
	Dataset     string
	Ratio       float64
	Seed        *SeedResult
	Nodes       int // EventLoaded: the dataset's size
	Edges       int
}

// withDefaults fills in the defaults and checks the configuration.
func (cfg Config) withDefaults(p *PaperData) (Config, error) {
	if len(cfg.Datasets) == 0 {
		cfg.Datasets = p.AvailableDatasets()
	}
	for _, name := range cfg.Datasets {
		d, ok := p.Dataset(name)
		if !ok {
			var names []string
			for _, d := range p.Datasets {
				names = append(names, d.Name)
			}
			return cfg, fmt.Errorf("unknown dataset %q (known: %v)", name, names)
		}
		if !d.Available() {
			return cfg, fmt.Errorf("dataset %q is not available: %s", name, d.Unavailable)
		}
	}
	if len(cfg.Ratios) == 0 {
		cfg.Ratios = p.PaperRatios()
	}
	for _, r := range cfg.Ratios {
		if !(r > 0 && r < 0.5) {
			return cfg, fmt.Errorf("contraction ratio %v: must be in (0, 0.5)", r)
		}
	}
	if cfg.Seeds < 0 || cfg.SplitSeeds < 0 || cfg.Seeds+cfg.SplitSeeds == 0 {
		return cfg, fmt.Errorf("seeds %d, split seeds %d: need at least one seed", cfg.Seeds, cfg.SplitSeeds)
	}
	var err error
	if cfg.Methods, cfg.Splitters, err = setup.Choose(cfg.Methods, cfg.Splitters); err != nil {
		return cfg, err
	}
	if cfg.Ties != eval.TiesAverage && cfg.Ties != eval.TiesAsLoss {
		return cfg, fmt.Errorf("invalid tie mode %v", cfg.Ties)
	}
	if err := cfg.Engine.CNE.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func (cfg Config) record() ConfigRecord {
	return ConfigRecord{
		Datasets: cfg.Datasets, Ratios: cfg.Ratios, Seeds: cfg.Seeds, SplitSeeds: cfg.SplitSeeds,
		Methods: cfg.Methods, Splitters: cfg.Splitters, Ties: cfg.Ties.String(), Workers: cfg.Engine.Workers,
		Engine: setup.NewEngine(cfg.Engine), DataDir: cfg.DataDir,
		SeedRule: "seed k (1-based) of a cell contracts with eval.Contract(graph, ratio, k) and embeds with engine seed base_seed + k - 1; identification uses seeds 1..seeds, splitting seeds 1..split_seeds, on the same contraction and embedding",
	}
}

// Run runs the benchmark. Cells whose q = ⌊ratio·n⌋ is 0 are skipped and
// reported as such, as in the paper. On cancellation or error it returns
// what it has (Complete false) with the error; with a journal nothing
// finished is lost.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	paper, err := Paper()
	if err != nil {
		return nil, err
	}
	if cfg, err = cfg.withDefaults(paper); err != nil {
		return nil, err
	}
	res := &Results{Config: cfg.record(), Started: time.Now()}
	if cfg.ReportOnly && (cfg.Journal == "" || cfg.Fresh) {
		return nil, errors.New("a report-only run needs a journal to read (and no --fresh)")
	}
	old, journal, err := openJournal(cfg.Journal, cfg.Fresh)
	if err != nil {
		return nil, err
	}
	if journal != nil {
		defer journal.Close()
	}
	nSeeds := max(cfg.Seeds, cfg.SplitSeeds)
	ru := &runner{
		cfg: cfg, res: res, old: old, journal: journal,
		skipped: map[[2]string]bool{},
		nSeeds:  nSeeds,
		total:   len(cfg.Datasets) * len(cfg.Ratios) * nSeeds,
	}
	ru.emit(Event{Kind: EventStart, Total: ru.total})
	for _, name := range cfg.Datasets {
		d, _ := paper.Dataset(name)
		if err := ru.runDataset(ctx, name, d); err != nil {
			return ru.finish(err)
		}
	}
	return ru.finish(nil)
}

// runner is the state of a Run: the results so far, the journal's seeds
// and the progress count.
type runner struct {
	cfg     Config
	res     *Results
	old     map[seedKey]*SeedResult // the journal's seeds
	journal *journalFile            // nil without a journal
	skipped map[[2]string]bool      // cells with q = 0
	nSeeds  int                     // seeds per cell
	total   int                     // seeds of the whole run
	done    int                     // seeds done, resumed or skipped
	g       *graph.Graph            // the current dataset's graph, once loaded
}

func (ru *runner) emit(e Event) {
	if ru.cfg.Progress != nil {
		ru.cfg.Progress(e)
	}
}

// finish summarises the seeds so far into the results.
func (ru *runner) finish(err error) (*Results, error) {
	res := ru.res
	res.Finished = time.Now()
	res.Seconds = res.Finished.Sub(res.Started).Seconds()
	res.Cells = summarize(ru.cfg, ru.skipped, res.Seeds)
	res.Complete = err == nil
	return res, err
}

// checkpoint hands the results so far to cfg.Checkpoint.
func (ru *runner) checkpoint() {
	if ru.cfg.Checkpoint != nil {
		ru.finish(errors.New("running"))
		ru.cfg.Checkpoint(ru.res)
	}
}

// runDataset runs every ratio of a dataset, loading its graph when a seed
// needs it, with a checkpoint after each cell.
func (ru *runner) runDataset(ctx context.Context, name string, d PaperDataset) error {
	ru.g = nil
	for _, r := range ru.cfg.Ratios {
		if err := ru.runCell(ctx, name, d, r); err != nil {
			return err
		}
		ru.checkpoint()
	}
	return nil
}

// runCell runs (or resumes from the journal) the seeds of a cell, loading
// the dataset's graph on first need. A cell with q = 0 is skipped.
func (ru *runner) runCell(ctx context.Context, name string, d PaperDataset, r float64) error {
	cfg := ru.cfg
	for k := 1; k <= ru.nSeeds; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		ident, split := k <= cfg.Seeds, k <= cfg.SplitSeeds
		fp := cfg.fingerprint(ident, split)
		if ru.resumeSeed(name, r, k, fp) {
			continue
		}
		if ru.g == nil {
			var err error
			if ru.g, err = LoadDataset(cfg.DataDir, d); err != nil {
				return err
			}
			ru.emit(Event{Kind: EventLoaded, Dataset: name, Nodes: ru.g.NumNodes(), Edges: ru.g.NumEdges(), Done: ru.done, Total: ru.total})
		}
		if q := int(math.Floor(r * float64(ru.g.NumNodes()) * (1 + 1e-9))); q == 0 {
			ru.done += ru.nSeeds - k + 1
			ru.skipped[[2]string{name, RatioKey(r)}] = true
			ru.emit(Event{Kind: EventCellSkip, Done: ru.done, Total: ru.total, Dataset: name, Ratio: r})
			return nil
		}
		if cfg.ReportOnly {
			ru.done++
			continue
		}
		sr, err := runSeed(ctx, cfg, ru.g, name, r, k, ident, split)
		if err != nil {
			return fmt.Errorf("%s r=%s seed %d: %w", name, RatioKey(r), k, err)
		}
		sr.Fingerprint = fp
		if err := ru.addSeed(name, r, sr); err != nil {
			return err
		}
	}
	return nil
}

// resumeSeed takes seed k of a cell from the journal when it was run with
// the same settings (fingerprint fp), and says whether it did.
func (ru *runner) resumeSeed(name string, r float64, k int, fp string) bool {
	sr, ok := ru.old[seedKey{name, RatioKey(r), k}]
	if !ok || sr.Fingerprint != fp {
		return false
	}
	for _, m := range sr.Methods {
		m.AUC = m.AUCAverage
		if ru.cfg.Ties == eval.TiesAsLoss {
			m.AUC = m.AUCLoss
		}
	}
	ru.res.Seeds = append(ru.res.Seeds, sr)
	ru.res.Resumed++
	ru.done++
	ru.emit(Event{Kind: EventResumed, Done: ru.done, Total: ru.total, Dataset: name, Ratio: r, Seed: sr})
	return true
}

// addSeed records a seed just run: in the journal, then in the results.
func (ru *runner) addSeed(name string, r float64, sr *SeedResult) error {
	if ru.journal != nil {
		if err := ru.journal.add(sr); err != nil {
			return err
		}
	}
	ru.res.Seeds = append(ru.res.Seeds, sr)
	ru.done++
	ru.emit(Event{Kind: EventSeedDone, Done: ru.done, Total: ru.total, Dataset: name, Ratio: r, Seed: sr})
	return nil
}

// runSeed contracts g with seed k and evaluates the methods (ident) and the
// splitters (split) on the result.
func runSeed(ctx context.Context, cfg Config, g *graph.Graph, name string, r float64, k int, ident, splits bool) (*SeedResult, error) {
	t0 := time.Now()
	c, err := eval.Contract(g, r, uint64(k))
	if err != nil {
		return nil, err
	}
	sr := &SeedResult{
		Dataset: name, Ratio: r, Seed: k, EngineSeed: cfg.Engine.Seed + uint64(k) - 1,
		Nodes: c.Graph.NumNodes(), Edges: c.Graph.NumEdges(), Ambiguous: c.NumAmbiguous(),
		DroppedLoops: c.DroppedLoops, MergedEdges: c.MergedEdges,
		ContractSeconds: time.Since(t0).Seconds(),
	}
	labels := c.Ambiguous
	// The splitters get the embedding of the contracted graph (some need
	// it, the default uses it when it is there, as after a FONDUE score).
	needEmb := splits || (ident && slices.ContainsFunc(cfg.Methods, score.UsesEmbedding))
	base := cfg.Engine
	base.Seed = sr.EngineSeed
	base.Split = fondue.SplitOptions{}
	base.Progress = nil
	var fres *fondue.Result
	if needEmb {
		o := base
		o.Method = score.MethodFONDUE
		if fres, err = fondue.Score(ctx, c.Graph, o); err != nil {
			return nil, err
		}
		t := fres.Timings
		sr.EmbedSeconds = (t.Prior + t.Embedding + t.Scoring).Seconds()
		sr.CNE = metrics.NewCNE(fres.CNE)
	}
	if ident {
		sr.Methods = map[string]*MethodResult{}
		for _, m := range cfg.Methods {
			res := fres
			if m == score.MethodCombined {
				// The same embedding as FONDUE's: its prior and embedding
				// times, and its own scoring time.
				if res, err = combinedFrom(ctx, c.Graph, fres, base); err != nil {
					return nil, err
				}
			} else if m != score.MethodFONDUE {
				o := base
				o.Method = m
				if res, err = fondue.Score(ctx, c.Graph, o); err != nil {
					return nil, err
				}
			}
			if sr.Methods[m], err = methodResult(res, labels, cfg.Ties); err != nil {
				return nil, err
			}
			top := metrics.TopOf(res.Scores, labels, degrees(c.Graph))
			sr.Methods[m].Top = &top
		}
	}
	if splits {
		sr.Splitters = map[string]*SplitResult{}
		for _, s := range cfg.Splitters {
			o := base
			o.Split = fondue.SplitOptions{Splitter: split.Find(setup.Splitters(), s)}
			if sr.Splitters[s], err = EvaluateSplits(ctx, c, setup.Measured(fres, s), o); err != nil {
				return nil, err
			}
		}
	}
	return sr, nil
}

// combinedFrom scores the combined method on the embedding of a FONDUE
// result, as fondue.Score with MethodCombined would on the same embedding.
func combinedFrom(ctx context.Context, g *graph.Graph, fres *fondue.Result, o fondue.Options) (*fondue.Result, error) {
	t0 := time.Now()
	o.Method = score.MethodCombined
	scores, err := fondue.ScoreEmbedding(ctx, g, fres.Embedding, o)
	if err != nil {
		return nil, err
	}
	res := *fres
	res.Method = score.MethodCombined
	res.Scores = scores
	res.Timings.Scoring = time.Since(t0)
	return &res, nil
}

// degrees returns every node's degree.
func degrees(g *graph.Graph) []int {
	d := make([]int, g.NumNodes())
	for i := range d {
		d[i] = g.Degree(i)
	}
	return d
}

// methodResult measures the scores of res against labels (one per node);
// the error is eval's, for labels of another length.
func methodResult(res *fondue.Result, labels []bool, ties eval.TieMode) (*MethodResult, error) {
	t := res.Timings
	mr := &MethodResult{
		Seconds: Phases{Prior: t.Prior.Seconds(), Embedding: t.Embedding.Seconds(), Scoring: t.Scoring.Seconds(),
			Total: (t.Prior + t.Embedding + t.Scoring).Seconds()},
	}
	var err error
	if mr.AUCAverage, err = eval.AUC(res.Scores, labels, eval.TiesAverage); err != nil {
		return nil, err
	}
	if mr.AUCLoss, err = eval.AUC(res.Scores, labels, eval.TiesAsLoss); err != nil {
		return nil, err
	}
	if mr.NDCG, err = eval.NDCG(res.Scores, labels); err != nil {
		return nil, err
	}
	fpr, tpr, err := eval.ROC(res.Scores, labels)
	if err != nil {
		return nil, err
	}
	mr.ROC = rocGrid(fpr, tpr)
	for k, v := range mr.ROC {
		mr.ROC[k] = format.Round6(v)
	}
	mr.AUC = mr.AUCAverage
	if ties == eval.TiesAsLoss {
		mr.AUC = mr.AUCLoss
	}
	return mr, nil
}

// rocGrid samples a ROC curve (points in order of increasing FPR, as
// eval.ROC returns them) at rocPoints evenly spaced false-positive rates,
// interpolating linearly; at a vertical step it takes the highest TPR
// reached at that FPR.
func rocGrid(fpr, tpr []float64) []float64 {
	if len(fpr) == 0 {
		return nil
	}
	out := make([]float64, rocPoints)
	p := 0
	for k := range out {
		x := float64(k) / float64(rocPoints-1)
		for p+1 < len(fpr) && fpr[p+1] <= x {
			p++
		}
		switch {
		case p+1 >= len(fpr) || fpr[p+1] == fpr[p]:
			out[k] = tpr[p]
		default:
			t := (x - fpr[p]) / (fpr[p+1] - fpr[p])
			out[k] = tpr[p] + t*(tpr[p+1]-tpr[p])
		}
	}
	return out
}
