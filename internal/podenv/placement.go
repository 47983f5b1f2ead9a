package podenv

import (
	"fmt"
	"strconv"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// PlacementEntry is where the writers of one datacenter of a run across several connect.
type PlacementEntry struct {
	// Name is the CassandraDatacenter's, as spec.datacenters names it; Datacenter the
	// Cassandra datacenter, the writers' local one.
	Name, Datacenter string
	// Host is the datacenter's CQL contact point, Port its native port.
	Host string
	Port int32
}

// FormatPlacement renders entries as Placement holds them.
func FormatPlacement(entries []PlacementEntry) string {
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = fmt.Sprintf("%s=%s@%s:%d", e.Name, e.Datacenter, e.Host, e.Port)
	}
	return strings.Join(parts, ",")
}

// ParsePlacement reads what FormatPlacement rendered.
func ParsePlacement(s string) ([]PlacementEntry, error) {
	var out []PlacementEntry
	for _, entry := range strings.Split(s, ",") {
		name, rest, ok1 := strings.Cut(entry, "=")
		dc, hostPort, ok2 := strings.Cut(rest, "@")
		i := strings.LastIndex(hostPort, ":")
		if !ok1 || !ok2 || i < 0 || name == "" || dc == "" {
			return nil, fmt.Errorf("%s entry %q is not name=datacenter@host:port", Placement, entry)
		}
		port, err := strconv.ParseInt(hostPort[i+1:], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s entry %q: port: %w", Placement, entry, err)
		}
		out = append(out, PlacementEntry{Name: name, Datacenter: dc, Host: hostPort[:i], Port: int32(port)})
	}
	return out, nil
}

// WriterDatacenter is the datacenter of a run across several that writer index runs in: the
// first datacenter of spec.datacenters takes the first indexes for its writers, and so on in
// the spec's order. ok is false when the writers there are fewer than index+1.
func WriterDatacenter(dcs []cbv1.RunDatacenter, index int) (name string, ok bool) {
	first := 0
	for _, d := range dcs {
		if index < first+int(d.Writers) {
			return d.Name, true
		}
		first += int(d.Writers)
	}
	return "", false
}
