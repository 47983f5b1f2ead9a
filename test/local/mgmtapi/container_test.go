package mgmtapi

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestContainerNodeJVMArgs(t *testing.T) {
	conf, lib := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(conf, "jvm-server.options", "# heap\n-Xms768M\n\n-Xmx768M\n")
	write(conf, "jvm17-server.options", "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED\n")
	write(lib, "jamm-0.4.0.jar", "")
	n := &ContainerNode{Java: "java", Lib: lib, Conf: conf, LogDir: "/var/log/cassandra", JMXPort: 7199}
	args, err := n.jvmArgs("10.0.0.9")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]string{
		{"-Xms768M", "-Xmx768M"},
		// A line is split into words, as bin/cassandra's shell splits it.
		{"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"},
		{"-javaagent:" + filepath.Join(lib, "jamm-0.4.0.jar")},
		{"-Dcassandra.config=file://" + filepath.Join(conf, "cassandra.yaml")},
		{"-Dcassandra.jmx.local.port=7199"},
		{"-Dcassandra.replace_address_first_boot=10.0.0.9"},
		{"-cp", conf + ":" + lib + "/*", "org.apache.cassandra.service.CassandraDaemon"},
	} {
		i := slices.Index(args, want[0])
		if i < 0 || i+len(want) > len(args) || !slices.Equal(args[i:i+len(want)], want) {
			t.Errorf("the JVM's arguments lack %q:\n%q", want, args)
		}
	}
	if slices.Contains(args, "# heap") || slices.Contains(args, "") {
		t.Errorf("comments or blank lines became arguments: %q", args)
	}
	if last := args[len(args)-1]; last != "org.apache.cassandra.service.CassandraDaemon" {
		t.Errorf("the last argument is %q, want the daemon class", last)
	}

	if err := os.Remove(filepath.Join(lib, "jamm-0.4.0.jar")); err != nil {
		t.Fatal(err)
	}
	if _, err := n.jvmArgs(""); err == nil {
		t.Error("no jamm jar: jvmArgs succeeded, want an error naming the missing agent")
	}
}
