// Package neo4jtest runs real Neo4j servers for tests: it installs Neo4j
// 5.26 (on Java 17) and a calendar release (on Java 25) with Maven from
// Maven Central into a cache once per machine, starts them on loopback
// behind a fault-injecting proxy, and runs a test package's suite on each
// (Main). README.md here says how.
package neo4jtest
