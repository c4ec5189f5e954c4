// Every clone made by run $run, with the internal id of its original and
// whether a later run split the clone itself.
MATCH (m{{label .Label}})
WHERE m.fondue_split_run = $run
RETURN {{id "m"}} AS id, m.fondue_split_from_id AS origin, m.fondue_split_group AS grp,
  coalesce(size(m.fondue_split_runs), 0) AS splits
ORDER BY grp
