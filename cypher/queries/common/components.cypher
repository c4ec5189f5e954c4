// The server's name, version and edition: chooses the dialect.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions, edition
