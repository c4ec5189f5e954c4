// The run ids that have a record (a stored split plan).
MATCH (r{{label .Label}})
RETURN r.run_id AS run
