package local

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRender(t *testing.T) {
	base := map[string]any{
		"concurrent_writes": float64(32),
		"memtable":          map[string]any{"configurations": map[string]any{"default": map[string]any{"inherits": "trie"}}},
	}
	cases := map[string]struct {
		config    string
		want      NodeSettings
		wantNotes []string
		wantErr   bool
	}{
		"no config":   {config: ``, want: NodeSettings{Yaml: map[string]string{}}},
		"null config": {config: `null`, want: NodeSettings{Yaml: map[string]string{}}},
		"settings and heap": {
			config: `{"cassandra-yaml":{"concurrent_writes":64,"compaction_throughput":"128MiB/s"},` +
				`"jvm-server-options":{"max_heap_size":"768M","initial_heap_size":"768M"}}`,
			want: NodeSettings{Yaml: map[string]string{"concurrent_writes": "64", "compaction_throughput": `"128MiB/s"`}, Heap: "768M"},
		},
		"an unknown key goes through, as the config builder passes it": {
			config: `{"cassandra-yaml":{"concurent_writes":64}}`,
			want:   NodeSettings{Yaml: map[string]string{"concurent_writes": "64"}},
		},
		"nested settings merge into the base": {
			config: `{"cassandra-yaml":{"memtable":{"configurations":{"skiplist":{"class_name":"SkipListMemtable"}}}}}`,
			want: NodeSettings{Yaml: map[string]string{
				"memtable": `{"configurations":{"default":{"inherits":"trie"},"skiplist":{"class_name":"SkipListMemtable"}}}`,
			}},
		},
		"null removes a key": {
			config: `{"cassandra-yaml":{"concurrent_writes":null}}`,
			want:   NodeSettings{Yaml: map[string]string{"concurrent_writes": ""}},
		},
		"what local nodes cannot take is a note": {
			config: `{"jvm17-server-options":{"garbage_collector":"ZGC"},"jvm-server-options":{"max_heap_size":"1G","initial_heap_size":"512M","additional-jvm-opts":["-Dx"]}}`,
			want:   NodeSettings{Yaml: map[string]string{}, Heap: "1G"},
			wantNotes: []string{
				"jvm-server-options.additional-jvm-opts is not applied to local nodes",
				"initial_heap_size 512M differs from max_heap_size; local nodes run with -Xms equal to -Xmx",
				"spec.config.jvm17-server-options is not applied to local nodes",
			},
		},
		"a heap the script cannot take": {config: `{"jvm-server-options":{"max_heap_size":"lots"}}`, wantErr: true},
		"not an object":                 {config: `{"cassandra-yaml":5}`, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, notes, err := render(json.RawMessage(tc.config), base)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNotes, notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeSettingsArgs(t *testing.T) {
	base := map[string]any{"concurrent_writes": float64(32)}
	cases := map[string]struct {
		want    NodeSettings
		applied *NodeSettings
		args    []string
	}{
		"fresh node, default heap": {
			want: NodeSettings{Yaml: map[string]string{"concurrent_writes": "64"}},
			args: []string{"--heap", "512M", "--set", "concurrent_writes=64"},
		},
		"settings no longer wanted go back to the base config or away": {
			want:    NodeSettings{Heap: "768M"},
			applied: &NodeSettings{Yaml: map[string]string{"concurrent_writes": "64", "concurent_writes": "64"}},
			args:    []string{"--heap", "768M", "--set", "concurent_writes=", "--set", "concurrent_writes=32"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.args, tc.want.args(tc.applied, base, "512M")); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}
