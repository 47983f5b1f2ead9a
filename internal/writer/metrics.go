package writer

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// collector reads the load goroutines' own counters when Prometheus scrapes, so metrics cost
// the hot path nothing beyond the bookkeeping the summary needs anyway.
type collector struct {
	st                                      *state
	ops, retries, bytes, latency, phaseDesc *prometheus.Desc
}

func newCollector(st *state, index int32) *collector {
	labels := prometheus.Labels{"writer": strconv.Itoa(int(index))}
	return &collector{
		st:        st,
		ops:       prometheus.NewDesc("cassbench_operations_total", "Operations finished, by kind and final outcome (warm-up included).", []string{"kind", "outcome"}, labels),
		retries:   prometheus.NewDesc("cassbench_retries_total", "Retries after a timeout, unavailable or overloaded error.", []string{"kind"}, labels),
		bytes:     prometheus.NewDesc("cassbench_value_bytes_total", "Value bytes written or read by successful operations.", []string{"kind"}, labels),
		latency:   prometheus.NewDesc("cassbench_response_latency_seconds", "Response latency of successful operations, from the intended start in open loop.", []string{"kind"}, labels),
		phaseDesc: prometheus.NewDesc("cassbench_phase", "0 waiting at the start barrier, 1 warm-up, 2 measured window, 3 done, 4 load stage.", nil, labels),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.ops, c.retries, c.bytes, c.latency, c.phaseDesc} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	t := c.st.totals(true)
	for k := range numKinds {
		if k > Read && t[k].ops() == 0 {
			// Kinds outside the mix would add series of zeros.
			continue
		}
		kind := k.String()
		for o := range numOutcomes {
			ch <- prometheus.MustNewConstMetric(c.ops, prometheus.CounterValue, float64(t[k].outcomes[o]), kind, o.String())
		}
		ch <- prometheus.MustNewConstMetric(c.retries, prometheus.CounterValue, float64(t[k].retries), kind)
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.CounterValue, float64(t[k].bytes), kind)
		buckets := make(map[float64]uint64, len(histBounds))
		var cum uint64
		for i, b := range histBounds {
			cum += t[k].hist[i]
			buckets[b/1e6] = cum
		}
		count := cum + t[k].hist[len(histBounds)]
		ch <- prometheus.MustNewConstHistogram(c.latency, count, t[k].histSum/1e6, buckets, kind)
	}
	ch <- prometheus.MustNewConstMetric(c.phaseDesc, prometheus.GaugeValue, float64(c.st.current().phase))
}

// serveMetrics serves /metrics on addr until ctx ends. A port already taken is reported but
// does not stop the benchmark: metrics are a convenience, the summary is the result.
func serveMetrics(ctx context.Context, addr string, c prometheus.Collector) (string, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener is gone; nothing left to serve
		}
	}()
	return ln.Addr().String(), nil
}
