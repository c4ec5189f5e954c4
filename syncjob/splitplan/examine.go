package splitplan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// Examine decides whether planned node n can be split as planned, given
// its state and, when needed, its relationships (rels is called at most
// once): o.Outcome is "" when it can (a says where each relationship
// goes), else OutcomeMissing, OutcomeDone or OutcomeChanged, with the
// reason. Stores run it in each node's split transaction and in Check, so
// that every store decides alike.
//
// A node is missing when it has no id (a key no node has, see
// ResolveKeys), no longer exists, its key changed, or (ExactNeighbors) it
// is no longer selected; done when this run split it already; changed
// when planned neighbours are no longer connected to it, or
// (ExactNeighbors) its neighbours are not exactly the planned ones.
func (p *Plan) Examine(n Node, state NodeState, rels func() ([]Rel, error)) (o NodeOutcome, a Assignment, err error) {
	o = NodeOutcome{Key: n.Key, Name: n.Name}
	switch {
	case n.ID.IsZero():
		o.Outcome, o.Reason = OutcomeMissing, fmt.Sprintf("no node of the subgraph has %s = %s", p.IDProperty, n.Key.Describe())
		return o, a, nil
	case !state.Exists:
		o.Outcome, o.Reason = OutcomeMissing, "the node no longer exists"
		return o, a, nil
	case p.IDProperty != "" && !n.Key.Matches(state.KeyValue):
		o.Outcome, o.Reason = OutcomeMissing, fmt.Sprintf("its %s is now %v", p.IDProperty, state.KeyValue)
		return o, a, nil
	case state.Split:
		o.Outcome = OutcomeDone
		return o, a, nil
	case p.ExactNeighbors && !p.Selects(state.Labels, state.KeyValue != nil):
		o.Outcome, o.Reason = OutcomeMissing, fmt.Sprintf("it is no longer in the subgraph (its labels are now %s)", strings.Join(quoteAll(state.Labels), ", "))
		return o, a, nil
	}
	rs, err := rels()
	if err != nil {
		return o, a, err
	}
	a = p.Assign(n, rs)
	if p.ExactNeighbors {
		if added, removed := p.neighbourChange(n, rs); len(added)+len(removed) > 0 {
			o.Outcome, o.Reason = OutcomeChanged, changeText(added, removed)
		}
	} else if len(a.Missing) > 0 {
		o.Outcome = OutcomeChanged
		o.Reason = fmt.Sprintf("%d planned neighbours are no longer connected to it (e.g. %v)", len(a.Missing), a.Missing[0])
	}
	return o, a, nil
}

// Selects reports whether the plan's pull selects a node with these labels
// that has a key property (hasKey) or not: one of NodeLabels (when given;
// never fondue-neo4j's own lock and run nodes), and a key when IDProperty
// is set (split clones without one are left out).
func (p *Plan) Selects(labels []string, hasKey bool) bool {
	if len(p.NodeLabels) > 0 {
		if !slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(p.NodeLabels, l) }) {
			return false
		}
	} else if slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(OwnLabels(), l) }) {
		return false
	}
	return p.IDProperty == "" || hasKey
}

// neighbourChange compares node n's neighbours in the subgraph (the other
// ends of its relationships that the plan's pull selects; a clone of this
// run counts as its original) with the planned ones: the neighbours added
// since the plan and the planned ones removed, described for people.
func (p *Plan) neighbourChange(n Node, rels []Rel) (added, removed []string) {
	planned := map[keys.Key]bool{}
	for _, grp := range n.Groups {
		for _, id := range grp.NeighborIDs {
			planned[id] = true
		}
	}
	current := map[keys.Key]bool{}
	type nb struct {
		key  keys.Key
		desc string
	}
	var extra []nb
	for _, r := range rels {
		other, name, labels := r.Other, r.OtherName, r.OtherLabels
		eligible := p.selectsType(r.Type)
		switch {
		case !eligible || other == n.ID:
			continue
		case !r.Origin.IsZero():
			other = r.Origin // selected: its original was
		case !p.Selects(labels, r.OtherKeyValue != nil):
			continue
		}
		if current[other] {
			continue
		}
		current[other] = true
		if !planned[other] {
			key := other
			if p.IDProperty != "" {
				key = keyOf(r.OtherKeyValue)
			}
			extra = append(extra, nb{key, key.DescribeNode(name)})
		}
	}
	slices.SortFunc(extra, func(a, b nb) int { return a.key.Compare(b.key) })
	for _, e := range extra {
		added = append(added, e.desc)
	}
	for _, grp := range n.Groups {
		for k, id := range grp.NeighborIDs {
			if id.IsZero() || !current[id] {
				name := ""
				if grp.Names != nil {
					name = grp.Names[k]
				}
				removed = append(removed, grp.Neighbors[k].DescribeNode(name))
			}
		}
	}
	return added, removed
}

// keyOf is a neighbour's key for a message: the value of its key property
// as a key or, when the value cannot be one (the pull would refuse it), as
// its text.
func keyOf(v any) keys.Key {
	if k, err := keys.FromValue(v); err == nil {
		return k
	}
	return keys.String(keys.DisplayText(v))
}

func quoteAll(xs []string) []string {
	q := make([]string, len(xs))
	for k, x := range xs {
		q[k] = strconv.Quote(x)
	}
	return q
}

// maxListed bounds the neighbours a change names.
const maxListed = 10

// changeText says how a node's neighbours changed: "added neighbour 77;
// removed 26 (Cosette)".
func changeText(added, removed []string) string {
	list := func(xs []string) string {
		s := strings.Join(xs[:min(len(xs), maxListed)], ", ")
		if len(xs) > maxListed {
			s += fmt.Sprintf(" and %d more", len(xs)-maxListed)
		}
		return s
	}
	noun := func(xs []string) string {
		if len(xs) == 1 {
			return "neighbour "
		}
		return "neighbours "
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+noun(added)+list(added))
	}
	if len(removed) > 0 {
		if len(added) > 0 {
			parts = append(parts, "removed "+list(removed))
		} else {
			parts = append(parts, "removed "+noun(removed)+list(removed))
		}
	}
	return strings.Join(parts, "; ")
}
