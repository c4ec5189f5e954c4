// Delete a clone whose relationships were all moved back (DELETE, not
// DETACH DELETE: a relationship left behind fails the transaction).
MATCH (m{{label .Label}}) WHERE {{id "m"}} = $id AND m.fondue_split_run = $run
DELETE m
RETURN count(*) AS deleted
