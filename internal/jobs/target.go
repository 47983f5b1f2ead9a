package jobs

import (
	"fmt"
	"strings"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/podenv"
)

// ResolveTarget resolves where and as whom the pods connect, or why they may not.
func ResolveTarget(run *cbv1.BenchmarkRun, dc *cassdcapi.CassandraDatacenter, image string, allowed []string) (Target, string, string) {
	t := Target{
		Image:               image,
		Host:                dc.GetDatacenterServiceName() + "." + dc.Namespace + ".svc",
		Port:                datacenter.NativePort(dc),
		CassandraDatacenter: dc.DatacenterName(),
		AllowDropKeyspaces:  dc.Annotations[cbv1.AllowDropKeyspacesAnnotation],
	}
	// Every cass-operator pod runs the management API, over plain HTTP unless the datacenter
	// asks for mutual TLS, which setup's client does not speak: then setup only lists the
	// snapshots a drop leaves and says how to clear them.
	if dc.Spec.ManagementApiAuth.Manual == nil {
		t.ClearSnapshots = podenv.ClearSnapshotsManagementAPI
	}
	if run.Spec.Writers.Image != "" {
		t.Image = run.Spec.Writers.Image
		if !ImageAllowed(t.Image, image, allowed) {
			return t, cbv1.ReasonImageNotAllowed, fmt.Sprintf(
				"spec.writers.image %s is not allowed: its pods receive Cassandra credentials, so the manager runs only its own image %q "+
					"and those its --allowed-images lists; remove spec.writers.image or ask an admin to allow it", t.Image, image)
		}
	}
	conn := run.Spec.Connection
	if conn != nil && conn.Service != "" {
		if conn.CredentialsSecretRef == nil {
			return t, cbv1.ReasonInvalidSpec, "spec.connection.service needs spec.connection.credentialsSecretRef: " +
				"the datacenter's superuser credentials are sent only to the datacenter's own service"
		}
		if dc.Namespace == run.Namespace && conn.CredentialsSecretRef.Name == dc.GetSuperuserSecretNamespacedName().Name {
			return t, cbv1.ReasonInvalidSpec, fmt.Sprintf("spec.connection.credentialsSecretRef names the datacenter's superuser secret %s, "+
				"which is sent only to the datacenter's own service, not to spec.connection.service %s: name a secret of your own",
				conn.CredentialsSecretRef.Name, conn.Service)
		}
		t.Host = conn.Service
	}
	if conn != nil && conn.Port != nil {
		t.Port = *conn.Port
	}
	switch {
	case conn != nil && conn.CredentialsSecretRef != nil:
		t.CredentialsSecret = conn.CredentialsSecretRef.Name
	case dc.Namespace == run.Namespace:
		t.CredentialsSecret = dc.GetSuperuserSecretNamespacedName().Name
	default:
		return t, cbv1.ReasonInvalidSpec, fmt.Sprintf("the datacenter is in namespace %s and its superuser secret cannot be used from namespace %s: "+
			"create a secret with keys username and password in %s and set spec.connection.credentialsSecretRef",
			dc.Namespace, run.Namespace, run.Namespace)
	}
	if t.Image == "" {
		return t, cbv1.ReasonInvalidSpec, "no writer image: set spec.writers.image or start the manager with --writer-image"
	}
	return t, "", ""
}

// ImageAllowed tells whether a run may name an image: the manager's own, or one the
// allowlist names exactly or by a prefix ending in *.
func ImageAllowed(image, own string, allowed []string) bool {
	if image == own {
		return true
	}
	for _, a := range allowed {
		if a == image || (strings.HasSuffix(a, "*") && strings.HasPrefix(image, strings.TrimSuffix(a, "*"))) {
			return true
		}
	}
	return false
}
