package local

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/cassbench/cassbench/test/local/mgmtapi"
)

// serveMetrics serves a node pod's metrics endpoint (mgmtapi.Metrics) on port 9000 of the
// pod's address, where the management API's agent serves it in a cass-operator pod and
// where cassbench's writers read the nodes' CPU, GC and SSTables.
func serveMetrics(index int, node *mgmtapi.LocalNode) (*http.Server, error) {
	addr := net.JoinHostPort(NodeIP(index), strconv.Itoa(mgmtapi.MetricsPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("the metrics endpoint cannot listen on %s: %w", addr, err)
	}
	server := &http.Server{Addr: addr, Handler: mgmtapi.NewMetrics(node), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = server.Serve(ln) }()
	return server, nil
}
