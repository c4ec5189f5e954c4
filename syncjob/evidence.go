package syncjob

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
)

// EvidenceValues collects the evidence properties (PullOptions.
// EvidenceProperties) of pulled nodes, a node at a time in the order they
// are read, for Subgraph.Context. A property whose present values are all
// numbers is numeric (float64); one with any other value is text, its
// numbers then written as text. Strings are text; booleans "true" and
// "false"; lists their elements joined by spaces; other values (dates,
// points) as the driver prints them. nil values are absent.
type EvidenceValues struct {
	props []evidenceValues
	// TextBytes counts the bytes of the text values kept.
	TextBytes int64
	n         int
}

type evidenceValues struct {
	name string
	num  []float64 // while every value so far is a number; nil once text
	text []string  // once a value is text
}

// NewEvidenceValues collects the properties names (nil without any).
func NewEvidenceValues(names []string) *EvidenceValues {
	if len(names) == 0 {
		return nil
	}
	e := &EvidenceValues{props: make([]evidenceValues, len(names))}
	for k, n := range names {
		e.props[k].name = n
	}
	return e
}

// Add adds the next node's values, one per property (nil: absent).
func (e *EvidenceValues) Add(values []any) {
	for k := range e.props {
		var v any
		if k < len(values) {
			v = values[k]
		}
		e.props[k].add(v, e.n, &e.TextBytes)
	}
	e.n++
}

func (p *evidenceValues) add(v any, n int, textBytes *int64) {
	x, isNum := number(v)
	if p.text == nil && (v == nil || isNum) {
		if v == nil {
			x = evidence.Absent
		}
		p.num = append(p.num, x)
		return
	}
	if p.text == nil { // the first text value: the numbers so far become text
		p.text = make([]string, n, max(cap(p.num), n+1))
		for k, y := range p.num {
			if !math.IsNaN(y) {
				p.text[k] = strconv.FormatFloat(y, 'f', -1, 64)
				*textBytes += int64(len(p.text[k]))
			}
		}
		p.num = nil
	}
	s := EvidenceText(v)
	*textBytes += int64(len(s))
	p.text = append(p.text, s)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

// EvidenceText is a property value as text evidence ("" for nil).
func EvidenceText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		parts := make([]string, 0, len(x))
		for _, y := range x {
			if s := EvidenceText(y); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(v) // dates, points: as the driver prints them
}

// CheckEvidence refuses an evidence property that no pulled node has (a
// typo would silently drop evidence): an ErrInvalid error naming
// an evidence property, as the import CSVs refuse one no node file has.
func CheckEvidence(c *evidence.Context) error {
	if c == nil {
		return nil
	}
	for k := range c.Properties {
		if p := &c.Properties[k]; p.Empty() {
			return Errorf(ErrInvalid, nil, "no node has the evidence property %q", p.Name)
		}
	}
	return nil
}

// NewContext builds the context of n nodes: kinds from the label sets
// (labelSets, and labelSet[i] node i's, nil when unknown: every kind -1),
// and the evidence values read, the node at position pos being node
// order[pos]. It is nil when it says nothing beyond the links: no
// evidence properties and at most one kind.
func NewContext(n int, labelSets [][]string, labelSet []int32, ev *EvidenceValues, order []int32) *evidence.Context {
	c := &evidence.Context{}
	if labelSet != nil {
		kindOf := make([]int32, len(labelSets))
		index := map[string]int32{}
		for k, set := range labelSets {
			s := slices.Clone(set)
			slices.Sort(s)
			name := strings.Join(s, ":")
			id, ok := index[name]
			if !ok {
				id = int32(len(c.Kinds))
				index[name] = id
				c.Kinds = append(c.Kinds, name)
			}
			kindOf[k] = id
		}
		c.Kind = make([]int32, n)
		for i, set := range labelSet {
			c.Kind[i] = kindOf[set]
		}
	}
	if ev == nil && len(c.Kinds) <= 1 {
		return nil
	}
	if ev != nil {
		for k := range ev.props {
			p := &ev.props[k]
			ep := evidence.Property{Name: p.name, Numeric: p.text == nil}
			if ep.Numeric {
				ep.Number = make([]float64, n)
				for i := range ep.Number {
					ep.Number[i] = evidence.Absent
				}
				for pos, x := range p.num {
					ep.Number[order[pos]] = x
				}
			} else {
				ep.Text = make([]string, n)
				for pos, s := range p.text {
					ep.Text[order[pos]] = s
				}
			}
			p.num, p.text = nil, nil // moved: the collector may take them
			c.Properties = append(c.Properties, ep)
		}
	}
	return c
}
