package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// node is a slice of what Cassandra 5.0 shows in system_views.settings, old names included.
var nodeSettings = map[string]string{
	"concurrent_writes":                   "32",
	"concurrent_reads":                    "32",
	"compaction_throughput":               "64MiB/s",
	"compaction_throughput_mb_per_sec":    "64",
	"commitlog_sync_period":               "10000ms",
	"memtable_heap_space":                 "128MiB",
	"authenticator":                       "org.apache.cassandra.auth.PasswordAuthenticator",
	"authenticator.class_name":            "org.apache.cassandra.auth.PasswordAuthenticator",
	"materialized_views_enabled":          "false",
	"commitlog_sync":                      "periodic",
	"disk_optimization_page_cross_chance": "0.1",
	"column_index_size":                   "",
	"seed_provider.parameters":            "{seeds=127.0.0.1:7000}",
}

// newOnly is a node that lists only 4.1-style names.
var newOnly = map[string]string{
	"compaction_throughput":          "48MiB/s",
	"read_request_timeout":           "5000ms",
	"user_defined_functions_enabled": "true",
}

// oldOnly is a node that lists only pre-4.1 names.
var oldOnly = map[string]string{
	"compaction_throughput_mb_per_sec": "16",
	"key_cache_size_in_mb":             "100",
}

