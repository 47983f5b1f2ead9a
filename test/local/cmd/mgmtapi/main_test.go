package main

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestSeedProviderReplacesK8SeedProvider(t *testing.T) {
	in := []byte(`cluster_name: demo
seed_provider:
    - class_name: org.apache.cassandra.locator.K8SeedProvider
      parameters:
        - seeds: demo-seed-service,demo-dc1-additional-seed-service
`)
	out, err := seedProvider(in)
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		ClusterName  string `json:"cluster_name"`
		SeedProvider []struct {
			ClassName  string              `json:"class_name"`
			Parameters []map[string]string `json:"parameters"`
		} `json:"seed_provider"`
	}
	if err := yaml.Unmarshal(out, &conf); err != nil {
		t.Fatal(err)
	}
	if conf.ClusterName != "demo" || len(conf.SeedProvider) != 1 || len(conf.SeedProvider[0].Parameters) != 1 {
		t.Fatalf("the rest of the config changed:\n%s", out)
	}
	p := conf.SeedProvider[0]
	if p.ClassName != "org.apache.cassandra.locator.SimpleSeedProvider" {
		t.Errorf("class_name = %q, want Cassandra's SimpleSeedProvider", p.ClassName)
	}
	if got := p.Parameters[0]["seeds"]; got != "demo-seed-service,demo-dc1-additional-seed-service" {
		t.Errorf("seeds = %q, want the operator's seed services", got)
	}
	if got := p.Parameters[0]["resolve_multiple_ip_addresses_per_dns_record"]; got != "true" {
		t.Errorf("resolve_multiple_ip_addresses_per_dns_record = %q, want true (every address of a seed service)", got)
	}
}

func TestSeedProviderKeepsOtherProviders(t *testing.T) {
	in := []byte(`seed_provider:
    - class_name: org.apache.cassandra.locator.SimpleSeedProvider
      parameters:
        - seeds: 10.0.0.1
`)
	out, err := seedProvider(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(in) {
		t.Errorf("a config without K8SeedProvider changed:\n%s", out)
	}
	if _, err := seedProvider([]byte("seed_provider:\n  - class_name: " + k8sSeedProvider + "\n")); err == nil ||
		!strings.Contains(err.Error(), "parameter maps") {
		t.Errorf("K8SeedProvider without parameters: err = %v, want one naming its parameters", err)
	}
}
