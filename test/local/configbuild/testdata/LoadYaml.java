// Loads each cassandra.yaml named on the command line with Cassandra's own loader (the one a
// node starts with) and prints one line per file: "ok <settings>" or "error <message>".
// Run with Cassandra's jars on the class path: java -cp 'lib/*' LoadYaml.java FILE...
import java.io.File;

public class LoadYaml {
  public static void main(String[] args) {
    for (String path : args) {
      try {
        org.apache.cassandra.config.Config c =
            new org.apache.cassandra.config.YamlConfigurationLoader().loadConfig(new File(path).toURI().toURL());
        System.out.println("ok concurrent_writes=" + c.concurrent_writes + " num_tokens=" + c.num_tokens
            + " auto_snapshot=" + c.auto_snapshot + " cluster_name=" + c.cluster_name
            + " listen_address=" + c.listen_address + " rpc_address=" + c.rpc_address
            + " endpoint_snitch=" + c.endpoint_snitch + " seeds=" + c.seed_provider.parameters.get("seeds"));
      } catch (Throwable t) {
        Throwable root = t;
        while (root.getCause() != null) root = root.getCause();
        System.out.println("error " + root.getMessage().replace('\n', ' '));
      }
    }
  }
}
