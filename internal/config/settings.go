package config

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/research"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/internal/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// EnvPrefix starts the environment variable of every setting.
const EnvPrefix = "FONDUE_"

// OtherEnv are FONDUE_* variables that are not settings but are read
// elsewhere: ReadEnv leaves them alone, as it does FONDUE_JAVA<N>_HOME
// (IsOtherEnv).
var OtherEnv = []string{
	"FONDUE_CONFIG",         // the config file (--config)
	"FONDUE_DATASETS",       // bench: the datasets folder (--data-dir)
	"FONDUE_NEO4J_CACHE",    // tests: the Neo4j test servers' cache (internal/toolcache)
	"FONDUE_NEO4J_VERSIONS", // tests: the Neo4j versions to test on (internal/neo4jtest)
	"FONDUE_MAVEN",          // tests: the Maven command (internal/neo4jtest)
	"FONDUE_CHROMIUM",       // tests: the browser of the review page's test (internal/browser)
}

var javaHome = regexp.MustCompile(`^FONDUE_JAVA[0-9]+_HOME$`) // tests: a JDK (internal/neo4jtest)

// IsOtherEnv reports whether a FONDUE_* variable is read elsewhere, not a
// setting.
func IsOtherEnv(name string) bool {
	return slices.Contains(OtherEnv, name) || javaHome.MatchString(name)
}

// Aliases are other names of settings, accepted in files and variables:
// Neo4j GDS calls the number of threads "concurrency".
var Aliases = map[string]string{"concurrency": "threads"}

func checkSize(s string) error {
	switch s {
	case "", "auto", "none", "0":
		return nil
	}
	_, err := sysmem.ParseBytes(s)
	return err
}

