// Forget a run's split plan (after its undo).
MATCH (r{{label .Label}} {run_id: $run})
DELETE r
RETURN count(*) AS deleted
