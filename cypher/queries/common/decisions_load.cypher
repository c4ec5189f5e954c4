// The review decisions that runs applied (a JSON list on each run's
// record), for later runs to remember.
MATCH (r{{label .Label}})
WHERE r.decisions IS NOT NULL
RETURN r.run_id AS run, r.decisions AS decisions
ORDER BY run