// Settings are fondue-neo4j's configuration keys, their kinds and defaults
// (config.example.yaml documents each one).
var Settings = []Setting{
	{Key: "log.level", Kind: Enum, Default: "info", Values: []string{"debug", "info", "warn", "warning", "error"}},
	{Key: "log.format", Kind: Enum, Default: "", Values: []string{"", "text", "json"}},
	{Key: "max_memory", Kind: Size, Default: "", Check: checkSize},
	{Key: "seed", Kind: Uint, Default: uint64(1)},
	{Key: "threads", Kind: NonNegInt, Default: 0, Want: "a non-negative integer (0: all cores)"},
	{Key: "method", Kind: Enum, Default: score.DefaultMethod, Values: score.Methods()},
	{Key: "random_splits", Kind: Int, Default: 100, Want: "an integer (-1: none; default 100)"},
	{Key: "unnormalized", Kind: Bool, Default: false},
	{Key: "polish", Kind: Bool, Default: false},
	{Key: "embedding.dim", Kind: PosInt, Default: 8},
	{Key: "embedding.sigma1", Kind: PosFloat, Default: 1.0},
	{Key: "embedding.sigma2", Kind: PosFloat, Default: 2.0},
	{Key: "embedding.epochs", Kind: PosInt, Default: 2000},
	{Key: "embedding.learning_rate", Kind: PosFloat, Default: 0.1},
	{Key: "embedding.neg_ratio", Kind: PosInt, Default: 5},
	{Key: "embedding.mode", Kind: Enum, Default: "auto", Values: []string{"auto", "exact", "sampled"}},
	{Key: "embedding.tol", Kind: PosFloat, Default: 1e-2},
	{Key: "embedding.start", Kind: Enum, Default: "smoothed", Values: []string{"smoothed", "noise"}},
	{Key: "embedding.stability_stop", Kind: Bool, Default: true},
	{Key: "embedding.exact_max_nodes", Kind: NonNegInt, Default: 1000},
	{Key: "embedding.checkpoint", Kind: String, Default: ""},
	{Key: "embedding.checkpoint_force", Kind: Bool, Default: false},
	{Key: "embedding.property", Kind: String, Default: ""},
	{Key: "split.method", Kind: Enum, Default: "", Values: splitterNames(), Want: splitterWant()},
	{Key: "split.top", Kind: NonNegInt, Default: 0},
	{Key: "split.min_ambiguity", Kind: Fraction, Default: 0.0},

	// score's output.
	{Key: "top", Kind: NonNegInt, Default: 0, Want: "a non-negative integer (0: all nodes)"},
	{Key: "header", Kind: Enum, Default: "auto", Values: []string{"auto", "yes", "no", "true", "false", "first", "none"}},
	{Key: "print_header", Kind: AutoBool, Default: "auto", Want: "auto (column names only when stdout is a terminal), true or false"},
	{Key: "names", Kind: String, Default: ""},
	// score's and review's nodes to score (the rest is context).
	{Key: "score_prefix", Kind: String, Default: ""},
	{Key: "score_nodes", Kind: String, Default: ""},

	// review's page.
	{Key: "review.top", Kind: PosInt, Default: 20},
	{Key: "review.out", Kind: String, Default: "fondue-review.html", Check: func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("want the HTML file to write (- for standard output)")
		}
		return nil
	}},
	{Key: "review.plan", Kind: String, Default: ""},

	// sync and undo (Neo4j).
	{Key: "neo4j.uri", Kind: String, Default: "bolt://localhost:7687"},
	{Key: "neo4j.user", Kind: String, Default: "neo4j"},
	{Key: "neo4j.password", Kind: String, Default: "",
		NotInFile: "neo4j.password must not be in the config file: set FONDUE_NEO4J_PASSWORD or neo4j.password_file"},
	{Key: "neo4j.password_file", Kind: String, Default: ""},
	{Key: "neo4j.database", Kind: String, Default: ""},
	{Key: "neo4j.connect_timeout", Kind: Duration, Default: "10s"},
	{Key: "neo4j.max_retry_time", Kind: Duration, Default: "30s"},
	{Key: "graph.node_labels", Kind: List, Default: []string{}},
	{Key: "graph.relationship_types", Kind: List, Default: []string{}},
	{Key: "graph.node_query", Kind: String, Default: ""},
	{Key: "graph.relationship_query", Kind: String, Default: ""},
	{Key: "graph.id_property", Kind: String, Default: ""},
	{Key: "graph.display_property", Kind: List, Default: []string{}}, // the first that a node has
	{Key: "graph.fetch_size", Kind: PosInt, Default: 10000},
	{Key: "write.node_labels", Kind: List, Default: []string{}}, // the nodes scored and written; []: every pulled node
	{Key: "write.property", Kind: String, Default: syncjob.DefaultWriteProperty},
	{Key: "write.score_property", Kind: String, Default: syncjob.DefaultScoreProperty},
	{Key: "write.entities_property", Kind: String, Default: syncjob.DefaultEntitiesProperty},
	{Key: "write.run_property", Kind: String, Default: syncjob.DefaultRunProperty},
	{Key: "write.batch_size", Kind: PosInt, Default: syncjob.DefaultBatchSize},
	{Key: "write.concurrency", Kind: PosInt, Default: 1},
	{Key: "split.enabled", Kind: Bool, Default: false},
	{Key: "split.marker_label", Kind: String, Default: syncjob.DefaultMarkerLabel},
	{Key: "split.skip_properties", Kind: List, Default: []string{}},
	{Key: "split.plan", Kind: String, Default: ""},
	{Key: "lock.name", Kind: String, Default: syncjob.DefaultLockName},
	{Key: "lock.ttl", Kind: Duration, Default: syncjob.DefaultLockTTL.String()},
	{Key: "run_id", Kind: String, Default: ""},
	{Key: "output", Kind: Enum, Default: "text", Values: []string{"text", "tsv", "json"}},
	{Key: "dry_run", Kind: Bool, Default: false},
}

// splitterWant describes the values of split.method that commands accept.
func splitterWant() string {
	var names []string
	for _, s := range split.Splitters() {
		names = append(names, s.Name())
	}
	return `one of ` + strings.Join(names, ", ") + ` ("": the default, ` + split.Default + `)`
}

// splitterNames lists the values of split.method: none (""), fondue's
// splitters, and the research splitters, which the CLI's commands refuse
// with a message that points to the bench.
func splitterNames() []string {
	names := []string{""}
	for _, s := range append(split.Splitters(), research.Splitters()...) {
		names = append(names, s.Name())
	}
	return names
}
