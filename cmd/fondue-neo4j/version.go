package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit can be set at link time:
//
//	go build -ldflags "-X main.version=v1.2.0 -X main.commit=$(git rev-parse HEAD)" ./cmd/fondue-neo4j
//
// Otherwise they come from the build information Go records: the module
// version for "go install ...@version", the VCS revision for a build in a
// Git work tree.
var (
	version string
	commit  string
)

func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(version, commit, bi, runtime.Version())
}

// formatVersion writes "fondue-neo4j VERSION (commit C[, modified], TIME; GO)".
func formatVersion(ver, rev string, bi *debug.BuildInfo, goVersion string) string {
	var modified, at string
	if bi != nil && rev == "" { // the VCS stamp, unless the commit was given at link time
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			case "vcs.time":
				at = s.Value
			}
		}
	}
	if bi != nil {
		if ver == "" && bi.Main.Version != "" {
			ver = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
	}
	if ver == "" {
		ver = "(devel)"
	}
	var sb strings.Builder
	sb.WriteString("fondue-neo4j " + ver + " (")
	if rev == "" {
		sb.WriteString("commit unknown")
	} else {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		sb.WriteString("commit " + rev + modified)
	}
	if at != "" {
		sb.WriteString(", " + at)
	}
	sb.WriteString("; " + goVersion + ")")
	return sb.String()
}
