// A trivial query: checks that the configured database exists.
RETURN 1 AS ok
