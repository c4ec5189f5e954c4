package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// EnvPrefix starts the environment variable of every setting.
const EnvPrefix = "FONDUE_"

// configEnv names the config file (--config): a FONDUE_* variable that is
// not a setting, which ReadEnv leaves alone (IsOtherEnv). The test
// harness's and the bench's variables are not FONDUE_* (TESTENV_*,
// BENCH_DATASETS).
const configEnv = "FONDUE_CONFIG"

// IsOtherEnv reports whether a FONDUE_* variable is read elsewhere, not a
// setting: FONDUE_CONFIG.
func IsOtherEnv(name string) bool { return name == configEnv }

// checkPushgatewayURL accepts "" or an http(s) URL with a host.
func checkPushgatewayURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want the Pushgateway's http:// or https:// URL, e.g. http://pushgateway:9091")
	}
	return nil
}

func checkSize(s string) error {
	switch s {
	case "", "auto", "none", "0":
		return nil
	}
	_, err := sysmem.ParseBytes(s)
	return err
}

// checkCloneKey checks split.clone_key (splitplan.CheckCloneKey).
func checkCloneKey(s string) error {
	if splitplan.CheckCloneKey(s) != nil {
		return errors.New("a text with {key} and {group} (e.g. " + splitplan.DefaultCloneKey + "), or " + splitplan.NoCloneKey)
	}
	return nil
}

// checkName checks a label, type or property name as Neo4j's statements
// take it (cypher.CheckName); "" is unset.
func checkName(s string) error {
	if s == "" {
		return nil
	}
	return cypher.CheckName(s)
}

// checkLockTTL refuses a lock.ttl shorter than the stores accept.
func checkLockTTL(s string) error {
	if d, _ := time.ParseDuration(s); d < syncjob.MinLockTTL {
		return fmt.Errorf("too short (at least %s)", syncjob.MinLockTTL)
	}
	return nil
}

// The commands that offer the engine's flags, the connection's, and
// --max-memory.
const (
	engineCmds = CmdScore | CmdReview | CmdSync
	neo4jCmds  = CmdSync | CmdUndo
	memoryCmds = CmdScore | CmdReview | CmdSync | CmdEstimate | CmdDuplicates
	// The commands that read a graph from files: an edge list or the
	// import files.
	fileCmds = CmdScore | CmdReview | CmdDuplicates
)

// textJSON is what completion offers for --output but on score.
var textJSON = []string{"text", "json"}

// cneDefaults are the embedding's defaults (the zero cne.Options's): the
// defaults of the embedding.* keys.
var cneDefaults = cne.Options{}.WithDefaults()

