// Every run's record without its plan: the run id, the review decisions
// it applied (a JSON list, or null), when its plan was made, and whether
// its loop is unfinished (records written before they said so: finished).
MATCH (r{{label .Label}})
RETURN r.run_id AS run, r.decisions AS decisions, r.created_at AS createdAt, coalesce(r.unfinished, false) AS unfinished
ORDER BY run
