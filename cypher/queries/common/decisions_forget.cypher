// Forget the review decisions of run $run (null: of every run); the runs'
// records stay. Returns each list forgotten, for the count.
MATCH (r{{label .Label}})
WHERE r.decisions IS NOT NULL AND ($run IS NULL OR r.run_id = $run)
WITH r, r.decisions AS decisions
REMOVE r.decisions
RETURN decisions
