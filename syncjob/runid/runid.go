// Package runid makes and checks the ids that name sync runs: the value
// of the run property on scored nodes, the key of a run's record and of
// its stored plan, and what undo takes.
package runid

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"time"
)

var re = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:+-]{0,127}$`)

// Valid reports whether id is a run id: up to 128 letters, digits and
// . _ : + -, starting with a letter or digit.
func Valid(id string) bool { return re.MatchString(id) }

// New returns a new run id: the UTC time and a random suffix.
func New() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
