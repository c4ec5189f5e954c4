// Delete clones (of run $run) whose relationships were all moved back
// (DELETE, not DETACH DELETE: a relationship left behind fails the
// transaction). One statement for the clones $ids of an original.
UNWIND $ids AS id
MATCH (m{{label .Label}}) WHERE {{id "m"}} = id AND m.fondue_split_run = $run
DELETE m
RETURN count(*) AS deleted
