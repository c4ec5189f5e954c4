// Neo4jTestServer runs one Neo4j Community DBMS in this JVM for the Go
// integration tests (package neo4jtest starts it; nothing else should).
//
//   java -cp CLASSES:LIB/* Neo4jTestServer HOME CONF
//
// HOME is the server's private directory, CONF a neo4j.conf-style file
// (Bolt on 127.0.0.1:0, auth on, usage reports off, bounded page cache). The
// password of user neo4j comes from the environment (NEO4JTEST_PASSWORD),
// never from the command line; it is set on the first start, while neo4j
// still has the initial password that must be changed. A start on an
// existing HOME (a restart) keeps its data and the password set then. Once
// the DBMS is up and the password is set it prints one line to stdout:
//
//   READY bolt=127.0.0.1:PORT version=5.26.19 java=17.0.15
//
// with the port the Bolt connector actually bound (so two servers never race
// for a port). If anything fails before, it prints the error to stderr,
// shuts the DBMS down and exits with status 1. It shuts down when stdin
// closes (the Go test process died or called Stop) or on SIGTERM.
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

    try {
      if (password != null && !password.isEmpty()) {
        setInitialPassword(dbms, password);
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
    } catch (Throwable e) {
      // Neo4j's threads would keep the JVM alive without a READY line. The
      // summary comes last, so that the tail of the output shows it.
      e.printStackTrace();
      Throwable cause = e;
      while (cause.getCause() != null) {
        cause = cause.getCause();
      }
      System.err.println("Neo4jTestServer: start-up failed: " + e
          + (cause != e ? " (caused by " + cause + ")" : ""));
      stop.run();
      System.exit(1);
    }

    while (System.in.read() != -1) {
      // The parent keeps stdin open while it wants the server.
    }
    stop.run();
    System.exit(0);
  }

  // setInitialPassword sets the password of user neo4j if it still has the
  // initial one, which must be changed: on the first start on HOME. On a
  // restart the password set then is kept (changing it to the same value
  // again is refused: "Old password and new password cannot be the same").
  private static void setInitialPassword(DatabaseManagementService dbms, String password) {
    var system = dbms.database("system");
    boolean initial = system.executeTransactionally(
        "SHOW USERS YIELD user, passwordChangeRequired WHERE user = 'neo4j' RETURN passwordChangeRequired",
        Map.of(), r -> r.hasNext() && Boolean.TRUE.equals(r.next().get("passwordChangeRequired")));
    if (initial) {
      system.executeTransactionally(
          "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
    }
  }
}
