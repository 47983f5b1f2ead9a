package setup

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The management API runs only inside cass-operator's Cassandra pods, which cannot run here
// (no container engine): a stand-in HTTP server plays it, and checks the request setup sends
// as the k8ssandra management API documents it (DELETE /api/v0/ops/node/snapshots with the
// keyspaces and snapshotNames query parameters).
func TestManagementAPIClearsNamedSnapshots(t *testing.T) {
	var got []url.Values
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodDelete || r.URL.Path != "/api/v0/ops/node/snapshots" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		got = append(got, r.URL.Query())
		w.WriteHeader(status)
	}))
	defer srv.Close()
	host, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	m := ManagementAPI{Port: p, Client: srv.Client()}

	names := []string{"dropped-1763880000000-key_value", "dropped-1763880000000-barrier"}
	if err := m.ClearSnapshots(context.Background(), host, "bench", names); err != nil {
		t.Fatal(err)
	}
	want := []url.Values{{"keyspaces": {"bench"}, "snapshotNames": names}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	status = http.StatusInternalServerError
	err = m.ClearSnapshots(context.Background(), host, "bench", names)
	if err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), host) {
		t.Errorf("a refused request gave %v, want an error naming the node and the status", err)
	}
}

func TestLocalNodetoolMapsAddressesToNodes(t *testing.T) {
	for _, tc := range []struct {
		offset int
		node   string
		want   string
	}{{0, "127.0.0.2", "2"}, {40, "127.0.0.41", "1"}} {
		got, err := LocalNodetool("hack/cassandra.sh", tc.offset).Command(tc.node)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"hack/cassandra.sh", "nodetool", "--node", tc.want}, got); diff != "" {
			t.Errorf("offset %d, %s: %s", tc.offset, tc.node, diff)
		}
	}
	for _, node := range []string{"10.0.0.2", "127.0.0.40", "127.0.0.0"} {
		if _, err := LocalNodetool("hack/cassandra.sh", 40).Command(node); err == nil {
			t.Errorf("%s, outside the local cluster at offset 40, was mapped to a node", node)
		}
	}
}
