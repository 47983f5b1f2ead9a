package configbuild

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// baseJVM8 is a jvm-server.options as Cassandra ships it, shortened.
var baseJVM8 = []string{
	"-ea",
	"-Xss256k",
	"-XX:+UseThreadPriorities",
	"-XX:StringTableSize=1000003",
	"-Dcassandra.ring_delay_ms=30000",
	"-Xms4G",
	"-Xmx4G",
}

var baseJVM11 = []string{
	"-XX:+UseConcMarkSweepGC",
	"-XX:+CMSParallelRemarkEnabled",
	"-XX:SurvivorRatio=8",
	"-XX:MaxGCPauseMillis=500",
	"-Djdk.attach.allowAttachSelf=true",
}

var baseJVM17 = []string{
	"-XX:+UseG1GC",
	"-XX:+ParallelRefProcEnabled",
	"-XX:MaxTenuringThreshold=1",
	"-Djdk.attach.allowAttachSelf=true",
}

var g1Before17 = []string{
	"-XX:+UseG1GC", "-XX:+ParallelRefProcEnabled", "-XX:MaxTenuringThreshold=1", "-XX:G1HeapRegionSize=16m",
	"-XX:G1RSetUpdatingPauseTimePercent=5", "-XX:MaxGCPauseMillis=300", "-XX:InitiatingHeapOccupancyPercent=70",
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestJVMOptions has one case per rule of JVMOptions (builder.go createServerJVMOptions at
// k8ssandra-client v0.8.12), file by file.
func TestJVMOptions(t *testing.T) {
	cases := map[string]struct {
		file    int // 8, 11 or 17
		section string
		want    []string
	}{
		"no section: the base as it is": {file: 8, section: `{}`, want: baseJVM8},
		"heap sizes replace -Xms/-Xmx whatever their value": {file: 8, section: `{"initial_heap_size": "512M", "max_heap_size": "1G"}`,
			want: []string{"-Xms512M", "-Xmx1G", "-ea", "-Xss256k", "-XX:+UseThreadPriorities", "-XX:StringTableSize=1000003", "-Dcassandra.ring_delay_ms=30000"}},
		"a key=value option replaces the same name": {file: 8, section: `{"cassandra_ring_delay_ms": 5000}`,
			want: []string{"-Dcassandra.ring_delay_ms=5000", "-ea", "-Xss256k", "-XX:+UseThreadPriorities", "-XX:StringTableSize=1000003", "-Xms4G", "-Xmx4G"}},
		"-Xss replaces by prefix": {file: 8, section: `{"per_thread_stack_size": "512k"}`,
			want: []string{"-Xss512k", "-ea", "-XX:+UseThreadPriorities", "-XX:StringTableSize=1000003", "-Dcassandra.ring_delay_ms=30000", "-Xms4G", "-Xmx4G"}},
		"keys come out sorted": {file: 8, section: `{"string_table_size": 7, "cassandra_ring_delay_ms": 1}`,
			want: []string{"-Dcassandra.ring_delay_ms=1", "-XX:StringTableSize=7", "-ea", "-Xss256k", "-XX:+UseThreadPriorities", "-Xms4G", "-Xmx4G"}},
		"an unknown key is ignored":       {file: 8, section: `{"max_heap": "1G"}`, want: baseJVM8},
		"a boolean flag is never written": {file: 8, section: `{"use_numa": true, "always_pre_touch": true}`, want: baseJVM8},
		"additional options come first, in order": {file: 8, section: `{"max_heap_size": "1G", "additional-jvm-opts": ["-Dz=1", "-Da=2"]}`,
			want: []string{"-Dz=1", "-Da=2", "-Xmx1G", "-ea", "-Xss256k", "-XX:+UseThreadPriorities", "-XX:StringTableSize=1000003", "-Dcassandra.ring_delay_ms=30000", "-Xms4G"}},
		"an additional option replaces a base line of its name": {file: 8, section: `{"additional-jvm-opts": ["-XX:StringTableSize=5"]}`,
			want: []string{"-XX:StringTableSize=5", "-ea", "-Xss256k", "-XX:+UseThreadPriorities", "-Dcassandra.ring_delay_ms=30000", "-Xms4G", "-Xmx4G"}},
		// The base's other MaxGCPauseMillis stays beside G1's: lines are matched by flag only
		// against the rendered options, not against the collector's settings.
		"jvm11: a collector flag chooses the collector and is dropped": {file: 11, section: `{"additional-jvm-opts": ["-XX:+UseG1GC", "-Dx=1"]}`,
			want: cat([]string{"-Dx=1", "-XX:MaxGCPauseMillis=500", "-Djdk.attach.allowAttachSelf=true"}, g1Before17)},
		"jvm11: a chosen collector keeps the flags of the list": {file: 11, section: `{"garbage_collector": "ZGC", "additional-jvm-opts": ["-XX:+UseG1GC"]}`,
			want: []string{"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=500", "-Djdk.attach.allowAttachSelf=true", "-XX:+UnlockExperimentalVMOptions", "-XX:+UseZGC"}},
		"jvm11: a known key of the jvm11 table": {file: 11, section: `{"max_gc_pause_millis": 200}`,
			want: []string{"-XX:MaxGCPauseMillis=200", "-XX:+UseConcMarkSweepGC", "-XX:+CMSParallelRemarkEnabled", "-XX:SurvivorRatio=8", "-Djdk.attach.allowAttachSelf=true"}},
		"jvm11: an unknown collector clears the collector flags": {file: 11, section: `{"garbage_collector": "Epsilon"}`,
			want: []string{"-XX:MaxGCPauseMillis=500", "-Djdk.attach.allowAttachSelf=true"}},
		// From 17 on only the collector flags themselves are known, so G1 tuning lines stay.
		"jvm17: G1 is plain -XX:+UseG1GC": {file: 17, section: `{"garbage_collector": "G1GC"}`,
			want: []string{"-XX:+ParallelRefProcEnabled", "-XX:MaxTenuringThreshold=1", "-Djdk.attach.allowAttachSelf=true", "-XX:+UseG1GC"}},
		"jvm17: CMS removes the collector flag and adds none": {file: 17, section: `{"garbage_collector": "CMS"}`,
			want: []string{"-XX:+ParallelRefProcEnabled", "-XX:MaxTenuringThreshold=1", "-Djdk.attach.allowAttachSelf=true"}},
		"jvm17: heap keys are not known there": {file: 17, section: `{"max_heap_size": "1G"}`, want: baseJVM17},
		"jvm17: additional options still apply": {file: 17, section: `{"additional-jvm-opts": ["-XX:+UseZGC"]}`,
			want: []string{"-XX:+ParallelRefProcEnabled", "-XX:MaxTenuringThreshold=1", "-Djdk.attach.allowAttachSelf=true", "-XX:+UseZGC"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in, err := ParseInput(`{"jvm-server-options": ` + tc.section + `, "jvm11-server-options": ` + tc.section + `, "jvm17-server-options": ` + tc.section + `}`)
			if err != nil {
				t.Fatal(err)
			}
			f := jvmFiles[map[int]int{8: 0, 11: 1, 17: 2}[tc.file]]
			base := map[int][]string{8: baseJVM8, 11: baseJVM11, 17: baseJVM17}[tc.file]
			got, err := JVMOptions(f.name, f.jvm, f.known, base, f.section(in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", f.name, d)
			}
		})
	}
}

func TestJVMOptionsErrors(t *testing.T) {
	for section, want := range map[string]string{
		`{"additional-jvm-opts": "-Dx=1"}`: "additional-jvm-opts: -Dx=1 is not a list",
		`{"additional-jvm-opts": [1]}`:     "additional-jvm-opts: 1 is not a string",
	} {
		in, err := ParseInput(`{"jvm-server-options": ` + section + `}`)
		if err != nil {
			t.Fatal(err)
		}
		_, err = JVMOptions("jvm-server.options", 8, jvm8Options, nil, in.ServerOptions)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", section, err, want)
		}
	}
}
