package writer_test

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/testutil/builders"
	"github.com/cassbench/cassbench/internal/writer"
)

// Every built-in profile writes, and reads back along the path its experiment used.
func TestProfiles(t *testing.T) {
	c := cluster(t)
	tests := map[cbv1.TableProfile]struct {
		reads   int32
		path    cbv1.ReadPath
		indexes []cbv1.Index
	}{
		cbv1.ProfileKeyValue:    {reads: 1, path: cbv1.ReadPartition},
		cbv1.ProfileIPByCountry: {reads: 1, path: cbv1.ReadRow},
		cbv1.ProfileIPByCity:    {reads: 1, path: cbv1.ReadRow},
		cbv1.ProfileRevisions:   {reads: 1, path: cbv1.ReadPartition},
		cbv1.ProfileUserProfile: {reads: 1, path: cbv1.ReadPartition},
		cbv1.ProfileUserWide:    {reads: 1, path: cbv1.ReadIndex, indexes: []cbv1.Index{{Column: "email"}, {Column: "status"}}},
	}
	for profile, tc := range tests {
		t.Run(string(profile), func(t *testing.T) {
			s := spec("it_"+strings.ReplaceAll(string(profile), "-", "_"), func(b *builders.BenchmarkRunBuilder) {
				b.Profile(profile).Mix(3, tc.reads)
				b.Obj().Spec.Schema.Indexes = tc.indexes
			})
			s.Workload.ReadPath = tc.path
			setUp(t, c, s)
			sum := mustRun(t, c, s)[0]
			checkOps(t, "writes", sum.Writes)
			checkOps(t, "reads", sum.Reads)
			if sum.Writes.Bytes == 0 {
				t.Errorf("writes carried no value bytes")
			}
		})
	}
}

func checkOps(t *testing.T, what string, o *summary.Ops) {
	t.Helper()
	if o == nil || o.OK == 0 {
		t.Fatalf("no successful %s: %+v", what, o)
	}
	if o.Failed() != 0 {
		t.Errorf("%d of %d %s failed: %+v", o.Failed(), o.OK+o.Failed(), what, o)
	}
	if o.Response.Count() != uint64(o.OK) || o.Service.Count() != uint64(o.OK) {
		t.Errorf("%s sketches hold %d and %d values for %d successes", what, o.Response.Count(), o.Service.Count(), o.OK)
	}
}

// While a writer runs, /metrics serves its counters; when it is done, its successful
// operations in the metrics equal the summary's (there is no warm-up here).
func TestMetrics(t *testing.T) {
	c := cluster(t)
	s := spec("it_metrics", nil)
	s.Writers.Duration.Duration = 3 * time.Second
	setUp(t, c, s)
	addr := freeAddr(t)
	var scraped string
	var wg sync.WaitGroup
	wg.Add(1)
	stop := make(chan struct{})
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			resp, err := http.Get("http://" + addr + "/metrics")
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			scraped = string(b)
		}
	}()
	sum := mustRun(t, c, s, func(cfg *writer.Config) { cfg.MetricsAddr = addr })[0]
	close(stop)
	wg.Wait()
	m := regexp.MustCompile(`cassbench_operations_total\{kind="write",outcome="ok",writer="0"\} (\d+)`).FindStringSubmatch(scraped)
	if m == nil {
		t.Fatalf("no write ok counter in /metrics:\n%s", scraped)
	}
	if n, _ := strconv.ParseInt(m[1], 10, 64); n == 0 || n > sum.Writes.OK {
		t.Errorf("/metrics counted %d successful writes, the summary %d", n, sum.Writes.OK)
	}
	for _, want := range []string{"cassbench_response_latency_seconds_bucket", "cassbench_retries_total", "cassbench_phase"} {
		if !strings.Contains(scraped, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}

// freeAddr finds a port no one listens on, so that test processes running side by side do
// not collide.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
