package mergeplan

import (
	"cmp"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// Node is one node of a merge group, as the plan names it.
type Node struct {
	Key, ID     keys.Key
	Name        string
	Fingerprint string // "" when the plan has none
}

// Group is what one merge transaction does: the nodes Merge merged, in
// this order, into Keep. Pairs are the accepted pairs it carries out
// (indices into Plan.Pairs).
type Group struct {
	Keep  Node
	Merge []Node
	Pairs []int
}

// Groups returns the merge groups of the accepted pairs: nodes joined by
// accepted pairs (chains A~B, B~C) make one group and one survivor. The
// rule: the group's pairs are taken by score, highest first (plan order
// among equal scores); the survivor is the keep of the first pair whose
// keep is the merge of no accepted pair (else, a cycle, of the first
// pair); the other nodes merge into it in the order they first appear in
// those pairs (merge before keep within a pair). Groups come in the
// order of their best pair. A node's id, name and fingerprint are those
// of its first pair.
func (p *Plan) Groups() []Group {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if parent[x] == x {
			return x
		}
		parent[x] = find(parent[x])
		return parent[x]
	}
	var acc []int
	for k, pr := range p.Pairs {
		if pr.Decision != DecisionAccept {
			continue
		}
		acc = append(acc, k)
		for _, key := range []string{pr.Keep.Text(), pr.Merge.Text()} {
			if _, ok := parent[key]; !ok {
				parent[key] = key
			}
		}
		a, b := find(pr.Keep.Text()), find(pr.Merge.Text())
		if a != b {
			parent[b] = a
		}
	}
	slices.SortStableFunc(acc, func(a, b int) int { return cmp.Compare(p.Pairs[b].Score, p.Pairs[a].Score) })
	merged := map[string]bool{}
	for _, k := range acc {
		merged[p.Pairs[k].Merge.Text()] = true
	}
	byRoot := map[string]int{}
	var groups []Group
	for _, k := range acc {
		r := find(p.Pairs[k].Keep.Text())
		g, ok := byRoot[r]
		if !ok {
			g = len(groups)
			byRoot[r] = g
			groups = append(groups, Group{})
		}
		groups[g].Pairs = append(groups[g].Pairs, k)
	}
	for g := range groups {
		grp := &groups[g]
		keep := grp.Pairs[0]
		for _, k := range grp.Pairs {
			if !merged[p.Pairs[k].Keep.Text()] {
				keep = k
				break
			}
		}
		pk := p.Pairs[keep]
		grp.Keep = Node{Key: pk.Keep, ID: pk.KeepID, Name: pk.KeepName, Fingerprint: pk.KeepFingerprint}
		seen := map[string]bool{pk.Keep.Text(): true}
		for _, k := range grp.Pairs {
			pr := p.Pairs[k]
			for _, n := range []Node{
				{Key: pr.Merge, ID: pr.MergeID, Name: pr.MergeName, Fingerprint: pr.MergeFingerprint},
				{Key: pr.Keep, ID: pr.KeepID, Name: pr.KeepName, Fingerprint: pr.KeepFingerprint},
			} {
				if !seen[n.Key.Text()] {
					seen[n.Key.Text()] = true
					grp.Merge = append(grp.Merge, n)
				}
			}
		}
	}
	return groups
}
