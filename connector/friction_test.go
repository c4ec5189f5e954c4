package connector

import (
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// The hints that list the labels and types of the database list those that
// some node or relationship has: not those whose last one was deleted
// (db.labels() and db.relationshipTypes() still list them).
func TestTokenHintsListTokensInUse(t *testing.T) {
	reset(t)
	run(t, "CREATE (:GoneLabel)-[:GONE_TYPE]->(:GoneLabel)", nil)
	run(t, "MATCH (n:GoneLabel) DETACH DELETE n", nil)
	run(t, "CREATE (:Author {uid: 1})-[:WROTE]->(:Paper {uid: 2})", nil)
	c, _ := open(t)
	_, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{"Autor"}})
	if !syncjob.IsEmpty(err) || !strings.Contains(err.Error(), `"Author"`) || strings.Contains(err.Error(), "GoneLabel") {
		t.Errorf("a mistyped label: %v; want the labels in use, Author and not GoneLabel", err)
	}
	_, err = c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{"GoneLabel"}})
	if !syncjob.IsEmpty(err) || !strings.Contains(err.Error(), `"GoneLabel"`) {
		t.Errorf("a label without nodes: %v", err)
	}
	_, err = c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{RelationshipTypes: []string{"WROT"}})
	if !syncjob.IsEmpty(err) || !strings.Contains(err.Error(), `"WROTE"`) || strings.Contains(err.Error(), "GONE_TYPE") {
		t.Errorf("a mistyped type: %v; want the types in use, WROTE and not GONE_TYPE", err)
	}
}
