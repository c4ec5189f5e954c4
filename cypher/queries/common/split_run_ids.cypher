// The run ids of the nodes that splits made (with the marker label).
MATCH (m{{label .Label}})
WHERE m.fondue_split_run IS NOT NULL
RETURN DISTINCT m.fondue_split_run AS run
