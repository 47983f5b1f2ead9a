package configbuild

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// flagKind is how an option's value becomes a JVM argument (definitions-parser
// pkg/types/metadata.go, ValueType and Metadata.Output).
type flagKind int

const (
	// constant flags take no value. Upstream's Output never writes them: it returns the flag
	// only when `set && err != nil` of strconv.ParseBool, which cannot both hold, so every
	// boolean option is dropped (as an empty line, which Cassandra's scripts skip; this one
	// writes nothing).
	constant flagKind = iota
	// keyValue flags are written flag=value.
	keyValue
	// suffixed flags are written flag immediately followed by the value (-Xmx512M).
	suffixed
)

type flag struct {
	name string
	kind flagKind
}

// jvm8Options are the keys of jvm-server-options upstream knows
// (definitions-parser pkg/types/generated/jvm_server_options_generated.go,
// JvmServerOptionsPrefix). Other keys are ignored without a word, as upstream ignores them.
var jvm8Options = map[string]flag{
	"unlock-diagnostic-vm-options":                       {"-XX:+UnlockDiagnosticVMOptions", constant},
	"cassandra_available_processors":                     {"-Dcassandra.available_processors", keyValue},
	"cassandra_config_directory":                         {"-Dcassandra.config", keyValue},
	"cassandra_initial_token":                            {"-Dcassandra.initial_token", keyValue},
	"cassandra_join_ring":                                {"-Dcassandra.join_ring", keyValue},
	"cassandra_load_ring_state":                          {"-Dcassandra.load_ring_state", keyValue},
	"cassandra_metrics_reporter_config_file":             {"-Dcassandra.metricsReporterConfigFile", keyValue},
	"cassandra_replace_address":                          {"-Dcassandra.replace_address", keyValue},
	"cassandra_ring_delay_ms":                            {"-Dcassandra.ring_delay_ms", keyValue},
	"cassandra_triggers_dir":                             {"-Dcassandra.triggers_dir", keyValue},
	"cassandra_write_survey":                             {"-Dcassandra.write_survey", keyValue},
	"cassandra_disable_auth_caches_remote_configuration": {"-Dcassandra.disable_auth_caches_remote_configuration", keyValue},
	"cassandra_force_default_indexing_page_size":         {"-Dcassandra.force_default_indexing_page_size", keyValue},
	"cassandra_max_hint_ttl":                             {"-Dcassandra.maxHintTTL", keyValue},
	"use_thread_priorities":                              {"-XX:+UseThreadPriorities", constant},
	"heap_dump_on_out_of_memory_error":                   {"-XX:+HeapDumpOnOutOfMemoryError", constant},
	"per_thread_stack_size":                              {"-Xss", suffixed},
	"string_table_size":                                  {"-XX:StringTableSize", keyValue},
	"always_pre_touch":                                   {"-XX:+AlwaysPreTouch", constant},
	"use_tlb":                                            {"-XX:+UseTLAB", constant},
	"resize_tlb":                                         {"-XX:+ResizeTLAB", constant},
	"use_numa":                                           {"-XX:+UseNUMA", constant},
	"perf_disable_shared_mem":                            {"-XX:+PerfDisableSharedMem", constant},
	"java_net_prefer_ipv4_stack":                         {"-Djava.net.preferIPv4Stack=true", constant},
	"page-align-direct-memory":                           {"-Dsun.nio.PageAlignDirectMemory=true", constant},
	"restrict-contended":                                 {"-XX:-RestrictContended", constant},
	"guaranteed-safepoint-interval":                      {"-XX:GuaranteedSafepointInterval", keyValue},
	"use-biased-locking":                                 {"-XX:-UseBiasedLocking", constant},
	"debug-non-safepoints":                               {"-XX:+DebugNonSafepoints", constant},
	"preserve-frame-pointer":                             {"-XX:+PreserveFramePointer", constant},
	"unlock_commercial_features":                         {"-XX:+UnlockCommercialFeatures", constant},
	"flight_recorder":                                    {"-XX:+FlightRecorder", constant},
	"log_compilation":                                    {"-XX:+LogCompilation", constant},
	"initial_heap_size":                                  {"-Xms", suffixed},
	"max_heap_size":                                      {"-Xmx", suffixed},
	"jdk_nio_maxcachedbuffersize":                        {"-Djdk.nio.maxCachedBufferSize", keyValue},
	"cassandra_expiration_date_overflow_policy":          {"-Dcassandra.expiration_date_overflow_policy", keyValue},
	"io_netty_eventloop_maxpendingtasks":                 {"-Dio.netty.eventLoop.maxPendingTasks", keyValue},
	"crash_on_out_of_memory_error":                       {"-XX:+CrashOnOutOfMemoryError", constant},
	"print_heap_histogram_on_out_of_memory_error":        {"-Dcassandra.printHeapHistogramOnOutOfMemoryError", keyValue},
	"exit_on_out_of_memory_error":                        {"-XX:+ExitOnOutOfMemoryError", constant},
}

