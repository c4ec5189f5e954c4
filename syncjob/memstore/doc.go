// Package memstore is an in-memory syncjob.Store: a property graph of
// nodes (labels and properties) and relationships (a type, a direction and
// properties), a lock and the runs' records, with the primitives of
// syncjob.Graph: a transaction is the store to itself, rolled back when
// it fails. syncjob's loops (split, undo, write) run on it as on Neo4j. It makes the
// sync job testable without a database: syncjob's tests run the pipeline
// and the conformance suite (package storetest) on it in milliseconds.
//
// It selects by labels and relationship types only (no Cypher projection:
// PullOptions.NodeQuery is refused with ErrInvalid). Node ids play the part
// of Neo4j's element ids. All methods are safe for concurrent use.
package memstore
