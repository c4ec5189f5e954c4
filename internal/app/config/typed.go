package config

import (
	"fmt"
	"slices"
	"time"
)

// Config is the configuration a command runs with, decoded from every
// setting's value (Load): a struct per concern, each field a setting
// (Setting.Field says which).
type Config struct {
	Log    Log
	Engine Engine
	// MaxMemory (max_memory) is the memory limit: a size such as 4GiB,
	// "" or "auto" (the memory available), "none" or "0" (no limit).
	MaxMemory string
	Input     Input
	Output    Output
	Review    Review
	// Duplicates is the duplicates command's (duplicates.*).
	Duplicates Duplicates
	Neo4j      Neo4j
	Graph      Graph
	Write      Write
	Split      Split
	Merge      Merging
	Lock       Lock
	Metrics    Metrics
	RunID      string // run_id: "" for a new one
	DryRun     bool   // dry_run
	// ForgetDecisions: undo forgets review decisions (forget_decisions).
	ForgetDecisions bool
}

// Log is how the commands log (log.*).
type Log struct {
	Level  string // debug, info, warn (warning) or error
	Format string // text, json, or "" (text on a terminal, JSON otherwise)
}

// Engine is the engine's options (seed, threads, method, ... and
// embedding.*); the splitter's are in Split.
type Engine struct {
	Seed         uint64
	Threads      int
	Method       string
	RandomSplits int
	Unnormalized bool
	Polish       bool
	Embedding    Embedding
}

// Embedding is the CNE fit's options and its warm start (embedding.*).
type Embedding struct {
	Dim             int
	Sigma1, Sigma2  float64
	Epochs          int
	LearningRate    float64
	NegRatio        int
	Mode            string // auto, exact or sampled
	Tol             float64
	Start           string // smoothed or noise
	StabilityStop   bool
	ExactMaxNodes   int
	Checkpoint      string // a warm-start file, "" for none
	CheckpointForce bool
	Full            bool   // a full run: Checkpoint is a warm start only; sync writes every node
	Property        string // sync: the node property keeping the embedding
}

// Input is which edge list lines and nodes score, review and estimate
// read, and their names.
type Input struct {
	Header      string // auto, or an edge list's header: yes (true, first) or no (false, none)
	Names       string // a file of display names, "" for none
	ScorePrefix string // score only the nodes whose id starts with this
	ScoreNodes  string // score only the nodes this file lists
	// A knowledge graph in Neo4j's bulk-import CSV files, instead of an
	// edge list: node and relationship files, the labels scored.
	Nodes, Relationships []string
	ScoreLabels          []string
}

// Output is what the commands print.
type Output struct {
	Format      string // output: text, tsv (score) or json
	Top         int    // score: the nodes printed, 0 for all
	PrintHeader string // score: auto, true or false
}

// Duplicates is what the duplicates command prints and compares
// (duplicates.*).
type Duplicates struct {
	Top          int    // the pairs printed, best first; 0 for all
	NameProperty string // with --nodes: the property holding the names
	// sync --duplicates: find them, write them as relationships of
	// RelationshipType, those at least MinProbability likely.
	Enabled          bool
	RelationshipType string
	MinProbability   float64
}

// Review is review's page (review.*).
type Review struct {
	Top  int    // the nodes on the page
	Out  string // the HTML file, "-" for standard output
	Plan string // a dry run's plan to review, "" for none
	// Approved is the approved plan that "plan accept|reject" write.
	Approved string
}

// Neo4j is how sync and undo connect (neo4j.*). Of the password's two
// places, Load keeps the one that wins: the --password-file flag, else
// FONDUE_NEO4J_PASSWORD, else neo4j.password_file from the environment
// or the file; at most one of Password and PasswordFile is set.
type Neo4j struct {
	URI, User      string
	Password       string // FONDUE_NEO4J_PASSWORD's
	PasswordFile   string // the file holding the password
	Database       string
	ConnectTimeout time.Duration
	MaxRetryTime   time.Duration
}

// Graph is the subgraph sync pulls (graph.*).
type Graph struct {
	NodeLabels         []string
	RelationshipTypes  []string
	NodeQuery          string
	RelationshipQuery  string
	IDProperty         string
	DisplayProperty    []string
	EvidenceProperties []string
	FetchSize          int
	ReadConcurrency    int
}

// Write is what sync writes (write.*).
type Write struct {
	NodeLabels       []string
	Property         string
	ScoreProperty    string
	EntitiesProperty string
	RunProperty      string
	BatchSize        int
	Concurrency      int
}

// Split is the splitting of score, review and sync (split.*).
type Split struct {
	Enabled        bool
	Method         string // the splitter, "" for the default
	Top            int
	MinAmbiguity   float64
	MarkerLabel    string
	CloneKey       string // split.clone_key: the scheme of split nodes' keys
	SkipProperties []string
	Plan           string // sync: an approved plan to apply
	Unfinished     string // split.unfinished: resume, undo or fail
}

// Merging is the merging of duplicate nodes in sync (merge.*).
type Merging struct {
	Enabled bool // merge the accepted pairs of the plan split.plan names
}

// Lock is sync's and undo's lock (lock.*).
type Lock struct {
	Name string
	TTL  time.Duration
}

// Metrics is where sync and undo report their runs (metrics.*).
type Metrics struct {
	PushgatewayURL string // "" : no push
	Job            string
	Textfile       string // "" : none
}

const passwordFileKey = "neo4j.password_file"

// set stores a parsed value in the setting's field of c.
func (s *Setting) set(c *Config, val any) error {
	ok := false
	switch p := s.Field(c).(type) {
	case *string:
		*p, ok = val.(string)
	case *bool:
		*p, ok = val.(bool)
	case *int:
		*p, ok = val.(int)
	case *uint64:
		*p, ok = val.(uint64)
	case *float64:
		*p, ok = val.(float64)
	case *[]string:
		var l []string
		l, ok = val.([]string)
		*p = nil // an empty list is nil, as no list
		if len(l) > 0 {
			*p = slices.Clone(l)
		}
	case *time.Duration:
		var text string
		if text, ok = val.(string); ok {
			d, err := time.ParseDuration(text)
			*p, ok = d, err == nil
		}
	}
	if !ok {
		return fmt.Errorf("internal error: setting %s: %T does not fit its field %T", s.Key, val, s.Field(c))
	}
	return nil
}
