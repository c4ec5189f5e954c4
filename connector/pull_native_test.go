package connector

import (
	"fmt"
	"testing"
)

// The element-id index finds every node read, by a table when the ids are
// a shared prefix and a canonical number not much larger than the count,
// else by a map; and nothing else: another prefix, a number written
// otherwise ("007", "+7"), a number beyond the table, a gap in it.
func TestIDIndex(t *testing.T) {
	for _, c := range []struct {
		name  string
		ids   []any
		table bool
	}{
		{"dense", []any{"4:db:5", "4:db:0", "4:db:12", "4:db:3"}, true},
		{"other prefix", []any{"4:db:5", "4:xx:0"}, false},
		{"not a number", []any{"4:db:5", "4:db:a"}, false},
		{"leading zero", []any{"4:db:5", "4:db:07"}, false},
		{"too sparse", []any{"4:db:5", fmt.Sprintf("4:db:%d", 1<<40)}, false},
		{"no colon", []any{"abc", "abd"}, false},
	} {
		x := newIDIndex(c.ids)
		if (x.table != nil) != c.table {
			t.Errorf("%s: table %v, want %v", c.name, x.table != nil, c.table)
		}
		for k, id := range c.ids {
			if i, ok := x.lookup(id.(string)); !ok || int(i) != k {
				t.Errorf("%s: lookup(%q) = %d %v, want %d", c.name, id, i, ok, k)
			}
		}
		for _, miss := range []string{"4:db:1", "4:db:4", "4:db:13", "4:db:99999999", "4:db:007", "4:db:+5", "4:db:", "5:db:5", "4:db:5x", ""} {
			if i, ok := x.lookup(miss); ok {
				t.Errorf("%s: lookup(%q) = %d, want none", c.name, miss, i)
			}
		}
	}
}
