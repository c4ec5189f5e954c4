package scale

import (
	"encoding/json"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// TestUndoneOf reads the restored count from undo's summary as undo
// marshals it (cmd/fondue-neo4j undoSummary embeds syncjob.UndoStats).
func TestUndoneOf(t *testing.T) {
	b, err := json.Marshal(struct {
		RunID string `json:"runId"`
		syncjob.UndoStats
		UndoMillis int64 `json:"undoMillis"`
	}{RunID: "r1", UndoStats: syncjob.UndoStats{Originals: 7, Restored: 5, ClonesDeleted: 12, RelationshipsMoved: 40}, UndoMillis: 3})
	if err != nil {
		t.Fatal(err)
	}
	n, err := undoneOf(b)
	if err != nil || n != 5 {
		t.Fatalf("undoneOf(%s) = %d, %v; want 5", b, n, err)
	}
	if _, err := undoneOf([]byte(`{"runId":"r1","undone":5}`)); err == nil {
		t.Fatal(`undoneOf: no error on a summary without "restored"`)
	}
}
