// Every node label in use: a configured label that is not here is a typo.
CALL db.labels() YIELD label
RETURN label
