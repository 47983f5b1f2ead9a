// Package local runs cassbench end to end on one machine without Docker, with every real part
// that can run here: etcd, kube-apiserver, kube-controller-manager (Job, garbage collector,
// StatefulSet, Deployment, ReplicaSet, PV-binding and disruption controllers) and
// kube-scheduler; cass-operator's manager built from its Go module and installed from its own
// kustomize manifests, webhook included; cassbench installed by `helm install` of its chart,
// the manager running as the chart's Deployment's pod under its ServiceAccount and RBAC; the
// cassbench binary in setup and writer pods; and real Cassandra nodes started by
// internal/localcassandra.
//
// What cannot run without a kubelet or an image registry is played, and nothing else:
//   - the kubelet: PodRunner runs the containers of Job and Deployment pods as local processes
//     (each in its own mount namespace, with the pod's /etc/hosts, volumes and service-account
//     token), and starts them again as restartPolicy says, with the kubelet's back-off; NodePods runs the pods of cass-operator's StatefulSets: the config init
//     containers (configbuild), and the management API (mgmtapi) over a local node;
//   - a local-path volume provisioner (Volumes): a claim's volume is a directory and names the
//     local node whose data it holds;
//   - cluster DNS: /etc/hosts from the services' selectors and the pods they match;
//   - cert-manager, for the operator's webhook certificate (installOperator);
//   - the management API (mgmtapi), whose image is on no registry here.
//
// The scenarios in this package's tests and `make local-cluster` (cmd/local-cluster) use it.
package local
