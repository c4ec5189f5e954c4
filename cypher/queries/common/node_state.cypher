// A node to split or restore: its labels, its key, and whether run $run
// already split it.
MATCH (n) WHERE {{id "n"}} = $id
RETURN labels(n) AS labels{{with .IDProperty}}, n.{{name .}} AS key{{end}},
  $run IN coalesce(n.fondue_split_runs, []) AS split
