package neo4jtest

import (
	"fmt"
	"os"
	"strings"
)

// Version pins one Neo4j server the tests run against, with the Graph Data
// Science and APOC core releases loaded into it and the Java it runs on.
type Version struct {
	Neo4j string // org.neo4j:neo4j
	GDS   string // org.neo4j.gds:proc and friends
	APOC  string // org.neo4j.procedure:apoc-core
	Java  int    // major version of the JDK that runs it
}

func (v Version) String() string {
	return fmt.Sprintf("Neo4j %s (GDS %s, APOC %s, Java %d)", v.Neo4j, v.GDS, v.APOC, v.Java)
}

// The servers the integration tests run against: the 5.26 LTS line on Java
// 17 and a calendar release on Java 25. Each resolves on Maven Central.
//
// GDS: 2.13 is the line for Neo4j 5.26, 2.26 the one for 2026.01. APOC core
// is published to Maven Central only up to the 5.26 line (calendar releases
// ship it as a download), so the calendar server loads APOC core 5.26 too;
// the tests use only procedures whose behaviour did not change.
var (
	LTS      = Version{Neo4j: "5.26.19", GDS: "2.13.9", APOC: "5.26.19", Java: 17}
	Calendar = Version{Neo4j: "2026.01.4", GDS: "2.26.0", APOC: "5.26.19", Java: 25}
)

// Versions lists every server version, oldest first.
var Versions = []Version{LTS, Calendar}

// SelectedVersions returns the versions named by $TESTENV_NEO4J_VERSIONS
// (a comma-separated list of versions or prefixes), or every version.
func SelectedVersions() ([]Version, error) {
	spec := strings.TrimSpace(os.Getenv(EnvVersions))
	if spec == "" || spec == "all" {
		return Versions, nil
	}
	var out []Version
	for _, want := range strings.Split(spec, ",") {
		want = strings.TrimSpace(want)
		found := false
		for _, v := range Versions {
			if strings.HasPrefix(v.Neo4j, want) {
				out = append(out, v)
				found = true
			}
		}
		if !found {
			var known []string
			for _, v := range Versions {
				known = append(known, v.Neo4j)
			}
			return nil, fmt.Errorf("neo4jtest: %s=%q: no test server version starts with %q (known: %s)", EnvVersions, spec, want, strings.Join(known, ", "))
		}
	}
	return out, nil
}
