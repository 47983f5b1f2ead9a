package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

func rawJSON(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }

func TestParseJVM(t *testing.T) {
	tests := map[string]struct {
		cfg  *cbv1.DatacenterConfig
		want JVMWant
		err  string
	}{
		"nothing": {},
		"heap and collector": {
			cfg: &cbv1.DatacenterConfig{
				JvmServerOptions:   rawJSON(`{"max_heap_size":"8G","initial_heap_size":"800m"}`),
				Jvm17ServerOptions: rawJSON(`{"garbage_collector":"ZGC"}`),
			},
			want: JVMWant{MaxHeap: 8 << 30, MaxHeapKey: "jvm-server-options.max_heap_size",
				InitialHeap: 800 << 20, InitialHeapKey: "jvm-server-options.initial_heap_size",
				GC: "UseZGC", GCKey: "jvm17-server-options.garbage_collector"},
		},
		"additional options override": {
			cfg: &cbv1.DatacenterConfig{
				JvmServerOptions:   rawJSON(`{"max_heap_size":"8G"}`),
				Jvm11ServerOptions: rawJSON(`{"additional-jvm-opts":["-Xmx4G","-XX:+UseShenandoahGC"]}`),
			},
			want: JVMWant{MaxHeap: 4 << 30, MaxHeapKey: "jvm11-server-options.additional-jvm-opts",
				GC: "UseShenandoahGC", GCKey: "jvm11-server-options.additional-jvm-opts"},
		},
		"bad size":      {cfg: &cbv1.DatacenterConfig{JvmServerOptions: rawJSON(`{"max_heap_size":"lots"}`)}, err: `spec.datacenter.config.jvm-server-options.max_heap_size: "lots" is not a heap size`},
		"unknown gc":    {cfg: &cbv1.DatacenterConfig{Jvm17ServerOptions: rawJSON(`{"garbage_collector":"Epsilon"}`)}, err: `garbage_collector "Epsilon" is not one cassbench can verify`},
		"other options": {cfg: &cbv1.DatacenterConfig{JvmServerOptions: rawJSON(`{"per_thread_stack_size":"256k"}`)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseJVM(tc.cfg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseJVM (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseJVMArguments(t *testing.T) {
	line := "JVM Arguments: [-Xms512M, -Xmx512M, -XX:+UseG1GC, -Dcassandra.config=file:///x.yaml]"
	got, ok := ParseJVMArguments(line)
	if !ok {
		t.Fatal("not recognised")
	}
	if diff := cmp.Diff([]string{"-Xms512M", "-Xmx512M", "-XX:+UseG1GC", "-Dcassandra.config=file:///x.yaml"}, got); diff != "" {
		t.Error(diff)
	}
	if _, ok := ParseJVMArguments("Heap size: 1/2"); ok {
		t.Error("other line recognised")
	}
}

func TestCheckJVM(t *testing.T) {
	heap512 := map[string]string{"memtable_heap_space": "128MiB", "memtable_offheap_space": "128MiB"}
	args := []string{"-Xms512M", "-Xmx512M", "-XX:+UseG1GC"}
	g1 := JVMWant{GC: "UseG1GC", GCKey: "jvm17-server-options.garbage_collector"}
	max := func(size string) JVMWant {
		n, err := ParseJavaSize(size)
		if err != nil {
			t.Fatal(err)
		}
		return JVMWant{MaxHeap: n, MaxHeapKey: "jvm-server-options.max_heap_size"}
	}
	tests := map[string]struct {
		want     JVMWant
		seen     JVMSeen
		pinned   map[string]bool
		verified []string
		unread   []Unread
		err      string
	}{
		"derived heap matches": {want: max("512M"), seen: JVMSeen{Settings: heap512}, verified: []string{"jvm-server-options.max_heap_size"}},
		"derived heap differs": {want: max("1G"), seen: JVMSeen{Settings: heap512},
			err: "node 10.0.0.1: jvm-server-options.max_heap_size is 512M (4 × memtable_heap_space and memtable_offheap_space in system_views.settings), wanted 1G"},
		"one deriver pinned by the spec": {want: max("1G"), seen: JVMSeen{Settings: map[string]string{"memtable_heap_space": "64MiB", "memtable_offheap_space": "256MiB"}},
			pinned: map[string]bool{"memtable_heap_space": true}, verified: []string{"jvm-server-options.max_heap_size"}},
		"pinned elsewhere, derivers disagree": {want: max("1G"), seen: JVMSeen{Settings: map[string]string{"memtable_heap_space": "64MiB", "memtable_offheap_space": "2048MiB"}},
			unread: []Unread{{"jvm-server-options.max_heap_size", "memtable_heap_space and memtable_offheap_space are set explicitly, so the heap cannot be derived from them"}}},
		"floored to MiB":       {want: max("1001M"), seen: JVMSeen{Settings: map[string]string{"memtable_heap_space": "250MiB"}}, verified: []string{"jvm-server-options.max_heap_size"}},
		"gc without arguments": {want: g1, seen: JVMSeen{Settings: heap512}, unread: []Unread{{g1.GCKey, notLogged}}},
		"arguments match":      {want: JVMWant{MaxHeap: 512 << 20, MaxHeapKey: "m", InitialHeap: 512 << 20, InitialHeapKey: "i", GC: "UseG1GC", GCKey: "g"}, seen: JVMSeen{Args: args}, verified: []string{"m", "i", "g"}},
		"arguments differ":     {want: JVMWant{MaxHeap: 8 << 30, MaxHeapKey: "m"}, seen: JVMSeen{Args: args}, err: "node 10.0.0.1: m is 512M (JVM arguments), wanted 8G"},
		"gc differs":           {want: JVMWant{GC: "UseZGC", GCKey: "g"}, seen: JVMSeen{Args: args}, err: "node 10.0.0.1: g is -XX:+UseG1GC (JVM arguments), wanted -XX:+UseZGC"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			verified, unread, err := CheckJVM("10.0.0.1", tc.want, tc.seen, tc.pinned)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Fatalf("err = %q, want %q", got, tc.err)
			}
			if tc.err != "" {
				return
			}
			if diff := cmp.Diff(tc.verified, verified); diff != "" {
				t.Errorf("verified (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.unread, unread); diff != "" {
				t.Errorf("unread (-want +got):\n%s", diff)
			}
		})
	}
}
