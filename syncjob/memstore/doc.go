// Package memstore is an in-memory syncjob.Store: a property graph of
// nodes (labels and properties) and relationships (a type, a direction and
// properties), a lock, stored split plans, and splits and undos that leave
// the same provenance as the Neo4j store (syncjob.Prop...). It makes the
// sync job testable without a database: syncjob's tests run the pipeline
// and the conformance suite (package storetest) on it in milliseconds.
//
// It selects by labels and relationship types only (no Cypher projection:
// PullOptions.NodeQuery is refused with ErrInvalid). Node ids play the part
// of Neo4j's element ids. All methods are safe for concurrent use.
package memstore
