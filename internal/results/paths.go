package results

import (
	"fmt"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/verdict"
)

// fallbackWorthSaying is the share of the direct path's inserts left to the driver above
// which the run says so among its anomalies: a run reported as Batched whose inserts went
// through the driver measured the driver.
const fallbackWorthSaying = 0.01

// writePaths adds up the writers' path counts; nil when none reported any.
func writePaths(reported []*summary.Summary) *cbv1.WritePathResults {
	var p summary.Paths
	seen := false
	for _, s := range reported {
		if s.Paths != nil {
			p.Add(s.Paths)
			seen = true
		}
	}
	if !seen {
		return nil
	}
	return &cbv1.WritePathResults{
		Direct: p.Direct, Driver: p.Driver,
		Fallbacks: cbv1.FallbackCounts{
			NoRoute: p.NoRoute, DialError: p.Dial, Handshake: p.Handshake, AuthChallenge: p.Auth, StreamsExhausted: p.Streams,
		},
		FallbackRatio: Ratio(p.FellBack(), p.Direct+p.FellBack()),
	}
}

// fellBackAnomaly is the sentence saying the direct path left over 1% of its inserts to the
// driver, or "".
func fellBackAnomaly(w *cbv1.WritePathResults) string {
	if w == nil {
		return ""
	}
	f := w.Fallbacks
	n := f.NoRoute + f.DialError + f.Handshake + f.AuthChallenge + f.StreamsExhausted
	given := w.Direct + n
	if given == 0 || float64(n) <= fallbackWorthSaying*float64(given) {
		return ""
	}
	var causes []string
	for _, c := range []struct {
		name string
		n    int64
	}{{"no route", f.NoRoute}, {"dial error", f.DialError}, {"handshake", f.Handshake}, {"auth challenge", f.AuthChallenge}, {"streams exhausted", f.StreamsExhausted}} {
		if c.n > 0 {
			causes = append(causes, fmt.Sprintf("%s %d", c.name, c.n))
		}
	}
	// At most about 200 characters: server.anomalies holds sentences of up to 256.
	return fmt.Sprintf("the writers' direct path left %d of %d inserts (%.1f%%) to the driver, which measured them (%s)",
		n, given, 100*float64(n)/float64(given), strings.Join(causes, ", "))
}

// addAnomaly puts a sentence among the run's anomalies, which live with the server's figures;
// a run whose writers read no node gets a server block holding the sentence alone.
func addAnomaly(out *cbv1.Results, sentence string) {
	if sentence == "" {
		return
	}
	if out.Server == nil {
		out.Server = &cbv1.ServerResults{}
	}
	a := out.Server.Anomalies
	if len(a) >= verdict.MaxAnomalies {
		a = a[:verdict.MaxAnomalies-1]
	}
	out.Server.Anomalies = append([]string{sentence}, a...)
}
