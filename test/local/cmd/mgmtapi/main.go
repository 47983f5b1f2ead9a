// Command mgmtapi is the cassandra container of the Cassandra image the kind workflow builds
// without a registry (hack/kind-cass-images.sh): the project's played management API
// (test/local/mgmtapi) on :8080, as the real image serves it, over the Cassandra node of the
// container, and its agent's metrics endpoint on :9000 (mgmtapi.Metrics, read from the JVM
// and the data directory of this container), which cass-operator's pods and services name
// "metrics" and where cassbench's writers read the node's CPU, GC and SSTables. As the real image's entrypoint does, it first copies the config server-config-init
// rendered in /config into /etc/cassandra (with Cassandra's own seed provider in place of the
// agent's K8SeedProvider); with MGMT_API_EXPLICIT_START (cass-operator sets it)
// Cassandra starts only when the operator calls /api/v0/lifecycle/start. SIGTERM stops
// Cassandra, then the server.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cassbench/cassbench/test/local/mgmtapi"
)

const (
	configDir = "/config"
	confDir   = "/etc/cassandra"
	listen    = ":8080"
)

// metricsListen is the agent's metrics endpoint, on every address of the pod as the real
// agent's NettyMetricsHttpServer binds it.
var metricsListen = fmt.Sprintf(":%d", mgmtapi.MetricsPort)

func main() {
	logger := log.New(os.Stderr, "", log.LstdFlags|log.LUTC)
	if err := run(logger); err != nil {
		logger.Fatal(err)
	}
}

func run(logger *log.Logger) error {
	if err := copyConfig(configDir, confDir); err != nil {
		return err
	}
	node := &mgmtapi.ContainerNode{
		Java:       "java",
		Lib:        "/opt/cassandra/lib",
		Conf:       confDir,
		LogDir:     "/var/log/cassandra",
		StorageDir: "/var/lib/cassandra",
		JMXPort:    7199,
		Username:   "cassandra",
		Password:   "cassandra",
		Logf:       logger.Printf,
	}
	api := mgmtapi.New(node, logger.Printf)
	servers := []*http.Server{
		{Addr: listen, Handler: api, ReadHeaderTimeout: 10 * time.Second},
		{Addr: metricsListen, Handler: mgmtapi.NewMetrics(node), ReadHeaderTimeout: 10 * time.Second},
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	errc := make(chan error, len(servers))
	for _, s := range servers {
		go func() { errc <- s.ListenAndServe() }()
	}
	logger.Printf("mgmtapi: the played management API serves %s (routes: %v), its metrics %s/metrics", listen, api.Routes(), metricsListen)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Printf("mgmtapi: stopping cassandra")
	node.Stop(2 * time.Minute)
	api.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		if err := s.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	return nil
}

// k8sSeedProvider is the seed provider cass-operator's config names; the real image's agent jar
// (management-api-agent, K8SeedProvider.java) holds it, and resolves each seed service to
// every address its DNS record has.
const k8sSeedProvider = "org.apache.cassandra.locator.K8SeedProvider"

// seedProvider replaces K8SeedProvider, which no jar here holds, by Cassandra's own
// SimpleSeedProvider told to do the same: resolve_multiple_ip_addresses_per_dns_record
// (Cassandra 4.1 and later) takes every address of each seed service's DNS record.
func seedProvider(yamlText []byte) ([]byte, error) {
	var conf map[string]any
	if err := yaml.Unmarshal(yamlText, &conf); err != nil {
		return nil, fmt.Errorf("the rendered cassandra.yaml: %w", err)
	}
	providers, _ := conf["seed_provider"].([]any)
	if len(providers) != 1 {
		return yamlText, nil
	}
	p, _ := providers[0].(map[string]any)
	if p == nil || p["class_name"] != k8sSeedProvider {
		return yamlText, nil
	}
	params, _ := p["parameters"].([]any)
	if len(params) != 1 {
		return nil, fmt.Errorf("cassandra.yaml: %s has %d parameter maps, want 1", k8sSeedProvider, len(params))
	}
	m, _ := params[0].(map[string]any)
	if m == nil {
		return nil, fmt.Errorf("cassandra.yaml: %s's parameters are not a map", k8sSeedProvider)
	}
	m["resolve_multiple_ip_addresses_per_dns_record"] = "true"
	p["class_name"] = "org.apache.cassandra.locator.SimpleSeedProvider"
	return yaml.Marshal(conf)
}

// copyConfig copies the files of from into to (a missing from has none).
func copyConfig(from, to string) error {
	entries, err := os.ReadDir(from)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if e.Name() == "cassandra.yaml" {
			if b, err = seedProvider(b); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			return fmt.Errorf("copying the rendered config: %w", err)
		}
	}
	return nil
}