func TestLookup(t *testing.T) {
	type result struct {
		Found, Value string
		OK           bool
	}
	tests := map[string]struct {
		name   string
		values map[string]string
		want   result
	}{
		"exact":                 {name: "concurrent_writes", values: nodeSettings, want: result{"concurrent_writes", "32", true}},
		"old name, both listed": {name: "compaction_throughput_mb_per_sec", values: nodeSettings, want: result{"compaction_throughput_mb_per_sec", "64", true}},
		"old name, new listed":  {name: "compaction_throughput_mb_per_sec", values: newOnly, want: result{"compaction_throughput", "48MiB/s", true}},
		"old ms name":           {name: "read_request_timeout_in_ms", values: newOnly, want: result{"read_request_timeout", "5000ms", true}},
		"new name, old listed":  {name: "compaction_throughput", values: oldOnly, want: result{"compaction_throughput_mb_per_sec", "16", true}},
		"new size, old listed":  {name: "key_cache_size", values: oldOnly, want: result{"key_cache_size_in_mb", "100", true}},
		"enable_ renamed":       {name: "enable_user_defined_functions", values: newOnly, want: result{"user_defined_functions_enabled", "true", true}},
		"nested":                {name: "authenticator.class_name", values: nodeSettings, want: result{"authenticator.class_name", "org.apache.cassandra.auth.PasswordAuthenticator", true}},
		"typo":                  {name: "concurent_writes", values: nodeSettings},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f, v, ok := Lookup(tc.name, tc.values)
			if diff := cmp.Diff(tc.want, result{f, v, ok}); diff != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

func TestSameValue(t *testing.T) {
	tests := map[string]struct {
		name, want, foundName, found string
		same                         bool
	}{
		"equal":                        {name: "concurrent_writes", want: "64", foundName: "concurrent_writes", found: "64", same: true},
		"different":                    {name: "concurrent_writes", want: "64", foundName: "concurrent_writes", found: "32"},
		"bare number, unit found":      {name: "compaction_throughput", want: "48", foundName: "compaction_throughput", found: "48MiB/s", same: true},
		"old name, new found":          {name: "compaction_throughput_mb_per_sec", want: "48", foundName: "compaction_throughput", found: "48MiB/s", same: true},
		"old name, new found, differs": {name: "compaction_throughput_mb_per_sec", want: "48", foundName: "compaction_throughput", found: "64MiB/s"},
		"other unit":                   {name: "compaction_throughput", want: "49152KiB/s", foundName: "compaction_throughput", found: "48MiB/s", same: true},
		"new name, old found":          {name: "compaction_throughput", want: "16MiB/s", foundName: "compaction_throughput_mb_per_sec", found: "16", same: true},
		"ms vs s":                      {name: "commitlog_sync_period", want: "10s", foundName: "commitlog_sync_period", found: "10000ms", same: true},
		"old ms name":                  {name: "read_request_timeout_in_ms", want: "5000", foundName: "read_request_timeout", found: "5s", same: true},
		"size in mb":                   {name: "memtable_heap_space_in_mb", want: "2048", foundName: "memtable_heap_space", found: "2GiB", same: true},
		"time vs size":                 {name: "x", want: "5ms", foundName: "x", found: "5MiB"},
		"float spelling":               {name: "commitlog_sync_group_window_in_ms", want: "0", foundName: "commitlog_sync_group_window_in_ms", found: "0.0", same: true},
		"fraction":                     {name: "disk_optimization_page_cross_chance", want: "0.1", foundName: "disk_optimization_page_cross_chance", found: "0.1", same: true},
		"boolean case":                 {name: "materialized_views_enabled", want: "false", foundName: "materialized_views_enabled", found: "False", same: true},
		"enum":                         {name: "commitlog_sync", want: "batch", foundName: "commitlog_sync", found: "periodic"},
		"short class name":             {name: "authenticator", want: "PasswordAuthenticator", foundName: "authenticator", found: "org.apache.cassandra.auth.PasswordAuthenticator", same: true},
		"wrong class name":             {name: "authenticator", want: "AllowAllAuthenticator", foundName: "authenticator", found: "org.apache.cassandra.auth.PasswordAuthenticator"},
		"unit suffix e":                {name: "x", want: "5e2ms", foundName: "x", found: "500ms", same: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := SameValue(tc.name, tc.want, tc.foundName, tc.found); got != tc.same {
				t.Errorf("SameValue(%q=%q, %q=%q) = %t, want %t", tc.name, tc.want, tc.foundName, tc.found, got, tc.same)
			}
		})
	}
}

func TestParseSettings(t *testing.T) {
	tests := map[string]struct {
		raw  string
		want []Setting
	}{
		"empty": {raw: ``},
		"scalars": {
			raw: `{"concurrent_writes": 64, "commitlog_sync": "periodic", "cdc_enabled": false, "x": 0.1}`,
			want: []Setting{
				{Name: "cdc_enabled", Want: "false", CheckValue: true},
				{Name: "commitlog_sync", Want: "periodic", CheckValue: true},
				{Name: "concurrent_writes", Want: "64", CheckValue: true},
				{Name: "x", Want: "0.1", CheckValue: true},
			},
		},
		"nested and lists": {
			raw: `{"authenticator": {"class_name": "PasswordAuthenticator"}, "data_file_directories": ["/a"], "column_index_size": null}`,
			want: []Setting{
				{Name: "authenticator.class_name", Want: "PasswordAuthenticator", CheckValue: true},
				{Name: "column_index_size"},
				{Name: "data_file_directories"},
			},
		},
		"big number kept exact": {
			raw:  `{"max_hint_window_in_ms": 10800000000}`,
			want: []Setting{{Name: "max_hint_window_in_ms", Want: "10800000000", CheckValue: true}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseSettings([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseSettings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckNode(t *testing.T) {
	tests := map[string]struct {
		settings []Setting
		want     string
	}{
		"all match": {settings: []Setting{
			{Name: "concurrent_writes", Want: "32", CheckValue: true},
			{Name: "compaction_throughput_mb_per_sec", Want: "64", CheckValue: true},
			{Name: "seed_provider.parameters"},
		}},
		"typo":        {settings: []Setting{{Name: "concurent_writes", Want: "64", CheckValue: true}}, want: `setting "concurent_writes" is not a Cassandra setting (node 127.0.0.1)`},
		"wrong value": {settings: []Setting{{Name: "concurrent_writes", Want: "64", CheckValue: true}}, want: "node 127.0.0.1: concurrent_writes is 32, wanted 64"},
		"unset":       {settings: []Setting{{Name: "column_index_size", Want: "4KiB", CheckValue: true}}, want: "node 127.0.0.1: column_index_size is unset, wanted 4KiB"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := CheckNode("127.0.0.1", "", tc.settings, nodeSettings)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("CheckNode = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCheckStartupKeys(t *testing.T) {
	cases := map[string]struct {
		yaml string
		want string // a part of the error; "" for none
	}{
		"tuning only":   {yaml: `{"concurrent_writes": 128, "memtable_heap_space": "700MiB"}`},
		"num_tokens":    {yaml: `{"concurrent_writes": 128, "num_tokens": 16}`, want: "cassandra-yaml.num_tokens is refused"},
		"initial_token": {yaml: `{"initial_token": "0"}`, want: "cassandra-yaml.initial_token is refused"},
		"partitioner":   {yaml: `{"partitioner": "org.apache.cassandra.dht.RandomPartitioner"}`, want: "cassandra-yaml.partitioner is refused"},
		"cluster_name":  {yaml: `{"cluster_name": "bench"}`, want: "cassandra-yaml.cluster_name is refused"},
		// Only top-level keys are the node's identity; a nested key of the same name is not.
		"nested": {yaml: `{"seed_provider": {"num_tokens": 1}}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			settings, err := ParseSettings([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			err = CheckStartupKeys(settings)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// A spec written for one release verifies on another: 4.0 shows only the names with units
// (as system_views.settings of 4.0.19 does), 5.0 only the new ones, and what differs is
// named with the node's version and the name it knows.
func TestCheckNodeAcrossReleases(t *testing.T) {
	v40 := map[string]string{
		"compaction_throughput_mb_per_sec":         "64",
		"write_request_timeout_in_ms":              "2000",
		"cross_node_timeout":                       "true",
		"index_summary_resize_interval_in_minutes": "60",
		"tracetype_query_ttl":                      "86400",
		"internode_send_buff_size_in_bytes":        "0",
		"authenticator":                            "PasswordAuthenticator",
		"enable_user_defined_functions":            "false",
	}
	v50 := map[string]string{
		"compaction_throughput":          "64MiB/s",
		"write_request_timeout":          "2000ms",
		"index_summary_resize_interval":  "60m",
		"trace_type_query_ttl":           "1d",
		"authenticator.class_name":       "org.apache.cassandra.auth.PasswordAuthenticator",
		"user_defined_functions_enabled": "false",
	}
	tests := map[string]struct {
		version string
		values  map[string]string
		yaml    string
		want    string
	}{
		"new names on 4.0": {version: "4.0.19", values: v40,
			yaml: `{"compaction_throughput": "64MiB/s", "write_request_timeout": "2s", "index_summary_resize_interval": "1h", "trace_type_query_ttl": "1d", "authenticator": {"class_name": "PasswordAuthenticator"}, "user_defined_functions_enabled": false}`},
		"old names on 5.0": {version: "5.0.9", values: v50,
			yaml: `{"compaction_throughput_mb_per_sec": 64, "write_request_timeout_in_ms": 2000, "index_summary_resize_interval_in_minutes": 60, "tracetype_query_ttl": 86400, "authenticator": "PasswordAuthenticator", "enable_user_defined_functions": false}`},
		"wrong value names the old name and its unit": {version: "4.0.19", values: v40,
			yaml: `{"compaction_throughput": "48MiB/s"}`,
			want: "node 127.0.0.1 (Cassandra 4.0.19): compaction_throughput is 64 (as compaction_throughput_mb_per_sec, in MiB/s), wanted 48MiB/s"},
		"a later release's option": {version: "4.0.19", values: v40,
			yaml: `{"sstable": {"selected_format": "bti"}}`,
			want: `setting "sstable.selected_format" is not a setting of Cassandra 4.0.19 (node 127.0.0.1); the options this release knows`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			settings, err := ParseSettings([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			err = CheckNode("127.0.0.1", tc.version, settings, tc.values)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckNode: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("CheckNode = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
