# cassandra-env.sh of the Cassandra image the kind workflow builds without a registry
# (hack/kind-cass-images.sh). server-config-init appends the datacenter's additional JVM
# options here as JVM_OPTS lines; the container's management API starts the JVM from
# jvm-server.options and jvm17-server.options, not through this script.
