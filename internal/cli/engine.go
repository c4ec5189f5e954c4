package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/research"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/spf13/viper"
)

// FlagSet is the part of *pflag.FlagSet the Add functions use.
type FlagSet interface {
	Uint64(name string, value uint64, usage string) *uint64
	Int(name string, value int, usage string) *int
	String(name string, value string, usage string) *string
	Bool(name string, value bool, usage string) *bool
	Float64(name string, value float64, usage string) *float64
}

// FlagKeys maps the flags this package adds (AddGlobalFlags,
// AddEngineFlags) to their configuration keys.
var FlagKeys = map[string]string{
	"log-level":        "log.level",
	"log-format":       "log.format",
	"seed":             "seed",
	"threads":          "threads",
	"method":           "method",
	"random-splits":    "random_splits",
	"unnormalized":     "unnormalized",
	"polish":           "polish",
	"dim":              "embedding.dim",
	"sigma1":           "embedding.sigma1",
	"sigma2":           "embedding.sigma2",
	"epochs":           "embedding.epochs",
	"lr":               "embedding.learning_rate",
	"neg-ratio":        "embedding.neg_ratio",
	"mode":             "embedding.mode",
	"tol":              "embedding.tol",
	"start":            "embedding.start",
	"stability-stop":   "embedding.stability_stop",
	"checkpoint":       "embedding.checkpoint",
	"checkpoint-force": "embedding.checkpoint_force",
}

// FlagAliases are other names accepted for the flags this package adds:
// GDS's "concurrency" for --threads.
var FlagAliases = map[string]string{"concurrency": "threads"}

// engineFlags are the engine's flags, in the order help lists them.
var engineFlags = []struct {
	name string
	add  func(FlagSet)
}{
	{"seed", func(f FlagSet) { f.Uint64("seed", 1, "random seed: same input, config and seed give the same scores") }},
	{"threads", func(f FlagSet) {
		f.Int("threads", 0, "worker goroutines (0: all cores); does not change results (--concurrency: the same)")
	}},
	{"method", func(f FlagSet) {
		f.String("method", score.DefaultMethod, "scoring method: "+strings.Join(score.Methods(), ", "))
	}},
	{"random-splits", func(f FlagSet) {
		f.Int("random-splits", score.DefaultRandomSplits, "random sign vectors tried per node besides the eigenvector sweep (-1: none)")
	}},
	{"unnormalized", func(f FlagSet) { f.Bool("unnormalized", false, "do not divide the Rayleigh quotient by the degree") }},
	{"polish", func(f FlagSet) {
		f.Bool("polish", false, "improve each node's best sign vector by single flips (not in the paper)")
	}},
	{"dim", func(f FlagSet) { f.Int("dim", 8, "embedding dimension") }},
	{"sigma1", func(f FlagSet) { f.Float64("sigma1", 1, "CNE spread of distances between linked nodes") }},
	{"sigma2", func(f FlagSet) { f.Float64("sigma2", 2, "CNE spread of distances between unlinked nodes (> sigma1)") }},
	{"epochs", func(f FlagSet) { f.Int("epochs", 2000, "maximum CNE epochs (training stops earlier when converged)") }},
	{"lr", func(f FlagSet) { f.Float64("lr", 0.1, "Adam learning rate") }},
	{"neg-ratio", func(f FlagSet) { f.Int("neg-ratio", 5, "negative samples per edge in sampled mode") }},
	{"mode", func(f FlagSet) {
		f.String("mode", "auto", "CNE objective: exact (all pairs), sampled, or auto (exact up to 1000 nodes)")
	}},
	{"tol", func(f FlagSet) {
		f.Float64("tol", 1e-2, "CNE convergence tolerance (relative change of the smoothed gradient norm)")
	}},
	{"start", func(f FlagSet) {
		f.String("start", "smoothed", "CNE starting point: smoothed (noise smoothed over the graph) or noise (the paper's N(0,1) noise)")
	}},
	{"stability-stop", func(f FlagSet) {
		f.Bool("stability-stop", true, "also stop CNE once the top-10% ranking of a node sample stops changing (false: gradient-norm test only, as the paper)")
	}},
	{"checkpoint", func(f FlagSet) {
		f.String("checkpoint", "", "warm-start from this embedding file if it exists, and save the new embedding to it")
	}},
	{"checkpoint-force", func(f FlagSet) {
		f.Bool("checkpoint-force", false, "warm-start from --checkpoint even when it shares less than half of its nodes with the graph")
	}},
}

// MemoryFlags are the engine's flags that change its memory estimate
// (fondue.EstimateOptions), the ones "estimate" offers: the workers, the
// dimension, the negative samples, and a checkpoint (which keeps the
// optimizer's state).
var MemoryFlags = []string{"threads", "dim", "neg-ratio", "checkpoint"}

// CheckpointFlags are the engine's flags of the warm start, which a
// command that saves no embedding (fondue-bench) leaves out.
var CheckpointFlags = []string{"checkpoint", "checkpoint-force"}

