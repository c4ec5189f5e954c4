package config

import (
	"strings"
	"sync"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// OptionName names an option of the job library in the user's words, for
// syncjob's Error.Render: the key of the setting that feeds it (Feeds), or
// the environment variable of one that cannot be in a file; the names of
// all when several settings feed it, joined by "or". "" for an option that
// no setting feeds.
func OptionName(o syncjob.Option) string { return optionNames()[o] }

var optionNames = sync.OnceValue(func() map[syncjob.Option]string {
	names := map[syncjob.Option][]string{}
	for _, s := range settings {
		name := s.Key
		if s.NotInFile != "" {
			name = EnvName(s.Key)
		}
		for _, o := range s.Feeds {
			names[o] = append(names[o], name)
		}
	}
	out := make(map[syncjob.Option]string, len(names))
	for o, n := range names {
		out[o] = strings.Join(n, " or ")
	}
	return out
})
