// Every run's record without its plan: the run id and the review
// decisions it applied (a JSON list, or null).
MATCH (r{{label .Label}})
RETURN r.run_id AS run, r.decisions AS decisions
ORDER BY run