// settings are fondue-neo4j's configuration keys (config.example.yaml
// documents each one). A new setting is one
// entry here and its field in Config.
var settings = []Setting{
	// Logging: every command of both programs.
	{Key: "log.level", Kind: Enum, Default: "info", Values: []string{"debug", "info", "warn", "warning", "error"},
		Complete: []string{"debug", "info", "warn", "error"},
		Help:     "log level: debug, info, warn, error",
		Flags:    []Flag{{Name: "log-level", On: CmdEvery}},
		Field:    func(c *Config) any { return &c.Log.Level }},
	{Key: "log.format", Kind: Enum, Default: "", Values: []string{"", "text", "json"},
		Help:       "log format: text or json (default: text on a terminal, json otherwise)",
		DocDefault: "text on a terminal, else json",
		Flags:      []Flag{{Name: "log-format", On: CmdEvery}},
		Field:      func(c *Config) any { return &c.Log.Format }},
	{Key: "max_memory", Kind: Size, Default: "", Check: checkSize,
		Help:       "the most memory a run may use: a run whose live data would not fit is refused, one whose peak would pass it runs with the garbage collector held to it (e.g. 4GiB; default: available memory; none: no limit)",
		DocDefault: "available memory",
		Flags:      []Flag{{Name: "max-memory", On: memoryCmds}},
		Field:      func(c *Config) any { return &c.MaxMemory }},

	// The engine: score, review and sync.
	{Key: "seed", Kind: Uint, Default: uint64(1),
		Help:  "random seed: same input, config and seed give the same scores",
		Flags: []Flag{{Name: "seed", On: engineCmds | CmdDuplicates}},
		Field: func(c *Config) any { return &c.Engine.Seed }},
	{Key: "threads", Kind: NonNegInt, Default: 0, Want: "a non-negative integer (0: all cores)", Aliases: []string{"concurrency"},
		Help: "worker goroutines (0: all cores); does not change results (--concurrency: the same)",
		Doc:  "worker goroutines; does not change results (`--concurrency`, GDS's name, is the same flag)", DocDefault: "0 (all cores)",
		Flags: []Flag{{Name: "threads", On: engineCmds | CmdEstimate | CmdDuplicates}},
		Field: func(c *Config) any { return &c.Engine.Threads }},
	{Key: "method", Kind: Enum, Default: score.DefaultMethod, Values: score.Methods(),
		Help:  "scoring method: " + strings.Join(score.Methods(), ", "),
		Doc:   docMethods(),
		Flags: []Flag{{Name: "method", On: CmdScore | CmdReview | CmdSync}},
		Field: func(c *Config) any { return &c.Engine.Method }},
	{Key: "random_splits", Kind: Int, Default: score.DefaultRandomSplits, Want: "an integer (-1: none; default 100)",
		Help:  "random sign vectors tried per node besides the eigenvector sweep (-1: none)",
		Doc:   "random sign vectors tried per node besides the eigenvector sweep (-1: none; 0 is refused as ambiguous)",
		Flags: []Flag{{Name: "random-splits", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.RandomSplits }},
	{Key: "unnormalized", Kind: Bool, Default: false,
		Help:  "do not divide the Rayleigh quotient by the degree",
		Flags: []Flag{{Name: "unnormalized", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Unnormalized }},
	{Key: "polish", Kind: Bool, Default: false,
		Help:  "improve each node's best sign vector by single flips (not in the paper)",
		Flags: []Flag{{Name: "polish", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Polish }},
	{Key: "embedding.dim", Kind: PosInt, Default: cneDefaults.Dim,
		Help:  "embedding dimension",
		Doc:   fmt.Sprintf("embedding dimension; above %d it must be below the number of nodes", cneDefaults.Dim),
		Flags: []Flag{{Name: "dim", On: engineCmds | CmdEstimate}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Dim }},
	{Key: "embedding.sigma1", Kind: PosFloat, Default: cneDefaults.Sigma1,
		Help:  "CNE spread of distances between linked nodes",
		Flags: []Flag{{Name: "sigma1", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Sigma1 }},
	{Key: "embedding.sigma2", Kind: PosFloat, Default: cneDefaults.Sigma2,
		Help:  "CNE spread of distances between unlinked nodes (> sigma1)",
		Flags: []Flag{{Name: "sigma2", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Sigma2 }},
	{Key: "embedding.epochs", Kind: PosInt, Default: cneDefaults.MaxEpochs,
		Help:  "maximum CNE epochs (training stops earlier when converged)",
		Flags: []Flag{{Name: "epochs", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Epochs }},
	{Key: "embedding.learning_rate", Kind: PosFloat, Default: cneDefaults.LearningRate,
		Help:  "Adam learning rate",
		Flags: []Flag{{Name: "lr", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Embedding.LearningRate }},
	{Key: "embedding.neg_ratio", Kind: PosInt, Default: cneDefaults.NegRatio,
		Help:  "negative samples per edge in sampled mode",
		Flags: []Flag{{Name: "neg-ratio", On: engineCmds | CmdEstimate}},
		Field: func(c *Config) any { return &c.Engine.Embedding.NegRatio }},
	{Key: "embedding.mode", Kind: Enum, Default: cneDefaults.Mode.String(), Values: []string{"auto", "exact", "sampled"},
		Help:  fmt.Sprintf("CNE objective: exact (all pairs), sampled, or auto (exact up to %d nodes)", cneDefaults.ExactMaxNodes),
		Flags: []Flag{{Name: "mode", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Mode }},
	{Key: "embedding.tol", Kind: PosFloat, Default: cneDefaults.Tol,
		Help:  "CNE convergence tolerance (relative change of the smoothed gradient norm)",
		Flags: []Flag{{Name: "tol", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Tol }},
	{Key: "embedding.start", Kind: Enum, Default: "smoothed", Values: []string{"smoothed", "noise"},
		Help:  "CNE starting point: smoothed (noise smoothed over the graph) or noise (the paper's N(0,1) noise)",
		Doc:   "CNE starting point: `smoothed` (the seed's noise smoothed over the graph; about half the epochs) or `noise` (the paper's)",
		Flags: []Flag{{Name: "start", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Start }},
	{Key: "embedding.stability_stop", Kind: Bool, Default: true,
		Help: "also stop CNE once the top-10% ranking of a node sample stops changing (false: gradient-norm test only, as the paper)",
		Doc: "also stop CNE once the ranking of a node sample stops changing; `--stability-stop=false` keeps only the gradient-norm test " +
			"(`--start noise --stability-stop=false` is the paper's fit)",
		Flags: []Flag{{Name: "stability-stop", On: engineCmds}},
		Field: func(c *Config) any { return &c.Engine.Embedding.StabilityStop }},
	{Key: "embedding.exact_max_nodes", Kind: NonNegInt, Default: cneDefaults.ExactMaxNodes,
		Help:  "the largest graph (nodes) that the auto mode fits exactly; larger ones are sampled",
		Field: func(c *Config) any { return &c.Engine.Embedding.ExactMaxNodes }},
	{Key: "embedding.checkpoint", Kind: String, Default: "", Path: true,
		Help: "warm-start from this embedding file if it exists, and save the new embedding to it",
		Doc:  "warm start: resume from the embedding saved in this file (if it exists), save the new one to it",
		Flags: []Flag{{Name: "checkpoint", On: CmdScore | CmdReview | CmdSync},
			{Name: "checkpoint", On: CmdEstimate, Help: "count the memory of a run that saves a checkpoint (it keeps the optimizer's state) and, without embedding.full, reads it (an incremental night); the file is not read"}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Checkpoint }},
	{Key: "embedding.checkpoint_force", Kind: Bool, Default: false,
		Help:  "warm-start from --checkpoint even when it shares less than half of its nodes with the graph",
		Flags: []Flag{{Name: "checkpoint-force", On: CmdScore | CmdReview | CmdSync}},
		Field: func(c *Config) any { return &c.Engine.Embedding.CheckpointForce }},
	{Key: "embedding.full", Kind: Bool, Default: false,
		Help: "score and write every node: --checkpoint is a warm start only, not the state of an incremental run",
		Doc: "a full run: every node scored again (--checkpoint is then a warm start only) and, with sync, every node written " +
			"again, whatever it holds; without it a run with a --checkpoint that fits is incremental (docs/scheduled-job.md)",
		Flags: []Flag{{Name: "full", On: CmdScore | CmdSync}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Full }},
	{Key: "embedding.property", Kind: String, Default: "", Check: checkName,
		Help:  "keep each node's embedding in this property and warm-start the next run from it",
		Flags: []Flag{{Name: "embedding-property", On: CmdSync}},
		Field: func(c *Config) any { return &c.Engine.Embedding.Property }},

	// The splitter, for score, review and sync.
	{Key: "split.method", Kind: Enum, Default: "", Values: splitterValues(), Want: splitterWant(), Complete: splitterNames(),
		Help: "with --split: the splitter, " + strings.Join(splitterNames(), ", ") + " (default " + split.Default + ")",
		Doc: docList(splitterNames()) + " (the research candidates compared in [bench/SPLITTERS.md](../bench/SPLITTERS.md) " +
			"are run by `fondue-bench` only)",
		DocDefault: "`" + split.Default + "`",
		Flags: []Flag{{Name: "splitter", On: CmdScore | CmdSync},
			{Name: "splitter", On: CmdReview, Help: "splitter proposing the groups: " + strings.Join(splitterNames(), ", ") + " (default " + split.Default + ")"}},
		Field: func(c *Config) any { return &c.Split.Method }},
	{Key: "split.top", Kind: NonNegInt, Default: 0,
		Help: "with --split: the K most ambiguous nodes (score: default the printed ones)",
		Flags: []Flag{
			{Name: "split-top", On: CmdScore, Help: "with --split: propose splits for the K most ambiguous nodes (default: the printed ones)"},
			{Name: "split-top", On: CmdSync, Help: "with --split: split the K most ambiguous nodes"}},
		Field: func(c *Config) any { return &c.Split.Top }},
	{Key: "split.min_ambiguity", Kind: Fraction, Default: 0.0,
		Help:  "with --split: also every node whose ambiguity is at least this (0 < x <= 1; 0: off)",
		Flags: []Flag{{Name: "split-min-ambiguity", On: CmdScore | CmdSync}},
		Field: func(c *Config) any { return &c.Split.MinAmbiguity }},

	// score's output; the edge list of score, review and estimate.
	{Key: "top", Kind: NonNegInt, Default: 0, Want: "a non-negative integer (0: all nodes)",
		Help: "print only the K most ambiguous nodes (0: all)", DocDefault: "0 (all)",
		Flags: []Flag{{Name: "top", On: CmdScore}},
		Field: func(c *Config) any { return &c.Output.Top }},
	{Key: "header", Kind: Enum, Default: "auto", Values: []string{"auto", "yes", "no", "true", "false", "first", "none"},
		Complete: []string{"auto", "yes", "no"},
		Help:     "whether the edge list's first line is a header: auto, yes or no",
		Flags:    []Flag{{Name: "header", On: fileCmds | CmdEstimate}},
		Field:    func(c *Config) any { return &c.Input.Header }},
	{Key: "print_header", Kind: AutoBool, Default: "auto", Want: "auto (column names only when stdout is a terminal), true or false",
		Help:       "print the TSV column names as a first line (auto: only when stdout is a terminal)",
		Doc:        "print the column names first: `auto`, `true` (`--print-header` alone) or `false`",
		DocDefault: "`auto` (on a terminal)",
		Flags:      []Flag{{Name: "print-header", On: CmdScore | CmdDuplicates}},
		Field:      func(c *Config) any { return &c.Output.PrintHeader }},
	{Key: "names", Kind: String, Default: "", Path: true,
		Help: "display names: a file of id<TAB>name lines, or JSON {\"id\": \"name\"} (adds a name column)",
		Doc:  "display names for the ids, a file (see [review.md](review.md))",
		Flags: []Flag{{Name: "names", On: CmdScore},
			{Name: "names", On: CmdReview, Help: "display names: id<TAB>name lines, or JSON {\"id\": \"name\"}"},
			{Name: "names", On: CmdDuplicates, Help: "the names compared, of an edge list's nodes: id<TAB>name lines, or JSON {\"id\": \"name\"} (default: none, the links alone)"}},
		Field: func(c *Config) any { return &c.Input.Names }},

	// score's and review's nodes to score (the rest is context).
	{Key: "score_prefix", Kind: String, Default: "",
		Help: "score only the nodes whose id starts with this (e.g. a: for a:1, a:2; the rest is context)",
		Doc: "score only the nodes whose id starts with this (`a:` in an edge list of authors `a:N` and papers `p:N`); " +
			"the others are context (see [knowledge-graphs.md](knowledge-graphs.md))",
		Flags: []Flag{{Name: "score-prefix", On: CmdScore | CmdReview},
			{Name: "score-prefix", On: CmdDuplicates, Help: "compare only the nodes whose id starts with this (e.g. a: for a:1, a:2; the rest is context)"}},
		Field: func(c *Config) any { return &c.Input.ScorePrefix }},
	{Key: "score_nodes", Kind: String, Default: "", Path: true,
		Help: "score only the nodes listed in this file, one id a line (# comments); with --score-prefix, a node is scored when either selects it",
		Doc: "score only the ids listed in this file, one a line as the edge list spells them (`#` comments; an id not in the edge list " +
			"is an error naming the file and line, exit code 2); with `--score-prefix`, a node is scored when either selects it",
		Flags: []Flag{{Name: "score-nodes", On: CmdScore | CmdReview},
			{Name: "score-nodes", On: CmdDuplicates, Help: "compare only the nodes listed in this file, one id a line (# comments); with --score-prefix, a node is compared when either selects it"}},
		Field: func(c *Config) any { return &c.Input.ScoreNodes }},

	// score's and review's knowledge graph: Neo4j's bulk-import CSV files.
	{Key: "nodes", Kind: List, Default: []string{},
		Help: "a node file of neo4j-admin database import (Neo4j 5 header: :ID, :LABEL, typed properties); repeat for more files (instead of an edge list)",
		Doc: "node files of `neo4j-admin database import` (Neo4j 5 header format), repeatable, read instead of an edge list; each file has its own header line " +
			"(see [knowledge-graphs.md](knowledge-graphs.md))",
		Flags: []Flag{{Name: "nodes", On: fileCmds}},
		Field: func(c *Config) any { return &c.Input.Nodes }},
	{Key: "relationships", Kind: List, Default: []string{},
		Help: "a relationship file of neo4j-admin database import (:START_ID, :END_ID, :TYPE); repeat for more files; the links, undirected",
		Doc: "relationship files of `neo4j-admin database import` (`:START_ID`, `:END_ID`, `:TYPE`), repeatable, with `--nodes`: the graph's links, undirected " +
			"(see [knowledge-graphs.md](knowledge-graphs.md))",
		Flags: []Flag{{Name: "relationships", On: fileCmds}},
		Field: func(c *Config) any { return &c.Input.Relationships }},
	{Key: "score_labels", Kind: List, Default: []string{},
		Help: "with --nodes: score only the nodes with any of these labels, comma-separated (e.g. Author); the rest is context (default: every node)",
		Doc: "with `--nodes`: score only the nodes with any of these labels (e.g. `Author`); the others are context " +
			"(see [knowledge-graphs.md](knowledge-graphs.md))",
		DocDefault: "all nodes",
		Flags: []Flag{{Name: "score-labels", On: CmdScore | CmdReview},
			{Name: "score-labels", On: CmdDuplicates, Help: "with --nodes: look for duplicates among the nodes with any of these labels, comma-separated (e.g. Author); the rest is context (default: every node)"}},
		Field: func(c *Config) any { return &c.Input.ScoreLabels }},

	// duplicates: the pairs of nodes that are one entity (docs/duplicates.md).
	{Key: "duplicates.top", Kind: NonNegInt, Default: 0, Want: "a non-negative integer (0: every candidate pair)",
		Help: "print only the K pairs most likely one entity (0: every candidate pair scored)", DocDefault: "0 (all)",
		Doc: "print (`duplicates`) or write (`sync --duplicates`) only the K pairs most likely one entity (0: every candidate pair scored; `sync` keeps those of at least `duplicates.min_probability`)",
		Flags: []Flag{{Name: "top", On: CmdDuplicates},
			{Name: "duplicates-top", On: CmdSync, Help: "with --duplicates: write only the K pairs most likely one entity (0: every pair of at least --min-probability)"}},
		Field: func(c *Config) any { return &c.Duplicates.Top }},
	{Key: "duplicates.name_property", Kind: String, Default: syncjob.DefaultNameProperty, Check: checkName,
		Help: "with --nodes: the node property holding the names compared (a property no node file has is an error)",
		Doc: "with `--nodes`: the node property holding the names that are compared (an edge list's names are `--names`'s); " +
			"a property no node file has, or none of the compared nodes has, is an error (see [duplicates.md](duplicates.md)); " +
			"`sync --duplicates`: the property read, a node without it named by `graph.display_property`",
		Flags: []Flag{{Name: "name-property", On: CmdDuplicates},
			{Name: "name-property", On: CmdSync, Help: "with --duplicates: the node property holding the names compared (a node without it is named by graph.display_property)"}},
		Field: func(c *Config) any { return &c.Duplicates.NameProperty }},
	{Key: "duplicates.enabled", Kind: Bool, Default: false,
		Help: "sync: find the nodes that may be one entity and write them as relationships (duplicates.relationship_type) instead of scoring",
		Doc: "`sync`: find the pairs of `write.node_labels` nodes that may be one entity and write them as relationships " +
			"of `duplicates.relationship_type` instead of scoring the ambiguity (see [duplicates.md](duplicates.md#in-neo4j))",
		Flags: []Flag{{Name: "duplicates", On: CmdSync}},
		Field: func(c *Config) any { return &c.Duplicates.Enabled }},
	{Key: "duplicates.relationship_type", Kind: String, Default: syncjob.DefaultDuplicateType, Check: checkName,
		Help: "the type of the relationships sync --duplicates writes (replaced each run; never pulled)",
		Doc: "the type of the relationships `sync --duplicates` writes, with `score`, `probability`, `reasons` and the run id; " +
			"each run replaces the earlier runs' ones; no pull reads this type",
		Flags: []Flag{{Name: "duplicates-type", On: CmdSync}},
		Field: func(c *Config) any { return &c.Duplicates.RelationshipType }},
	{Key: "duplicates.min_probability", Kind: Fraction, Default: syncjob.DefaultMinProbability,
		Help:  "sync --duplicates writes the pairs at least this likely one entity: 1/(1+e^-score) (0: every pair scored)",
		Doc:   "`sync --duplicates` writes the pairs at least this likely one entity, their `probability` = 1/(1+e^-`score`) (0: every pair scored)",
		Flags: []Flag{{Name: "min-probability", On: CmdSync}},
		Field: func(c *Config) any { return &c.Duplicates.MinProbability }},

	// review's page.
	{Key: "review.top", Kind: PosInt, Default: 20,
		Help:  "review the K most ambiguous nodes (config review.top)",
		Flags: []Flag{{Name: "top", On: CmdReview}},
		Field: func(c *Config) any { return &c.Review.Top }},
	{Key: "review.out", Kind: String, Default: "fondue-review.html", Path: true, Check: func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("want the HTML file to write (- for standard output)")
		}
		return nil
	},
		Help:  "the HTML file to write (- for standard output; config review.out)",
		Flags: []Flag{{Name: "output-file", On: CmdReview, Old: "out", OldShorthand: "o"}},
		Field: func(c *Config) any { return &c.Review.Out }},
	{Key: "review.plan", Kind: String, Default: "", Path: true,
		Help: "review this split plan: the JSON output of \"sync --split --dry-run\" (config review.plan)",
		Flags: []Flag{{Name: "plan", On: CmdReview},
			{Name: "plan", On: CmdPlan, Help: "the split plan to decide on: the JSON output of \"sync --split --dry-run\" (config review.plan)"}},
		Field: func(c *Config) any { return &c.Review.Plan }},
	{Key: "review.approved", Kind: String, Default: "fondue-approved-plan.json", Path: true, Check: func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("want the approved plan's JSON file")
		}
		return nil
	},
		Help:  "the approved plan that plan accept and reject write and plan list reads (config review.approved)",
		Flags: []Flag{{Name: "approved", On: CmdPlan}},
		Field: func(c *Config) any { return &c.Review.Approved }},

	// sync and undo (Neo4j).
	{Key: "neo4j.uri", Kind: String, Default: connector.DefaultURI, Check: connector.CheckURI,
		Help:  "Neo4j URI: bolt://host:7687 (one server) or neo4j://host:7687 (cluster), +s/+ssc for TLS",
		Flags: []Flag{{Name: "uri", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Neo4j.URI }},
	{Key: "neo4j.user", Kind: String, Default: "neo4j",
		Help:  "Neo4j user (password: FONDUE_NEO4J_PASSWORD or --password-file)",
		Flags: []Flag{{Name: "user", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Neo4j.User }},
	{Key: "neo4j.password", Kind: String, Default: "",
		NotInFile: "neo4j.password must not be in the config file: set FONDUE_NEO4J_PASSWORD or neo4j.password_file",
		Help:      "the Neo4j password: only this environment variable, never a flag or the config file (--password-file wins over it)",
		Field:     func(c *Config) any { return &c.Neo4j.Password }},
	{Key: passwordFileKey, Kind: String, Default: "", Path: true,
		Help:  "file holding the Neo4j password (e.g. a mounted secret)",
		Flags: []Flag{{Name: "password-file", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Neo4j.PasswordFile }},
	{Key: "neo4j.database", Kind: String, Default: "",
		Help:  "database (Neo4j 4 and later; default: the server's default database)",
		Flags: []Flag{{Name: "database", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Neo4j.Database }},
	{Key: "neo4j.connect_timeout", Kind: Duration, Default: connector.DefaultConnectTimeout.String(),
		Help:  "give up connecting (and logging in) after this long when the server does not answer",
		Flags: []Flag{{Name: "connect-timeout", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Neo4j.ConnectTimeout }},
	{Key: "neo4j.max_retry_time", Kind: Duration, Default: connector.DefaultMaxRetryTime.String(),
		Help:  "retry transactions after transient failures (e.g. a dropped connection) for up to this long: one budget for the whole run",
		Flags: []Flag{{Name: "max-retry-time", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Neo4j.MaxRetryTime }},
	{Key: "graph.node_labels", Kind: List, Default: []string{}, Check: checkName,
		Help:  "score nodes with any of these labels, comma-separated, each literal (default: all nodes)",
		Flags: []Flag{{Name: "node-labels", On: CmdSync}},
		Field: func(c *Config) any { return &c.Graph.NodeLabels }},
	{Key: "graph.relationship_types", Kind: List, Default: []string{}, Check: checkName,
		Help:  "use relationships of these types, comma-separated, each literal (default: all)",
		Flags: []Flag{{Name: "relationship-types", On: CmdSync}},
		Field: func(c *Config) any { return &c.Graph.RelationshipTypes }},
	{Key: "graph.node_query", Kind: String, Default: "",
		Help:  "Cypher returning the nodes' internal ids as column id (instead of --node-labels)",
		Flags: []Flag{{Name: "node-query", On: CmdSync}},
		Field: func(c *Config) any { return &c.Graph.NodeQuery }},
	{Key: "graph.relationship_query", Kind: String, Default: "",
		Help:  "Cypher returning pairs of internal ids as columns source, target",
		Flags: []Flag{{Name: "relationship-query", On: CmdSync}},
		Field: func(c *Config) any { return &c.Graph.RelationshipQuery }},
	{Key: "graph.id_property", Kind: String, Default: "", Check: checkName,
		Help:  "node key property (integers or strings); default: internal ids",
		Flags: []Flag{{Name: "id-property", On: CmdSync}},
		Field: func(c *Config) any { return &c.Graph.IDProperty }},
	{Key: "graph.display_property", Kind: List, Default: []string{}, Check: checkName, // the first that a node has
		Help:  "node properties naming nodes for people, the first a node has, comma-separated, each literal (e.g. name,title): in the dry run's plan, the summary and messages",
		Flags: []Flag{{Name: "display-property", On: CmdSync}},
		Field: func(c *Config) any { return &c.Graph.DisplayProperty }},
	{Key: "graph.evidence_properties", Kind: List, Default: []string{}, Check: checkName,
		Help: "node properties that tell entities apart, comma-separated, each literal (e.g. title,year): text by its words, numbers by their closeness",
		Doc: "node properties that are evidence of which pieces of a neighbourhood are one entity: text by its words, numbers by their closeness " +
			"(see [knowledge-graphs.md](knowledge-graphs.md))",
		Flags: []Flag{{Name: "evidence-properties", On: CmdScore | CmdReview | CmdSync | CmdDuplicates}},
		Field: func(c *Config) any { return &c.Graph.EvidenceProperties }},
	{Key: "graph.fetch_size", Kind: PosInt, Default: connector.DefaultFetchSize,
		Help:  "records per batch when reading",
		Flags: []Flag{{Name: "fetch-size", On: CmdSync}},
		Field: func(c *Config) any { return &c.Graph.FetchSize }},
	{Key: "graph.read_concurrency", Kind: PosInt, Default: connector.DefaultReadConcurrency,
		Help: "read transactions at once when pulling the relationships (each for a part of the nodes)",
		Doc: "read transactions at once when pulling the relationships of labels and types (not of a Cypher projection), " +
			"each in a session of its own for a part of the nodes, merged in order (GDS's `readConcurrency`)",
		Flags: []Flag{{Name: "read-concurrency", On: CmdSync}},
		Field: func(c *Config) any { return &c.Graph.ReadConcurrency }},
	{Key: "write.node_labels", Kind: List, Default: []string{}, Check: checkName, // the nodes scored and written; []: every pulled node
		Help:  "score and write only the pulled nodes with any of these labels, comma-separated, each literal; the others are context (default: every pulled node)",
		Flags: []Flag{{Name: "write-node-labels", On: CmdSync}},
		Field: func(c *Config) any { return &c.Write.NodeLabels }},
	{Key: "write.property", Kind: String, Default: syncjob.DefaultWriteProperty, Check: checkName,
		Help:  "node property receiving the ambiguity (percentile in (0,1])",
		Doc:   "the node's percentile among the scored nodes, in (0, 1]: `ambiguity > 0.99` is the top 1%",
		Flags: []Flag{{Name: "write-property", On: CmdSync}},
		Field: func(c *Config) any { return &c.Write.Property }},
	{Key: "write.score_property", Kind: String, Default: syncjob.DefaultScoreProperty, Check: checkName,
		Help: "node property receiving the raw score (empty: not written)",
		Doc: "the raw score (for the default `combined`, the weighted mean of the normal quantiles of two percentiles; " +
			"for `fondue`, the best Rayleigh quotient); `\"\"` turns it off",
		Flags: []Flag{{Name: "score-property", On: CmdSync}},
		Field: func(c *Config) any { return &c.Write.ScoreProperty }},
	{Key: "write.entities_property", Kind: String, Default: syncjob.DefaultEntitiesProperty, Check: checkName,
		Help: "node property receiving the estimated number of entities (empty: not written)",
		Doc: "the estimated number of real entities behind the node, an integer of at least 1 " +
			"(the `entities` column of `score`); `\"\"` turns it off",
		Flags: []Flag{{Name: "entities-property", On: CmdSync}},
		Field: func(c *Config) any { return &c.Write.EntitiesProperty }},
	{Key: "write.run_property", Kind: String, Default: syncjob.DefaultRunProperty, Check: checkName,
		Help: "node property receiving the run id (empty: not written)",
		Doc: "the run id, on every pulled node to score (isolated ones too, which get no score; " +
			"not on context nodes); `\"\"` turns it off",
		Flags: []Flag{{Name: "run-property", On: CmdSync}},
		Field: func(c *Config) any { return &c.Write.RunProperty }},
	{Key: "write.batch_size", Kind: PosInt, Default: syncjob.DefaultBatchSize,
		Help:  "nodes per write transaction",
		Flags: []Flag{{Name: "batch-size", On: CmdSync}},
		Field: func(c *Config) any { return &c.Write.BatchSize }},
	{Key: "write.concurrency", Kind: PosInt, Default: syncjob.DefaultWriteConcurrency,
		Help:  "write transactions at once",
		Flags: []Flag{{Name: "write-concurrency", On: CmdSync}},
		Field: func(c *Config) any { return &c.Write.Concurrency }},

	// Splitting in sync.
	{Key: "split.enabled", Kind: Bool, Default: false,
		Help: "propose splits (score) or split nodes (sync) (the splitter is --splitter)",
		Flags: []Flag{
			{Name: "split", On: CmdScore, Help: "also propose a split for each printed node (the splitter is --splitter)"},
			{Name: "split", On: CmdSync, Help: "split the most ambiguous nodes (see --split-top, --split-min-ambiguity) (the splitter is --splitter)"}},
		Field: func(c *Config) any { return &c.Split.Enabled }},
	{Key: "split.marker_label", Kind: String, Default: syncjob.DefaultMarkerLabel, Check: checkName,
		Help:  "label of the nodes a split creates (undo takes the run record's; this is for runs recorded without one)",
		Flags: []Flag{{Name: "marker-label", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Split.MarkerLabel }},
	{Key: "split.clone_key", Kind: String, Default: splitplan.DefaultCloneKey, Check: checkCloneKey,
		Help:  "with graph.id_property: the key of each split node, from its original's {key}, its {group} (1, 2, ...) and the {run} id; integer keys take the next free integers; none: no key (later runs leave split nodes out)",
		Doc:   "with `graph.id_property`: the key each split node gets, from its original's `{key}`, its `{group}` (1, 2, ...) and the `{run}` id, `-2`, `-3`, ... appended if taken; integer keys take the integers after the largest; `none`: no key (later runs leave split nodes out). See [scheduled-job.md](scheduled-job.md)",
		Flags: []Flag{{Name: "clone-key", On: CmdSync}},
		Field: func(c *Config) any { return &c.Split.CloneKey }},
	{Key: "split.unfinished", Kind: Enum, Default: string(syncjob.UnfinishedResume), Values: syncjob.UnfinishedValues,
		Help: "sync --split with no run id, when a run of the same selection stopped mid-split (killed, Neo4j lost): resume it (and stop there), undo it and then run, or fail",
		Doc: "`sync --split` with no run id, when a run of the same selection stopped mid-split (killed, Neo4j lost): " +
			"`resume` carries out the rest of its plan under its run id and stops there; `undo` undoes its splits, then runs as usual; " +
			"`fail` exits with code 1, naming it. See [scheduled-job.md](scheduled-job.md#a-night-that-fails)",
		Flags: []Flag{{Name: "unfinished", On: CmdSync}},
		Field: func(c *Config) any { return &c.Split.Unfinished }},
	{Key: "split.skip_properties", Kind: List, Default: []string{}, Check: checkName,
		Help:  "properties not copied to split nodes (e.g. uniquely constrained ones), comma-separated",
		Flags: []Flag{{Name: "skip-properties", On: CmdSync}},
		Field: func(c *Config) any { return &c.Split.SkipProperties }},
	{Key: "split.plan", Kind: String, Default: "", Path: true,
		Help:  "with --split: apply this approved plan (exported by the review page) instead of scoring; with --merge: the merge plan whose accepted pairs to merge",
		Flags: []Flag{{Name: "plan", On: CmdSync}},
		Field: func(c *Config) any { return &c.Split.Plan }},
	// Merging in sync (docs/merge.md).
	{Key: "merge.enabled", Kind: Bool, Default: false,
		Help:  "merge the accepted pairs of the merge plan given with --plan (no scoring); undo --run-id restores them",
		Flags: []Flag{{Name: "merge", On: CmdSync}},
		Field: func(c *Config) any { return &c.Merge.Enabled }},
	{Key: "lock.name", Kind: String, Default: syncjob.DefaultLockName,
		Help:  "name of the lock in the database: runs with the same name never write at once",
		Flags: []Flag{{Name: "lock-name", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Lock.Name }},
	{Key: "lock.ttl", Kind: Duration, Default: syncjob.DefaultLockTTL.String(), Check: checkLockTTL,
		Help:  "the lock of a crashed run expires after this long",
		Flags: []Flag{{Name: "lock-ttl", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Lock.TTL }},

	// Metrics of sync and undo runs (internal/app/metrics, docs/monitoring.md).
	{Key: "metrics.pushgateway_url", Kind: String, Default: "", Check: checkPushgatewayURL,
		Help:  "push each run's metrics (last success, phase durations, nodes scored, splits, undo, exit code) to this Prometheus Pushgateway, e.g. http://pushgateway:9091 (\"\": no push)",
		Flags: []Flag{{Name: "pushgateway-url", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Metrics.PushgatewayURL }},
	{Key: "metrics.job", Kind: String, Default: metrics.DefaultJob, Check: func(s string) error {
		if strings.TrimSpace(s) == "" || strings.Contains(s, "/") {
			return errors.New("want a Pushgateway job name, not empty and without /")
		}
		return nil
	},
		Help:  "the Pushgateway job name of the metrics (grouped further by command and neo4j.database)",
		Flags: []Flag{{Name: "metrics-job", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Metrics.Job }},
	{Key: "metrics.textfile", Kind: String, Default: "",
		Help:  "write each run's metrics to this file for the node exporter's textfile collector (a .prom file, replaced whole; \"\": none)",
		Flags: []Flag{{Name: "metrics-textfile", On: neo4jCmds}},
		Field: func(c *Config) any { return &c.Metrics.Textfile }},

	// The run, and what sync, undo and estimate print.
	{Key: "run_id", Kind: String, Default: "",
		Help: "run id (default: the UTC time and a random suffix); re-running a run id resumes its splits",
		Flags: []Flag{{Name: "run-id", On: CmdSync, Old: "run"},
			{Name: "run-id", On: CmdUndo, Old: "run", Help: "the run id to undo (required; --run: the same)"}},
		Field: func(c *Config) any { return &c.RunID }},
	{Key: "output", Kind: Enum, Default: "text", Values: []string{"text", "tsv", "json"},
		Help: "output format: text (tab-separated; also tsv) or json",
		Doc:  "`text` (tab-separated; `tsv` is the same) or `json`; `sync` and `undo`: `text` (a summary on stderr) or `json` (on stdout); `estimate`: its report on stdout, as `text` or `json`",
		Flags: []Flag{{Name: "output", On: CmdScore | CmdDuplicates, Old: "format"},
			{Name: "output", On: neo4jCmds, Old: "format", Help: "text (a summary on stderr) or json (the summary on stdout)", Complete: textJSON},
			{Name: "output", On: CmdEstimate, Old: "format", Help: "text or json (the report on standard output)", Complete: textJSON}},
		Field: func(c *Config) any { return &c.Output.Format }},
	{Key: "forget_decisions", Kind: Bool, Default: false,
		Help:  "forget the review decisions that later runs remember (rejected nodes, edited splits), of --run-id or of every run, instead of undoing splits",
		Flags: []Flag{{Name: "forget-decisions", On: CmdUndo}},
		Field: func(c *Config) any { return &c.ForgetDecisions }},
	{Key: "dry_run", Kind: Bool, Default: false,
		Help:  "write nothing: print the split plan (or what would be written) as JSON",
		Flags: []Flag{{Name: "dry-run", On: CmdSync}},
		Field: func(c *Config) any { return &c.DryRun }},
}

// Settings returns every setting, in the order of config.example.yaml (a
// fresh copy: changing it changes nothing).
func Settings() []Setting {
	out := make([]Setting, len(settings))
	for i, s := range settings {
		out[i] = s.clone()
	}
	return out
}

// Lookup returns the setting of a key (or of an alias of it), a copy.
func Lookup(key string) (*Setting, bool) {
	s, ok := lookup(key)
	if !ok {
		return nil, false
	}
	c := s.clone()
	return &c, true
}

// lookup returns the table's setting of a key or an alias.
func lookup(key string) (*Setting, bool) {
	i, ok := index()[strings.ToLower(key)]
	if !ok {
		return nil, false
	}
	return &settings[i], true
}

// index maps every key and alias to its setting's place in the table.
var index = sync.OnceValue(func() map[string]int {
	m := make(map[string]int, len(settings))
	for i, s := range settings {
		m[s.Key] = i
		for _, a := range s.Aliases {
			m[a] = i
		}
	}
	return m
})

// splitterWant describes the values of split.method that commands accept.
func splitterWant() string {
	return `one of ` + strings.Join(splitterNames(), ", ") + ` ("": the default, ` + split.Default + `)`
}

// splitterNames lists the splitters that commands offer, the default first.
func splitterNames() []string {
	var names []string
	for _, s := range split.Splitters() {
		names = append(names, s.Name())
	}
	return names
}

// splitterValues lists the values of split.method: none ("") and fondue's
// splitters.
func splitterValues() []string { return append([]string{""}, splitterNames()...) }

// docMethods is the documented text of --method.
func docMethods() string {
	ms := score.Methods()
	return "`" + ms[0] + "`, `" + ms[1] + "` (the paper's score), or a baseline: " + strings.Join(docCode(ms[2:]), ", ") +
		"; see [choosing-a-method.md](choosing-a-method.md)"
}

// docList writes names as `a`, `b` or `c`.
func docList(names []string) string {
	c := docCode(names)
	if len(c) < 2 {
		return strings.Join(c, "")
	}
	return strings.Join(c[:len(c)-1], ", ") + " or " + c[len(c)-1]
}

func docCode(names []string) []string {
	var out []string
	for _, n := range names {
		out = append(out, "`"+n+"`")
	}
	return out
}