// AddEngineFlags adds the engine's flags, shared by score, review, sync and
// fondue-bench; with names, only those (estimate: MemoryFlags). A command
// offers only the flags it uses.
func AddEngineFlags(f FlagSet, names ...string) {
	for _, ef := range engineFlags {
		if len(names) == 0 || slices.Contains(names, ef.name) {
			ef.add(f)
		}
	}
}

// EngineFlagsExcept returns the names of the engine's flags but except.
func EngineFlagsExcept(except ...string) []string {
	var out []string
	for _, ef := range engineFlags {
		if !slices.Contains(except, ef.name) {
			out = append(out, ef.name)
		}
	}
	return out
}

// EngineOptions builds the engine's options from the configuration Load
// read into v. Load has checked each value on its own; this checks how
// they go together, so that a bad combination fails before any work
// starts.
func EngineOptions(v *viper.Viper) (fondue.Options, error) {
	var o fondue.Options
	o.Seed = v.GetUint64("seed")
	o.Workers = v.GetInt("threads")
	o.Method = v.GetString("method")
	o.RandomSplits = v.GetInt("random_splits") // as in fondue.Options: negative is none
	if o.RandomSplits == 0 {
		// The default is 100, so a 0 was given on purpose. It used to mean
		// none, and the library reads 0 as the default: refuse it rather
		// than silently run 100.
		return o, UsageErrorf("random_splits 0: give -1 for no random splits, or leave it out for the default (%d)", score.DefaultRandomSplits)
	}
	o.Unnormalized = v.GetBool("unnormalized")
	o.Polish = v.GetBool("polish")
	o.CNE.Dim = v.GetInt("embedding.dim")
	o.CNE.Sigma1 = v.GetFloat64("embedding.sigma1")
	o.CNE.Sigma2 = v.GetFloat64("embedding.sigma2")
	o.CNE.MaxEpochs = v.GetInt("embedding.epochs")
	o.CNE.LearningRate = v.GetFloat64("embedding.learning_rate")
	o.CNE.NegRatio = v.GetInt("embedding.neg_ratio")
	o.CNE.Tol = v.GetFloat64("embedding.tol")
	o.CNE.NoiseStart = v.GetString("embedding.start") == "noise"
	o.CNE.NoStabilityStop = !v.GetBool("embedding.stability_stop")
	o.CNE.ExactMaxNodes = v.GetInt("embedding.exact_max_nodes")
	var err error
	if o.CNE.Mode, err = cne.ParseMode(v.GetString("embedding.mode")); err != nil {
		return o, UsageErrorf("embedding.mode: %v", err)
	}
	if err := o.CNE.Validate(); err != nil {
		return o, UsageErrorf("embedding: %v", err)
	}
	sp, err := SplitterNamed(v.GetString("split.method"))
	if err != nil {
		return o, err
	}
	if sp != nil && sp.NeedsEmbedding() && !score.UsesEmbedding(o.Method) {
		return o, UsageErrorf("split method %q needs method %q or %q, not %q", sp.Name(), score.MethodCombined, score.MethodFONDUE, o.Method)
	}
	o.Split.Splitter = sp
	o.Split.Top = v.GetInt("split.top")
	o.Split.MinAmbiguity = v.GetFloat64("split.min_ambiguity")
	return o, nil
}

// DefaultSplitter is the splitter sync uses when split.method is empty.
func DefaultSplitter() split.Splitter { return split.Splitters()[0] }

// SplitterNames lists the splitters of score, review and sync, the default
// first.
func SplitterNames() []string {
	var names []string
	for _, s := range split.Splitters() {
		names = append(names, s.Name())
	}
	return names
}

// IsSplitterName reports whether name is a splitter of fondue or of
// fondue/research (which SplitterNamed refuses with an explanation).
func IsSplitterName(name string) bool {
	return slices.Contains(SplitterNames(), name) || research.IsSplitter(name)
}

// SplitterNamed returns fondue's splitter called name, nil for "". A
// research splitter is refused: it is evaluated by the bench only.
func SplitterNamed(name string) (split.Splitter, error) {
	if name == "" {
		return nil, nil
	}
	if s := split.Find(split.Splitters(), name); s != nil {
		return s, nil
	}
	if research.IsSplitter(name) {
		return nil, UsageErrorf("splitter %q is a research splitter, available in the bench command (fondue-bench --splitters %s); this command offers %s",
			name, name, strings.Join(SplitterNames(), ", "))
	}
	return nil, UsageErrorf("unknown splitter %q (want one of %s)", name, strings.Join(SplitterNames(), ", "))
}

// DescribeOptions summarises the engine's options for a debug log line.
func DescribeOptions(o fondue.Options) string {
	return fmt.Sprintf("method=%s seed=%d dim=%d sigma1=%g sigma2=%g epochs<=%d lr=%g neg-ratio=%d",
		o.Method, o.Seed, o.CNE.Dim, o.CNE.Sigma1, o.CNE.Sigma2, o.CNE.MaxEpochs, o.CNE.LearningRate, o.CNE.NegRatio)
}
