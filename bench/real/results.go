package real

import (
	"encoding/json"
	"math"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/research"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
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
	MetricAUC     = "auc"              // ROC AUC, ties by average rank
	MetricAUCBins = "auc_within_bins"  // metrics.AUCWithinBins
	MetricAUC2    = "auc_2_persons"    // AUC with only the 2-person positives
	MetricP100    = "p_at_100"         // metrics.PrecisionAt 100
	MetricP20     = "p_at_20"          // metrics.PrecisionAt 20
	MetricP1      = "p_at_1pct"        // metrics.PrecisionAt 1% of the ranked names
	MetricRandom  = "random"           // the positives' share: a random order's precision
	MetricHubs    = "top_degree_ratio" // mean degree of the top 100 over the positives' (metrics.Top)
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
	SplitPersons    Num         `json:"split_persons_mean"`
	EligiblePersons Num         `json:"eligible_persons_mean"`
	Top             []TopName   `json:"top"`
	Seeds           []*Seed     `json:"seeds"`
	Summary         *SetSummary `json:"summary"`
	Seconds         float64     `json:"seconds"`
	HasNames        bool        `json:"display_names"`
	// Context describes the knowledge-graph context the engine was given
	// (kinds and evidence properties), "" for none.
	Context string        `json:"context,omitempty"`
	Splits  []SplitRecord `json:"splits"`
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
