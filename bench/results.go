package bench

import (
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
)

// Phases are wall times in seconds.
type Phases struct {
	Prior     float64 `json:"prior,omitempty"`
	Embedding float64 `json:"embedding,omitempty"`
	Scoring   float64 `json:"scoring"`
	Total     float64 `json:"total"`
}

// MethodResult is one identification method on one contracted graph.
type MethodResult struct {
	AUC        float64 `json:"auc"`         // with the run's tie convention
	AUCAverage float64 `json:"auc_average"` // ties count half (the usual AUC)
	AUCLoss    float64 `json:"auc_loss"`    // ties count as a loss (the paper's baselines)
	NDCG       float64 `json:"ndcg"`
	// ROC holds the true-positive rate at the 101 false-positive rates
	// 0, 0.01, …, 1 (the ROC curve with diagonal steps for ties, linearly
	// interpolated).
	ROC     []float64 `json:"roc"`
	Seconds Phases    `json:"seconds"`
	// Top is the head of the ranking: precision at 20, 100 and 1%, the
	// random baseline, the head's degree against the planted nodes'.
	Top *metrics.Top `json:"top,omitempty"`
}

// rocPoints is the number of grid points of MethodResult.ROC.
const rocPoints = 101

// SeedResult holds everything measured on one contracted graph.
type SeedResult struct {
	Dataset    string  `json:"dataset"`
	Ratio      float64 `json:"ratio"`
	Seed       int     `json:"seed"`        // contraction seed
	EngineSeed uint64  `json:"engine_seed"` // seed of the embedding and the random sign vectors
	Nodes      int     `json:"nodes"`       // of the contracted graph
	Edges      int     `json:"edges"`
	Ambiguous  int     `json:"ambiguous"` // q, the planted ambiguous nodes
	// DroppedLoops counts edges between the two nodes of a pair,
	// MergedEdges the duplicate edges collapsed by the merge.
	DroppedLoops    int     `json:"dropped_loops"`
	MergedEdges     int     `json:"merged_edges"`
	ContractSeconds float64 `json:"contract_seconds"`
	// EmbedSeconds is the time of the FONDUE run (prior, embedding,
	// scoring) shared by the FONDUE method and the splitters.
	EmbedSeconds float64                  `json:"embed_seconds"`
	CNE          *metrics.CNE             `json:"cne,omitempty"`
	Methods      map[string]*MethodResult `json:"methods,omitempty"`
	Splitters    map[string]*SplitResult  `json:"splitters,omitempty"`
	Fingerprint  string                   `json:"fingerprint"`
}

// ConfigRecord is Config as recorded in the results.
type ConfigRecord struct {
	Datasets   []string     `json:"datasets"`
	Ratios     []float64    `json:"ratios"`
	Seeds      int          `json:"seeds"`
	SplitSeeds int          `json:"split_seeds"`
	Methods    []string     `json:"methods"`
	Splitters  []string     `json:"splitters"`
	Ties       string       `json:"ties"`
	Workers    int          `json:"workers"`
	Engine     setup.Engine `json:"engine"`
	DataDir    string       `json:"data_dir"`
	// SeedRule says how seeds are derived.
	SeedRule string `json:"seed_rule"`
}

// Results is the outcome of Run.
type Results struct {
	Config   ConfigRecord  `json:"config"`
	Started  time.Time     `json:"started"`
	Finished time.Time     `json:"finished"`
	Seconds  float64       `json:"wall_seconds"`
	Complete bool          `json:"complete"` // every requested seed is in Seeds
	Cells    []CellSummary `json:"cells"`
	Seeds    []*SeedResult `json:"seeds"`
	// Resumed counts the seeds taken from the journal.
	Resumed int `json:"resumed"`
}

// MethodSummary is one identification method in one cell, over its seeds.
type MethodSummary struct {
	AUC        metrics.Stat `json:"auc"`
	AUCAverage metrics.Stat `json:"auc_average"`
	AUCLoss    metrics.Stat `json:"auc_loss"`
	NDCG       metrics.Stat `json:"ndcg"`
	// Seconds are mean wall times per seed.
	Seconds Phases `json:"seconds"`
	// ROC is the vertical average over seeds of the per-seed ROC grids.
	ROC []float64 `json:"roc"`
	// P20, P100 and P1 are the precisions at 20, 100 and 1% of the
	// ranked nodes, Random the planted nodes' share (over the seeds that
	// measured them); Hubs counts the seeds whose head Top.Hubs names.
	P20    metrics.Stat `json:"p20"`
	P100   metrics.Stat `json:"p100"`
	P1     metrics.Stat `json:"p1pct"`
	Random metrics.Stat `json:"random"`
	Hubs   int          `json:"hubs"`
}

// SplitSummary is one splitter in one cell, over its seeds.
type SplitSummary struct {
	// ARI is over seeds of the per-seed mean ARI over ambiguous nodes.
	ARI metrics.Stat `json:"ari"`
	// NodeARI is over all evaluated nodes of all seeds.
	NodeARI metrics.Stat `json:"node_ari"`
	// Nodes, Skipped, Neighbors and Shared are totals over seeds.
	Nodes      int     `json:"nodes"`
	Skipped    int     `json:"skipped"`
	Neighbors  int     `json:"neighbors"`
	Shared     int     `json:"shared"`
	MeanGroups float64 `json:"mean_groups"`
	Seconds    float64 `json:"seconds"` // mean per seed
}

// CellSummary is one (dataset, ratio) cell.
type CellSummary struct {
	Dataset string  `json:"dataset"`
	Ratio   float64 `json:"ratio"`
	// Skipped is set when q = ⌊ratio·n⌋ = 0: the paper's "-".
	Skipped   bool `json:"skipped,omitempty"`
	Ambiguous int  `json:"ambiguous"` // q
	// IdentSeeds and SplitSeeds count the seeds present.
	IdentSeeds int                       `json:"ident_seeds"`
	SplitSeeds int                       `json:"split_seeds"`
	Epochs     metrics.Stat              `json:"cne_epochs"`
	Methods    map[string]*MethodSummary `json:"methods,omitempty"`
	Splitters  map[string]*SplitSummary  `json:"splitters,omitempty"`
}

// Cell returns the summary of a cell, or nil.
func (r *Results) Cell(dataset string, ratio float64) *CellSummary {
	for k := range r.Cells {
		c := &r.Cells[k]
		if c.Dataset == dataset && RatioKey(c.Ratio) == RatioKey(ratio) {
			return c
		}
	}
	return nil
}
