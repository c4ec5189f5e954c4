// Package connector is the Neo4j store of the sync job: *Conn implements
// syncjob.Store with neo4j-go-driver v5. It pulls the subgraph to score
// (Pull), writes batches of node properties (WriteBatch), keeps the runs'
// records, gives the graph's primitives in managed transactions (Read,
// Write: Nodes, Find, Rels, Create, Move, Set, Delete; syncjob's loops
// split and undo with them), and holds a lock whose fence every write
// transaction checks, so that two runs never write at once (Lock). Every statement comes from package
// cypher, rendered for the Cypher 5 of Neo4j 5.26 LTS and the calendar
// releases (Open checks the server's version with dbms.components()).
//
// Errors that a scheduled job must tell apart wrap one of syncjob's
// sentinels (ErrAuth, ErrUnreachable, ErrEmpty, ErrLocked, ErrInvalid; test
// with the syncjob.Is... helpers or errors.Is); their message is one line
// meant for the user. The package's tests run syncjob/storetest's
// conformance suite on live Neo4j 5.26 and 2026.01 servers.
package connector
