package splitplan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// Kinds of decision a person took in review (see Decision).
const (
	DecisionReject = "reject" // do not split this node
	DecisionEdit   = "edit"   // split with groups a person chose: leave the parts as they are
)

// Decision is a person's decision on a node that later runs remember:
// while the node's neighbourhood is the one decided on (Fingerprint), a
// sync does not propose to split it. A rejected node is the node as
// reviewed; a node split with edited groups gives one decision per part
// (the original with group 0, each clone with its group). Decisions are
// kept with the record of the run that applied them (StorePlan) until
// that run is undone or they are forgotten.
type Decision struct {
	Key         keys.Key `json:"key"`
	Kind        string   `json:"kind"`
	Fingerprint string   `json:"fingerprint"`
	// RunID is the run that applied the decision (filled when read back).
	RunID string `json:"runId,omitempty"`
}

// Fingerprint identifies a node's neighbourhood: the node's key and the
// set of its neighbours' keys (in any order), as "sha256:HEX". Keys are
// compared as text (keys.Key.Text): integers in decimal, strings as they
// are.
func Fingerprint(node string, neighbors []string) string {
	nb := slices.Clone(neighbors)
	slices.Sort(nb)
	h := sha256.New()
	h.Write([]byte("fondue-neo4j/neighbors/v1\n" + node + "\n"))
	for _, k := range nb {
		h.Write([]byte(k + "\n"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// groupFingerprint is the fingerprint of key with the neighbours of grp.
func groupFingerprint(key keys.Key, grp Group) string {
	texts := make([]string, len(grp.Neighbors))
	for k, nb := range grp.Neighbors {
		texts[k] = nb.Text()
	}
	return Fingerprint(key.Text(), texts)
}

// EditDecisions adds to Decisions, for every node a person split with
// edited groups (Node.Edited), a decision per part: the original keeps
// group 0, each clone its group (clones without a key are left out).
func (p *Plan) EditDecisions() {
	for _, n := range p.Nodes {
		if !n.Edited {
			continue
		}
		p.Decisions = append(p.Decisions, Decision{Key: n.Key, Kind: DecisionEdit, Fingerprint: groupFingerprint(n.Key, n.Groups[0])})
		for _, g := range n.Groups[1:] {
			if !g.CloneKey.IsZero() {
				p.Decisions = append(p.Decisions, Decision{Key: g.CloneKey, Kind: DecisionEdit, Fingerprint: groupFingerprint(g.CloneKey, g)})
			}
		}
	}
}

// MarshalDecisions encodes decisions as a JSON list (nil for none), as
// stores keep them.
func MarshalDecisions(ds []Decision) ([]byte, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	return json.Marshal(ds)
}

// UnmarshalDecisions decodes MarshalDecisions' list, setting each
// decision's RunID to runID.
func UnmarshalDecisions(data []byte, runID string) ([]Decision, error) {
	var ds []Decision
	if err := unmarshalNumbers(data, &ds); err != nil {
		return nil, err
	}
	for k := range ds {
		ds[k].RunID = runID
	}
	return ds, nil
}
