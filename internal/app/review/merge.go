package review

import (
	_ "embed"
	"encoding/json"
	"io"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
)

// The review page of a merge plan ("sync --duplicates --dry-run"): a card
// per pair with its names, score and reasons, Accept / Reject, and the
// export of the plan with the decisions: the approved merge plan that
// "sync --merge --plan FILE" reads (mergeplan's format, every pair).

//go:embed merge.js
var mergeJS string

// MergeDoc is a merge plan to review.
type MergeDoc struct {
	Plan *mergeplan.Plan
	// Input is the dry run's file (the exported plan's input).
	Input string
	// Top is the number of pairs shown, best first (0: all); the export
	// holds the others too, with their decisions.
	Top               int
	GeneratedAt, Tool string
}

// reviewedAt stands for the time of the export in the page's copy of the
// plan.
const reviewedAt = "@reviewedAt@"

// mergeData is the page's data: the plan without its pairs and each pair
// as JSON text, exported as they are but for the decisions and the time
// (keys keep their JSON: an integer beyond 2^53 survives JavaScript).
type mergeData struct {
	Input       string   `json:"input,omitempty"`
	GeneratedAt string   `json:"generatedAt"`
	Tool        string   `json:"tool,omitempty"`
	Top         int      `json:"top"`
	Head        string   `json:"head"`
	Pairs       []string `json:"pairs"`
}

// WriteMerge writes the review page of d.Plan to w.
func WriteMerge(w io.Writer, d *MergeDoc) error {
	head := *d.Plan
	head.Pairs, head.ReviewedAt, head.Input = nil, reviewedAt, d.Input
	hj, err := json.Marshal(&head)
	if err != nil {
		return err
	}
	data := mergeData{Input: d.Input, GeneratedAt: d.GeneratedAt, Tool: d.Tool, Top: d.Top, Head: string(hj), Pairs: []string{}}
	for _, p := range d.Plan.Pairs {
		pj, err := json.Marshal(p)
		if err != nil {
			return err
		}
		data.Pairs = append(data.Pairs, string(pj))
	}
	return render(w, mergePage, "fondue-neo4j review: merge plan of run "+d.Plan.RunID, data, mergeJS)
}
