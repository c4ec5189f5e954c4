// Take a node's write lock for the rest of the transaction (a property set
// and removed: nothing changes), before its neighbours are read: a
// relationship of it created or deleted by another transaction is then
// either committed before the read, or waits for the split's commit.
MATCH (n) WHERE {{id "n"}} = $id
SET n.fondue_split_lock = true
REMOVE n.fondue_split_lock
