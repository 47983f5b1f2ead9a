package mgmtapi

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/nodeproc"
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
	n := &ContainerNode{Java: "java", Lib: lib, Conf: conf, LogDir: "/var/log/cassandra", StorageDir: "/var/lib/cassandra", JMXPort: 7199}
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
		{"-Dcassandra.storagedir=/var/lib/cassandra"},
		{"-Xlog:gc=info:file=/var/log/cassandra/gc.log:time,uptime:filecount=3,filesize=10M"},
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

// labelled answers system.local as a node would, so that a ContainerNode's metrics can be
// read without its CQL: everything else is the container node's own.
type labelled struct{ *ContainerNode }

func (labelled) Query(context.Context, string, ...any) ([]map[string]any, error) {
	return []map[string]any{{"host_id": "6f1c5d2e-0000-4000-8000-000000000001", "broadcast_address": "10.244.1.7",
		"cluster_name": "demo", "data_center": "dc1", "rack": "default"}}, nil
}

// A container's metrics endpoint reads the JVM the container started, its gc log in LogDir
// and the data directories cassandra.yaml names (StorageDir/data when it names none), as the
// local node's does from localcassandra's layout. The "JVM" here is a shell that burns some
// CPU and then sleeps: its /proc/PID/stat is what the endpoint must serve.
func TestContainerNodeMetrics(t *testing.T) {
	conf, lib, logs, storage := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(lib, "jamm-0.4.0.jar"), "")
	java := filepath.Join(t.TempDir(), "java")
	write(java, "#!/bin/sh\ni=0\nwhile [ $i -lt 20000 ]; do i=$((i+1)); done\nexec sleep 300\n")
	write(filepath.Join(logs, "gc.log"), `[2026-11-27T19:00:00.010+0000][0.010s] Using G1
[2026-11-27T19:00:01.000+0000][1.000s] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(512M) 3.500ms
[2026-11-27T19:00:02.000+0000][2.000s] GC(1) Pause Young (Concurrent Start) (Metadata GC Threshold) 30M->6M(512M) 5.000ms
[2026-11-27T19:00:02.100+0000][2.100s] GC(1) Pause Remark 7M->7M(512M) 1.000ms
[2026-11-27T19:00:03.000+0000][3.000s] GC(2) Pause Full (System.gc()) 10M->5M(512M) 20.250ms
`)
	write(filepath.Join(storage, "data", "bench", "t-0a1b", "nb-1-big-Data.db"), "")
	write(filepath.Join(conf, "cassandra.yaml"), "listen_address: 10.244.1.7\n")

	n := &ContainerNode{Java: java, Lib: lib, Conf: conf, LogDir: logs, StorageDir: storage, JMXPort: 7199}
	srv := httptest.NewServer(NewMetrics(labelled{n}))
	defer srv.Close()
	if resp, err := http.Get(srv.URL + "/metrics"); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("before the JVM starts: %v, %v; want 503", resp, err)
	}
	if err := n.Start(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	defer n.Stop(10 * time.Second)
	pid := n.JVM().PID
	if pid == 0 || !n.Running() {
		t.Fatalf("the started JVM has pid %d, running %v", pid, n.Running())
	}
	proc := &nodeproc.Process{PID: pid}
	before, err := proc.CPU()
	if err != nil {
		t.Fatal(err)
	}
	got, labels := scrape(t, srv.URL+"/metrics")
	after, _ := proc.CPU()
	if cpu := got["process_cpu_seconds_total"]; cpu < before.Seconds() || cpu > after.Seconds() {
		t.Errorf("process_cpu_seconds_total %v, /proc/%d around the scrape %v..%v", cpu, pid, before.Seconds(), after.Seconds())
	}
	if want := `host="6f1c5d2e-0000-4000-8000-000000000001",instance="10.244.1.7",cluster="demo",datacenter="dc1",rack="default",`; labels != want { // simpleclient ends the labels with a comma
		t.Errorf("labels %q, want %q", labels, want)
	}
	// The remark is in neither of G1's beans; the full pause is the old generation's.
	for key, want := range map[string]float64{
		"jvm_gc_collection_seconds_count gc=G1 Young Generation":                        2,
		"jvm_gc_collection_seconds_sum gc=G1 Young Generation":                          0.0085,
		"jvm_gc_collection_seconds_count gc=G1 Old Generation":                          1,
		"jvm_gc_collection_seconds_sum gc=G1 Old Generation":                            0.02025,
		"org_apache_cassandra_metrics_table_live_ss_table_count keyspace=bench table=t": 1,
	} {
		if v, ok := got[key]; !ok || math.Abs(v-want) > 1e-9 {
			t.Errorf("%s = %v (served %v), want %v", key, v, ok, want)
		}
	}

	// Data directories cassandra.yaml names replace StorageDir/data; one table's SSTables on
	// two of them add up.
	d1, d2 := t.TempDir(), t.TempDir()
	write(filepath.Join(d1, "bench", "t-0a1b", "nb-1-big-Data.db"), "")
	write(filepath.Join(d2, "bench", "t-0a1b", "nb-2-big-Data.db"), "")
	write(filepath.Join(d2, "bench", "t-0a1b", "nb-2-big-Index.db"), "")
	write(filepath.Join(conf, "cassandra.yaml"), "listen_address: 10.244.1.7\ndata_file_directories:\n  - "+d1+"\n  - "+d2+"\n")
	got, _ = scrape(t, srv.URL+"/metrics")
	if v := got["org_apache_cassandra_metrics_table_live_ss_table_count keyspace=bench table=t"]; v != 2 {
		t.Errorf("bench.t on two data directories: %v SSTables, want 2", v)
	}

	n.Stop(10 * time.Second)
	if n.Running() || n.JVM().PID != 0 {
		t.Errorf("after Stop: running %v, pid %d", n.Running(), n.JVM().PID)
	}
	if resp, err := http.Get(srv.URL + "/metrics"); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after the JVM exited: %v, %v; want 503", resp, err)
	}
}