// jvm11Options: jvm11_server_options_generated.go, Jvm11ServerOptionsPrefix.
var jvm11Options = map[string]flag{
	"jdk_attach_allow_attach_self":           {"-Djdk.attach.allowAttachSelf=true", constant},
	"io_netty_try_reflection_set_accessible": {"-Dio.netty.tryReflectionSetAccessible=true", constant},
	"g1r_set_updating_pause_time_percent":    {"-XX:G1RSetUpdatingPauseTimePercent", keyValue},
	"max_gc_pause_millis":                    {"-XX:MaxGCPauseMillis", keyValue},
	"initiating_heap_occupancy_percent":      {"-XX:InitiatingHeapOccupancyPercent", keyValue},
	"parallel_gc_threads":                    {"-XX:ParallelGCThreads", keyValue},
	"conc_gc_threads":                        {"-XX:ConcGCThreads", keyValue},
}

// jvmFiles are the options files the builder writes, their section, the JVM major version
// their GC settings are for (builder.go createServerJVMOptions: 8 unless the name says) and
// the keys they know (builder.go optionsFilenameToMap: none for 17 and newer, so every key
// but additional-jvm-opts and garbage_collector is ignored there).
var jvmFiles = []struct {
	name    string
	section func(*Input) map[string]any
	jvm     int
	known   map[string]flag
}{
	{"jvm-server.options", func(in *Input) map[string]any { return in.ServerOptions }, 8, jvm8Options},
	{"jvm11-server.options", func(in *Input) map[string]any { return in.ServerOptions11 }, 11, jvm11Options},
	{"jvm17-server.options", func(in *Input) map[string]any { return in.ServerOptions17 }, 17, nil},
}

// replacedByPrefix are the base lines a rendered option of the same flag replaces whatever
// their value (definitions-parser JvmServerOptionsPrefixExp, used for every file).
var replacedByPrefix = regexp.MustCompile(`^-Xss|^-Xms|^-Xmx`)

// JVMOptions renders one jvm*-server.options file (builder.go createServerJVMOptions) from
// the base file's option lines and its config section:
//  1. additional-jvm-opts come first, in order; when one names a collector (gcFlags) and
//     garbage_collector is unset, the collector is taken from it and the exact GC flags are
//     dropped from the list;
//  2. then each known key, rendered by its flag kind; unknown keys are ignored. Upstream
//     walks a Go map, so their order varies between runs; this one sorts them;
//  3. with garbage_collector set, the base loses every line that contains a flag of any
//     supported collector and gains the chosen collector's flags (gcSettings);
//  4. base lines follow, but for those a rendered option replaces: same -Xss/-Xms/-Xmx
//     prefix, same name before "=" (both having one), or the same line.
func JVMOptions(file string, jvm int, known map[string]flag, base []string, section map[string]any) ([]string, error) {
	var target []string
	// A garbage_collector key, even null, chooses a collector; null is then taken from the
	// additional options if they name one, else it means "none known" (upstream formats
	// the nil value, which matches no collector).
	gcValue, gcSet := section["garbage_collector"]
	gc := fmt.Sprint(gcValue)
	if v, ok := section["additional-jvm-opts"]; ok {
		opts, err := stringList(v)
		if err != nil {
			return nil, fmt.Errorf("%s: additional-jvm-opts: %w", file, err)
		}
		if detected := detectCollector(opts); detected != "" && gcValue == nil {
			gc, gcSet = detected, true
			opts = dropGCFlags(opts)
		}
		target = append(target, opts...)
	}
	keys := make([]string, 0, len(section))
	for k := range section {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := known[k]
		if !ok || k == "additional-jvm-opts" || k == "garbage_collector" {
			continue
		}
		if line := f.render(fmt.Sprint(section[k])); line != "" {
			target = append(target, line)
		}
	}
	if gcSet {
		all := allGCFlags(jvm)
		var kept []string
		for _, line := range base {
			if !containsAny(line, all) {
				kept = append(kept, line)
			}
		}
		base = append(kept, gcSettings(gc, jvm)...)
	}
	out := target
	for _, line := range base {
		if !replaced(line, target) {
			out = append(out, line)
		}
	}
	return out, nil
}

func (f flag) render(value string) string {
	switch f.kind {
	case keyValue:
		return f.name + "=" + value
	case suffixed:
		return f.name + value
	}
	return ""
}

// replaced tells whether base line v gives way to one of the rendered options.
func replaced(v string, target []string) bool {
	prefix := replacedByPrefix.FindString(v)
	for _, t := range target {
		if prefix != "" && strings.HasPrefix(t, prefix) {
			return true
		}
		vn, tn := v, t
		if i, j := strings.Index(v, "="), strings.Index(t, "="); i > 0 && j > 0 {
			vn, tn = v[:i], t[:j]
		}
		if vn == tn {
			return true
		}
	}
	return false
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%v is not a list", v)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a string", e)
		}
		out = append(out, s)
	}
	return out, nil
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
