// Package local runs cassbench end to end on one machine without Docker, with every real part
// that can run here: etcd, kube-apiserver and kube-controller-manager (its Job and garbage
// collector controllers), the manager binary with the RBAC from config/, the cassbench binary
// in setup and writer pods, and real Cassandra nodes started by internal/localcassandra.
//
// Three parts of a cluster are played, and nothing else is faked:
//   - the kubelet (PodRunner): pods of Jobs cassbench made run as local processes, each in its
//     own mount namespace with the pod's /etc/hosts and termination-message file;
//   - cluster DNS: that /etc/hosts resolves the datacenter's CQL service to the node addresses;
//   - cass-operator (DatacenterStandIn): a CassandraDatacenter's size and config are applied to
//     the local Cassandra nodes (bootstrap, decommission, rolling restart) and its status shows
//     each step as cass-operator v1.31 does.
//
// The scenarios in this package's tests and `make local-cluster` (cmd/local-cluster) use it.
package local
