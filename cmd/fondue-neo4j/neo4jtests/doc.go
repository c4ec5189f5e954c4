// Package neo4jtests holds the Neo4j integration tests of the fondue-neo4j
// command (sync, undo, and the README's Neo4j path end to end). It has no
// code of its own: the tests build the command once, run it as a child
// process, with its environment given explicitly, against real Neo4j
// servers (internal/testenv/neo4jtest: 5.26 LTS on Java 17 and a calendar release
// on Java 25, each behind a fault-injection proxy), and run the whole suite
// once per server version.
//
// They live apart from cmd/fondue-neo4j so that the tests of score,
// review and estimate there need no Java and no server.
package neo4jtests
