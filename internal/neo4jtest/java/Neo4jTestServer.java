// Neo4jTestServer runs one Neo4j Community DBMS in this JVM for the Go
// integration tests (package neo4jtest starts it; nothing else should).
//
//   java -cp CLASSES:LIB/* Neo4jTestServer HOME CONF
//
// HOME is the server's private directory, CONF a neo4j.conf-style file
// (Bolt on 127.0.0.1:0, auth on, usage reports off, bounded page cache). The
// password of user neo4j comes from the environment (NEO4JTEST_PASSWORD),
// never from the command line. Once the DBMS is up and the password is set it
// prints one line to stdout:
//
//   READY bolt=127.0.0.1:PORT version=5.26.19 java=17.0.15
//
// with the port the Bolt connector actually bound (so two servers never race
// for a port). It shuts down when stdin closes (the Go test process died or
// called Stop) or on SIGTERM.
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

public final class Neo4jTestServer {
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: Neo4jTestServer HOME CONF");
      System.exit(2);
    }
    Path home = Path.of(args[0]);
    Path conf = Path.of(args[1]);
    String password = System.getenv("NEO4JTEST_PASSWORD");

    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(home).loadPropertiesFromFile(conf).build();
    AtomicBoolean down = new AtomicBoolean();
    Runnable stop = () -> {
      if (down.compareAndSet(false, true)) {
        dbms.shutdown();
      }
    };
    Runtime.getRuntime().addShutdownHook(new Thread(stop));

    if (password != null && !password.isEmpty()) {
      dbms.database("system").executeTransactionally(
          "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
    }
    GraphDatabaseAPI db = (GraphDatabaseAPI) dbms.database("neo4j");
    var bolt = db.getDependencyResolver()
        .resolveDependency(ConnectorPortRegister.class)
        .getLocalAddress(ConnectorType.BOLT);
    String version = db.executeTransactionally(
        "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v",
        Map.of(), r -> (String) r.next().get("v"));
    System.out.println("READY bolt=" + bolt.getHost() + ":" + bolt.getPort()
        + " version=" + version + " java=" + Runtime.version());
    System.out.flush();

    while (System.in.read() != -1) {
      // The parent keeps stdin open while it wants the server.
    }
    stop.run();
    System.exit(0);
  }
}
