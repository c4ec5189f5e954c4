package bench

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

//go:embed paper.json
var paperJSON []byte

// PaperDataset is one dataset of the paper.
type PaperDataset struct {
	Name  string `json:"name"`  // our name (the file's base name)
	Paper string `json:"paper"` // the paper's name
	File  string `json:"file"`  // edge list in the datasets directory; empty when unavailable
	Nodes int    `json:"nodes"` // the paper's node count
	Edges int    `json:"edges"` // the paper's edge count
	// Unavailable says why we cannot run it; empty when we can.
	Unavailable string `json:"unavailable"`
}

// Available reports whether we have the dataset's file.
func (d PaperDataset) Available() bool { return d.Unavailable == "" && d.File != "" }

// PaperTable is one of the paper's tables: dataset -> ratio -> method -> value.
type PaperTable struct {
	Layout string                                   `json:"layout"`
	Cells  map[string]map[string]map[string]float64 `json:"cells"`
}

// Get returns the paper's value for a cell, and whether the paper reports it.
func (t PaperTable) Get(dataset string, ratio float64, method string) (float64, bool) {
	v, ok := t.Cells[dataset][RatioKey(ratio)][method]
	return v, ok
}

// HasCell reports whether the paper has any value for the dataset and ratio.
func (t PaperTable) HasCell(dataset string, ratio float64) bool {
	return len(t.Cells[dataset][RatioKey(ratio)]) > 0
}

// PaperData holds the paper's datasets and tables, from the embedded
// paper.json (the one place the paper's numbers live).
type PaperData struct {
	Source   string         `json:"source"`
	Ratios   []string       `json:"ratios"`
	Datasets []PaperDataset `json:"datasets"`
	AUC      PaperTable     `json:"auc"`
	ARI      PaperTable     `json:"ari"`
	Runtime  PaperTable     `json:"runtime"`
}

// Dataset returns the dataset with the given name.
func (p *PaperData) Dataset(name string) (PaperDataset, bool) {
	for _, d := range p.Datasets {
		if d.Name == name {
			return d, true
		}
	}
	return PaperDataset{}, false
}

// PaperRatios returns the paper's contraction ratios as numbers, ascending.
func (p *PaperData) PaperRatios() []float64 {
	out := make([]float64, len(p.Ratios))
	for k, s := range p.Ratios {
		out[k], _ = strconv.ParseFloat(s, 64)
	}
	return out
}

// Paper parses the embedded paper data.
func Paper() (*PaperData, error) {
	var p PaperData
	if err := json.Unmarshal(paperJSON, &p); err != nil {
		return nil, fmt.Errorf("bench: paper.json: %w", err)
	}
	for _, r := range p.Ratios {
		if _, err := strconv.ParseFloat(r, 64); err != nil {
			return nil, fmt.Errorf("bench: paper.json: ratio %q: %w", r, err)
		}
	}
	for _, t := range []PaperTable{p.AUC, p.ARI, p.Runtime} {
		for ds, byRatio := range t.Cells {
			if _, ok := p.Dataset(ds); !ok {
				return nil, fmt.Errorf("bench: paper.json: table cell for unknown dataset %q", ds)
			}
			for r := range byRatio {
				if x, err := strconv.ParseFloat(r, 64); err != nil || RatioKey(x) != r {
					return nil, fmt.Errorf("bench: paper.json: %s: ratio key %q is not canonical", ds, r)
				}
			}
		}
	}
	return &p, nil
}

// MustPaper is Paper for callers that embed a known-good file.
func MustPaper() *PaperData {
	p, err := Paper()
	if err != nil {
		panic(err)
	}
	return p
}

// RatioKey formats a ratio the way paper.json keys it ("0.001", "0.01", "0.1").
func RatioKey(r float64) string { return strconv.FormatFloat(r, 'g', -1, 64) }

// RatioLabel formats a ratio as a percentage the way the paper's tables
// head their columns ("0.1%", "1%", "10%").
func RatioLabel(r float64) string {
	p := r * 100
	return strconv.FormatFloat(math.Round(p*1e6)/1e6, 'g', -1, 64) + "%"
}
