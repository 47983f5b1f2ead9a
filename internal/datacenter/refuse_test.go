package datacenter

import (
	"encoding/json"
	"strings"
	"testing"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/utils/ptr"
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

func TestNativePort(t *testing.T) {
	dc := dcWith()
	if p := NativePort(dc); p != 9042 {
		t.Errorf("default port %d", p)
	}
	dc.Spec.Config = json.RawMessage(`{"cassandra-yaml":{"native_transport_port":9142}}`)
	if p := NativePort(dc); p != 9142 {
		t.Errorf("configured port %d", p)
	}
}
