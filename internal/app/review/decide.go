package review

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// DecisionUndecided is the state of a node with no decision yet (it is
// in ApprovedPlan.Undecided).
const DecisionUndecided = "undecided"

// NewApproved is the approved plan of a dry run's plan (read from input)
// before any decision: every node undecided, as the review page starts.
func NewApproved(dr *DryRun, input string) *ApprovedPlan {
	doc, _ := FromDryRun(dr, nil, nil, len(dr.Plan.Nodes))
	ap := &ApprovedPlan{Format: PlanFormat, Version: PlanVersion, Source: SourceNeo4j, Input: input, PlanSettings: doc.Plan,
		Nodes: []ApprovedNode{}, Rejected: []DecidedNode{}, Undecided: []keys.Key{}}
	for _, n := range doc.Nodes {
		ap.Undecided = append(ap.Undecided, n.Key)
	}
	return ap
}

// Decide records decisions (DecisionAccept or DecisionReject, by node
// key as text) on the nodes of the dry run dr, as the review page's
// export writes them: an accepted node is split as proposed (an edit
// made on the page is replaced), a rejected one is remembered with its
// neighbourhood. The other nodes keep their decisions. ap must be an
// approved plan of dr (its run id); reviewedAt becomes now.
func (ap *ApprovedPlan) Decide(dr *DryRun, decisions map[string]string, now time.Time) error {
	if ap.Source != SourceNeo4j || ap.RunID != dr.Plan.RunID {
		return fmt.Errorf("approved plan: reviewed from %s, not from the dry run of run %s", ap.origin(), dr.Plan.RunID)
	}
	doc, _ := FromDryRun(dr, nil, nil, len(dr.Plan.Nodes))
	in := map[string]int{}
	for k, n := range doc.Nodes {
		in[n.Key.Text()] = k
	}
	var missing []string
	for key, d := range decisions {
		if d != DecisionAccept && d != DecisionReject {
			return fmt.Errorf("decision %q, want %s or %s", d, DecisionAccept, DecisionReject)
		}
		if _, ok := in[key]; !ok {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("node %s is not in the plan (its nodes: %s)", strings.Join(missing, ", "), planKeys(doc.Nodes))
	}
	accepted, rejected := map[string]ApprovedNode{}, map[string]DecidedNode{}
	for _, n := range ap.Nodes {
		accepted[n.Key.Text()] = n
	}
	for _, n := range ap.Rejected {
		rejected[n.Key.Text()] = n
	}
	out := ApprovedPlan{Nodes: []ApprovedNode{}, Rejected: []DecidedNode{}, Undecided: []keys.Key{}}
	for _, n := range doc.Nodes {
		key := n.Key.Text()
		switch d := decisions[key]; {
		case d == DecisionAccept:
			out.Nodes = append(out.Nodes, approvedNode(n))
		case d == DecisionReject:
			out.Rejected = append(out.Rejected, DecidedNode{Key: n.Key, ID: n.ID, Name: nodeName(n), Fingerprint: n.fingerprint()})
		case accepted[key].Decision != "":
			out.Nodes = append(out.Nodes, accepted[key])
		case rejected[key].Fingerprint != "":
			out.Rejected = append(out.Rejected, rejected[key])
		default:
			out.Undecided = append(out.Undecided, n.Key)
		}
	}
	ap.Nodes, ap.Rejected, ap.Undecided = out.Nodes, out.Rejected, out.Undecided
	ap.ReviewedAt = splitplan.ISOTime(now)
	return ap.Validate()
}

// DecisionOf returns the decision on a node (key as text): accept, edit,
// reject or undecided.
func (ap *ApprovedPlan) DecisionOf(key string) string {
	for _, n := range ap.Nodes {
		if n.Key.Text() == key {
			return n.Decision
		}
	}
	for _, n := range ap.Rejected {
		if n.Key.Text() == key {
			return DecisionReject
		}
	}
	return DecisionUndecided
}

// Marshal is the approved plan's file: indented JSON, a final newline.
func (ap *ApprovedPlan) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(ap, "", "  ")
	return append(b, '\n'), err
}

func (ap *ApprovedPlan) origin() string {
	if ap.Source == SourceNeo4j {
		return "the dry run of run " + ap.RunID
	}
	return "an edge list (" + ap.Input + ")"
}

// approvedNode is an accepted node as the page exports it: its groups as
// proposed, with their names (else keys) and reasons.
func approvedNode(n Node) ApprovedNode {
	an := ApprovedNode{Key: n.Key, ID: n.ID, Name: nodeName(n), Decision: DecisionAccept, Ambiguity: n.Ambiguity, Score: n.Score,
		Entities: n.Entities, Degree: len(n.Neighbors), Fingerprint: n.fingerprint()}
	for g, members := range n.Groups {
		var grp ApprovedGroup
		for _, j := range members {
			nb := n.Neighbors[j]
			grp.Neighbors = append(grp.Neighbors, nb.Key)
			if !n.ID.IsZero() {
				grp.NeighborIDs = append(grp.NeighborIDs, nb.ID)
			}
			name := nb.Name
			if name == "" {
				name = nb.Key.Text()
			}
			grp.Names = append(grp.Names, name)
		}
		if g < len(n.Reasons) {
			for _, r := range n.Reasons[g] {
				r.Weight = round3(r.Weight)
				grp.Reasons = append(grp.Reasons, r)
			}
		}
		an.Groups = append(an.Groups, grp)
	}
	return an
}

func nodeName(n Node) string {
	if n.Name == "" {
		return n.Key.Text()
	}
	return n.Name
}

// fingerprint is the node's neighbourhood as the page pins it.
func (n *Node) fingerprint() string {
	texts := make([]string, len(n.Neighbors))
	for k, nb := range n.Neighbors {
		texts[k] = nb.Key.Text()
	}
	return Fingerprint(n.Key.Text(), texts)
}

// planKeys lists the first keys of nodes, for a message.
func planKeys(nodes []Node) string {
	var ks []string
	for k, n := range nodes {
		if k == 10 {
			ks = append(ks, fmt.Sprintf("... %d in all", len(nodes)))
			break
		}
		ks = append(ks, n.Key.Text())
	}
	return strings.Join(ks, ", ")
}
