package nodeops

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCalls sends each operation to a server standing for the management API and checks the
// method, path and body it got, and that an error status becomes an error with its text.
func TestCalls(t *testing.T) {
	type call struct{ Method, Path, Type, Body string }
	var got []call
	fail := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, call{r.Method, r.URL.Path, r.Header.Get("Content-Type"), string(b)})
		if fail {
			http.Error(w, "Table bench.t does not exist", http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	p, _ := strconv.Atoi(port)
	c := Client{Port: p}
	ctx := context.Background()
	if err := c.Drain(ctx, host); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ctx, host, "bench", "t"); err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, host, "bench", "t"); err != nil {
		t.Fatal(err)
	}
	want := []call{
		{"POST", "/api/v0/ops/node/drain", "", ""},
		{"POST", "/api/v0/ops/tables/flush", "application/json", `{"jobs":1,"keyspace_name":"bench","tables":["t"]}`},
		{"POST", "/api/v0/ops/tables/compact", "application/json", `{"split_output":false,"user_defined":false,"keyspace_name":"bench","tables":["t"]}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	fail = true
	err := c.Flush(ctx, host, "bench", "t")
	if err == nil || !strings.Contains(err.Error(), "500 Internal Server Error: Table bench.t does not exist") {
		t.Errorf("failed flush: err = %v", err)
	}
}
