package datacenter

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// How k8ssandra-operator marks the CassandraDatacenters its K8ssandraCluster controller
// creates, read in its source (github.com/k8ssandra/k8ssandra-operator, release 1.32,
// commit 9e3d1b51): pkg/cassandra/datacenter.go NewDatacenter labels each datacenter with
// pkg/labels CleanedUpByLabels (cleaned-up-by, cluster-name, cluster-namespace) and adds the
// finalizer of pkg/k8ssandra/util.go. Releases before 1.8 used app.kubernetes.io/created-by
// with the same value instead of cleaned-up-by (removed by its commit e4869609, #997). It
// sets no owner reference: the datacenter may live in another Kubernetes cluster than its
// K8ssandraCluster, so the labels are the only link.
const (
	k8ssandraClusterNameLabel      = "k8ssandra.io/cluster-name"
	k8ssandraClusterNamespaceLabel = "k8ssandra.io/cluster-namespace"
	k8ssandraCleanedUpByLabel      = "k8ssandra.io/cleaned-up-by"
	k8ssandraCreatedByLabel        = "app.kubernetes.io/created-by"
	k8ssandraClusterController     = "k8ssandracluster-controller"
	k8ssandraClusterFinalizer      = "k8ssandracluster.k8ssandra.io/finalizer"
)

// K8ssandraOwner returns the K8ssandraCluster that manages the datacenter, if one does: the
// datacenter names its cluster and carries a mark only k8ssandra-operator's controller sets.
// A cluster-name label alone is not enough, since k8ssandra-operator also puts it on objects
// it merely watches.
func K8ssandraOwner(dc *cassdcapi.CassandraDatacenter) (types.NamespacedName, bool) {
	name := dc.Labels[k8ssandraClusterNameLabel]
	if name == "" {
		return types.NamespacedName{}, false
	}
	marked := dc.Labels[k8ssandraCleanedUpByLabel] == k8ssandraClusterController ||
		dc.Labels[k8ssandraCreatedByLabel] == k8ssandraClusterController
	for _, f := range dc.Finalizers {
		marked = marked || f == k8ssandraClusterFinalizer
	}
	if !marked {
		return types.NamespacedName{}, false
	}
	namespace := dc.Labels[k8ssandraClusterNamespaceLabel]
	if namespace == "" {
		namespace = dc.Namespace
	}
	return types.NamespacedName{Namespace: namespace, Name: name}, true
}

// Changes names what a run's tuning would change in the datacenter as it is now: its size,
// and each config section whose merged value differs. Nothing when the tuning asks for what
// the datacenter already has.
func Changes(dc *cassdcapi.CassandraDatacenter, tuning *cbv1.DatacenterTuning) ([]string, error) {
	if tuning == nil {
		return nil, nil
	}
	var changes []string
	if tuning.Size != nil && *tuning.Size != dc.Spec.Size {
		changes = append(changes, fmt.Sprintf("size from %d to %d", dc.Spec.Size, *tuning.Size))
	}
	if len(Sections(tuning.Config)) == 0 {
		return changes, nil
	}
	merged, err := MergeConfig(dc.Spec.Config, tuning.Config)
	if err != nil {
		return nil, err
	}
	var before, after map[string]json.RawMessage
	if c := strings.TrimSpace(string(dc.Spec.Config)); c != "" && c != "null" {
		if err := json.Unmarshal(dc.Spec.Config, &before); err != nil {
			return nil, fmt.Errorf("reading the datacenter's spec.config: %w", err)
		}
	}
	if err := json.Unmarshal(merged, &after); err != nil {
		return nil, fmt.Errorf("reading the merged config: %w", err)
	}
	var sections []string
	for key := range Sections(tuning.Config) {
		if !SameJSON(before[key], after[key]) {
			sections = append(sections, key)
		}
	}
	if len(sections) > 0 {
		sort.Strings(sections)
		changes = append(changes, "config ("+strings.Join(sections, ", ")+")")
	}
	return changes, nil
}

// K8ssandraManaged refuses tuning that would change a datacenter a K8ssandraCluster manages:
// k8ssandra-operator writes its whole spec back from the K8ssandraCluster whenever what it
// wants changes, so a run's size or config would be reverted under the measurement. Tuning
// that changes nothing is not refused. who names the run or sweep point, for the message.
func K8ssandraManaged(dc *cassdcapi.CassandraDatacenter, tuning *cbv1.DatacenterTuning, who string) (string, string) {
	owner, ok := K8ssandraOwner(dc)
	if !ok {
		return "", ""
	}
	changes, err := Changes(dc, tuning)
	if err != nil {
		return cbv1.ReasonInvalidSpec, err.Error()
	}
	if len(changes) == 0 {
		return "", ""
	}
	return cbv1.ReasonDatacenterManagedByK8ssandra, fmt.Sprintf(
		"CassandraDatacenter %s/%s is managed by K8ssandraCluster %s, which writes the datacenter's spec back from its own whenever it reconciles a change, "+
			"and %s would change its %s: change the datacenter's entry in K8ssandraCluster %s (spec.cassandra.datacenters[] named %s: "+
			"size, config.cassandraYaml, config.jvmOptions) and let k8ssandra-operator apply it, "+
			"then run with no spec.datacenter size or config (or with the values the datacenter has)",
		dc.Namespace, dc.Name, owner, who, strings.Join(changes, " and "), owner, dc.Name)
}
