package datacenter

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Unsuitable tells why a datacenter cannot take a run as it is, before the run touches it: a
// reason and a sentence saying what to do, or an empty reason.
func Unsuitable(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter) (string, string) {
	name := "CassandraDatacenter " + dc.Namespace + "/" + dc.Name
	tuning := run.Spec.Datacenter
	size := dc.Spec.Size
	if tuning != nil && tuning.Size != nil {
		size = *tuning.Size
	}
	var sections map[string]bool
	if tuning != nil {
		sections = map[string]bool{}
		for key := range Sections(tuning.Config) {
			sections[key] = true
		}
	}
	var problems []string
	if dc.Spec.Stopped {
		problems = append(problems, name+" is stopped (spec.stopped): start it before benchmarking it")
	}
	if dc.Spec.ConfigSecret != "" && len(sections) > 0 {
		problems = append(problems, fmt.Sprintf("%s takes its config from secret %s (spec.configSecret), which cass-operator applies instead of spec.config, "+
			"so spec.datacenter.config would never reach the nodes: tune the secret, or remove spec.datacenter.config", name, dc.Spec.ConfigSecret))
	}
	if racks := len(dc.Spec.Racks); racks > 0 && int(size) < racks {
		problems = append(problems, fmt.Sprintf("%s has %d racks and cass-operator puts at least one node in each: a size of %d cannot be reached; ask for at least %d nodes",
			name, racks, size, racks))
	}
	if rf := run.Spec.Schema.Replication.Factor; rf > size {
		problems = append(problems, fmt.Sprintf("schema.replication.factor %d is above the %d nodes the run has: Cassandra would keep fewer replicas than asked; "+
			"lower the factor or raise spec.datacenter.size", rf, size))
	}
	if msg := jvmSectionsRefused(dc, sections); msg != "" {
		problems = append(problems, name+": "+msg)
	}
	if len(problems) == 0 {
		return "", ""
	}
	return cbv1.ReasonDatacenterUnsuitable, strings.Join(problems, "; ")
}

// jvmSectionsRefused names JVM option sections the datacenter's server version does not
// read: cass-operator's webhook refuses jvm-server-options and the jvmNN sections on 3.11
// (which takes jvm-options), and Cassandra 4.x images run Java 11, so jvm17-server-options
// would never apply.
func jvmSectionsRefused(dc *cassdcapi.CassandraDatacenter, sections map[string]bool) string {
	if dc.Spec.ServerType != "" && dc.Spec.ServerType != "cassandra" {
		return ""
	}
	major, err := strconv.Atoi(strings.SplitN(dc.Spec.ServerVersion, ".", 2)[0])
	if err != nil {
		return ""
	}
	var refused []string
	switch {
	case major <= 3:
		for _, s := range []string{"jvm-server-options", "jvm11-server-options", "jvm17-server-options"} {
			if sections[s] {
				refused = append(refused, s)
			}
		}
	case major == 4:
		if sections["jvm17-server-options"] {
			refused = append(refused, "jvm17-server-options")
		}
	}
	if len(refused) == 0 {
		return ""
	}
	return fmt.Sprintf("Cassandra %s does not read %s: use the JVM section of its version (jvm-options on 3.11, jvm11-server-options on 4.x)",
		dc.Spec.ServerVersion, strings.Join(refused, ", "))
}

// crossNamespaceDenied are the cassandra-yaml keys a run from another namespace may not set:
// they load classes, run commands, move data or weaken security in the datacenter owner's
// Cassandra. A key ending in _class or _class_name is denied as well.
var crossNamespaceDenied = map[string]bool{
	"authenticator": true, "authorizer": true, "role_manager": true, "network_authorizer": true, "cidr_authorizer": true,
	"crypto_provider": true, "seed_provider": true, "partitioner": true, "back_pressure_strategy": true,
	"audit_logging_options": true, "full_query_logging_options": true,
	"client_encryption_options": true, "server_encryption_options": true, "transparent_data_encryption_options": true,
	"user_defined_functions_enabled": true, "enable_user_defined_functions": true,
	"scripted_user_defined_functions_enabled": true, "enable_scripted_user_defined_functions": true,
	"user_defined_functions_threads_enabled": true, "enable_user_defined_functions_threads": true,
	"data_file_directories": true, "commitlog_directory": true, "saved_caches_directory": true, "hints_directory": true,
	"cdc_raw_directory": true, "local_system_data_file_directory": true, "startup_checks": true,
}

// crossNamespaceDeniedJVM are substrings of JVM option keys (in the jvm*-server-options and
// cassandra-env-sh sections) a run from another namespace may not set: free-form flags
// (additional-jvm-opts can carry -javaagent or -XX:OnError commands), JMX, agents and debugging.
var crossNamespaceDeniedJVM = []string{"additional", "jmx", "agent", "debug", "on_error", "on_out_of_memory", "heap_dump"}

// CrossNamespaceDenied names the settings a run from another namespace than its datacenter's
// may not set, or returns "" when it sets none. The datacenter's owner lends its size and
// tuning knobs, not its JVM or its security.
func CrossNamespaceDenied(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter) string {
	if run.Namespace == dc.Namespace || run.Spec.Datacenter == nil {
		return ""
	}
	var denied []string
	for section, raw := range Sections(run.Spec.Datacenter.Config) {
		var keys map[string]any
		if json.Unmarshal(raw.Raw, &keys) != nil {
			continue
		}
		for key := range keys {
			lower := strings.ToLower(key)
			if section == "cassandra-yaml" {
				if crossNamespaceDenied[lower] || strings.HasSuffix(lower, "_class") || strings.HasSuffix(lower, "_class_name") {
					denied = append(denied, section+"."+key)
				}
				continue
			}
			for _, s := range crossNamespaceDeniedJVM {
				if strings.Contains(strings.ReplaceAll(lower, "-", "_"), s) {
					denied = append(denied, section+"."+key)
					break
				}
			}
		}
	}
	if len(denied) == 0 {
		return ""
	}
	sort.Strings(denied)
	return fmt.Sprintf("a run from namespace %s may not set %s on CassandraDatacenter %s/%s: these settings load code, run commands, "+
		"move data or change security in another team's Cassandra (see docs/datacenter-lifecycle.md); run from namespace %s or drop them",
		run.Namespace, strings.Join(denied, ", "), dc.Namespace, dc.Name, dc.Namespace)
}
