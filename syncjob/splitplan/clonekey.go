package splitplan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// Clone key schemes (split.clone_key). With a key property, each clone
// gets a key of its own, so that later runs pull, score and may split it
// like any node.
const (
	// DefaultCloneKey names a string-keyed clone after its original's key
	// and its group: the clones of "alice" are "alice#1", "alice#2", ...
	DefaultCloneKey = "{key}#{group}"
	// NoCloneKey leaves clones without a key (later runs leave them out).
	NoCloneKey = "none"
)

// CheckCloneKey checks a clone key scheme: NoCloneKey, or a text with
// {key} and {group} (and optionally {run}).
func CheckCloneKey(scheme string) error {
	if scheme == "" || scheme == NoCloneKey {
		return nil
	}
	if !strings.Contains(scheme, "{key}") || !strings.Contains(scheme, "{group}") {
		return fmt.Errorf("%q needs {key} and {group} (e.g. %q), or is %q for clones without a key",
			scheme, DefaultCloneKey, NoCloneKey)
	}
	return nil
}

// AssignCloneKeys sets Group.CloneKey for every group after the first of
// every planned node, and records the scheme (Plan.CloneKey). The keys
// are stored with the plan, so a resumed run makes exactly these.
//
// String keys follow scheme ({key}: the original's key, {group}: 1, 2,
// ...; {run}: the run id); a key already taken (taken, or earlier in the
// plan) gets "-2", "-3", ... appended until it is free. Integer keys
// (intKeys) ignore the scheme: clones take the integers after maxInt (the
// largest key in use), in plan order. Without a key property, or with
// NoCloneKey, clones get no key.
func (p *Plan) AssignCloneKeys(scheme string, intKeys bool, maxInt int64, taken func(keys.Key) bool) error {
	if scheme == "" {
		scheme = DefaultCloneKey
	}
	if err := CheckCloneKey(scheme); err != nil {
		return err
	}
	if p.IDProperty == "" || scheme == NoCloneKey {
		return nil
	}
	p.CloneKey = scheme
	if intKeys {
		p.CloneKey = "integer"
	}
	used := map[string]bool{}
	free := func(k keys.Key) bool { return !used[k.Text()] && (taken == nil || !taken(k)) }
	next := maxInt
	for i := range p.Nodes {
		n := &p.Nodes[i]
		for g := 1; g < len(n.Groups); g++ {
			var k keys.Key
			if intKeys {
				for {
					if next == 1<<63-1 {
						return fmt.Errorf("no integer left for the key of a clone of node %v", n.Key)
					}
					next++
					if k = keys.Int(next); free(k) {
						break
					}
				}
			} else {
				base := strings.NewReplacer("{key}", n.Key.Text(), "{group}", strconv.Itoa(g), "{run}", p.RunID).Replace(scheme)
				k = keys.String(base)
				for c := 2; !free(k); c++ {
					k = keys.String(fmt.Sprintf("%s-%d", base, c))
				}
			}
			used[k.Text()] = true
			n.Groups[g].CloneKey = k
		}
	}
	return nil
}

// CloneKeys lists the clone keys of the plan (Group.CloneKey), in order.
func (p *Plan) CloneKeys() []keys.Key {
	var out []keys.Key
	for _, n := range p.Nodes {
		for _, g := range n.Groups {
			if !g.CloneKey.IsZero() {
				out = append(out, g.CloneKey)
			}
		}
	}
	return out
}
