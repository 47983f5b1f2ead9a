package datacenter

import (
	"strings"
	"testing"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/utils/ptr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func TestUnsuitable(t *testing.T) {
	run := func(size int32, rf int32, config *cbv1.DatacenterConfig) *cbv1.BenchmarkRun {
		r := &cbv1.BenchmarkRun{}
		r.Spec.Datacenter = &cbv1.DatacenterTuning{Size: ptr.To(size), Config: config}
		r.Spec.Schema.Replication.Factor = rf
		return r
	}
	yaml := &cbv1.DatacenterConfig{CassandraYaml: raw(`{"concurrent_writes":64}`)}
	cases := map[string]struct {
		run  *cbv1.BenchmarkRun
		dc   *cassdcapi.CassandraDatacenter
		want string // part of the message; empty when suitable
	}{
		"suitable": {run: run(3, 3, yaml), dc: dcWith()},
		"stopped":  {run: run(3, 1, nil), dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.Stopped = true }), want: "is stopped"},
		"config secret with config tuning": {run: run(3, 1, yaml),
			dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.ConfigSecret = "cfg" }), want: "spec.configSecret"},
		"config secret with a size only": {run: run(3, 1, nil), dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) { dc.Spec.ConfigSecret = "cfg" })},
		"fewer nodes than racks": {run: run(2, 1, nil), dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) {
			dc.Spec.Racks = []cassdcapi.Rack{{Name: "r1"}, {Name: "r2"}, {Name: "r3"}}
		}), want: "3 racks"},
		"replication above the size": {run: run(2, 3, nil), dc: dcWith(), want: "replication.factor 3"},
		"JVM options on 3.11": {run: run(3, 1, &cbv1.DatacenterConfig{Jvm11ServerOptions: raw(`{"garbage_collector":"G1GC"}`)}),
			dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) {
				dc.Spec.ServerType, dc.Spec.ServerVersion = "cassandra", "3.11.17"
			}), want: "jvm11-server-options"},
		"Java 17 options on 4.1": {run: run(3, 1, &cbv1.DatacenterConfig{Jvm17ServerOptions: raw(`{"garbage_collector":"ZGC"}`)}),
			dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) {
				dc.Spec.ServerType, dc.Spec.ServerVersion = "cassandra", "4.1.5"
			}), want: "jvm17-server-options"},
		"Java 11 options on 4.1": {run: run(3, 1, &cbv1.DatacenterConfig{Jvm11ServerOptions: raw(`{"garbage_collector":"G1GC"}`)}),
			dc: dcWith(func(dc *cassdcapi.CassandraDatacenter) {
				dc.Spec.ServerType, dc.Spec.ServerVersion = "cassandra", "4.1.5"
			})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reason, msg := Unsuitable(tc.run, tc.dc)
			if tc.want == "" {
				if reason != "" {
					t.Errorf("refused: %s", msg)
				}
				return
			}
			if reason != cbv1.ReasonDatacenterUnsuitable || !strings.Contains(msg, tc.want) {
				t.Errorf("Unsuitable = %q, %q; want a message containing %q", reason, msg, tc.want)
			}
		})
	}
}

func TestCrossNamespaceDenied(t *testing.T) {
	run := func(ns string, config *cbv1.DatacenterConfig) *cbv1.BenchmarkRun {
		r := &cbv1.BenchmarkRun{}
		r.Namespace = ns
		r.Spec.Datacenter = &cbv1.DatacenterTuning{Config: config}
		return r
	}
	dc := dcWith() // namespace db
	cases := map[string]struct {
		run  *cbv1.BenchmarkRun
		want string // a denied key named in the message; empty when allowed
	}{
		"tuning from another namespace": {run: run("bench", &cbv1.DatacenterConfig{
			CassandraYaml:      raw(`{"concurrent_writes":64,"memtable_heap_space":"2048MiB"}`),
			JvmServerOptions:   raw(`{"max_heap_size":"8G","initial_heap_size":"8G"}`),
			Jvm17ServerOptions: raw(`{"garbage_collector":"ZGC"}`)})},
		"free-form JVM flags": {run: run("bench", &cbv1.DatacenterConfig{JvmServerOptions: raw(`{"additional-jvm-opts":["-javaagent:/tmp/x.jar"]}`)}),
			want: "jvm-server-options.additional-jvm-opts"},
		"JMX through cassandra-env-sh": {run: run("bench", &cbv1.DatacenterConfig{CassandraEnvSh: raw(`{"jmx-remote-ssl":false}`)}),
			want: "cassandra-env-sh.jmx-remote-ssl"},
		"a class to load": {run: run("bench", &cbv1.DatacenterConfig{CassandraYaml: raw(`{"authenticator":"AllowAllAuthenticator"}`)}),
			want: "cassandra-yaml.authenticator"},
		"a command to run": {run: run("bench", &cbv1.DatacenterConfig{CassandraYaml: raw(`{"full_query_logging_options":{"archive_command":"sh -c x"}}`)}),
			want: "cassandra-yaml.full_query_logging_options"},
		"any _class_name": {run: run("bench", &cbv1.DatacenterConfig{CassandraYaml: raw(`{"commitlog_compression_class_name":"x"}`)}),
			want: "commitlog_compression_class_name"},
		"the datacenter's own namespace may": {run: run("db", &cbv1.DatacenterConfig{JvmServerOptions: raw(`{"additional-jvm-opts":["-Dx=y"]}`)})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			msg := CrossNamespaceDenied(tc.run, dc)
			if tc.want == "" && msg != "" {
				t.Errorf("refused: %s", msg)
			}
			if tc.want != "" && !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not name %s", msg, tc.want)
			}
		})
	}
}
