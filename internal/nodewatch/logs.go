package nodewatch

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Logs is what a node's system_views.system_logs said inside the window. The table is fed
// only where logback.xml routes logs to it (Cassandra's VirtualTableAppender, off by
// default); Available is false elsewhere and the figures are then unknown, not zero.
type Logs struct {
	Available bool
	// GC pauses the GCInspector reported (those above gc_log_threshold, 200 ms by default).
	GCPauses, GCTotalMillis, GCMaxMillis int64
	// DroppedInternal are the messages the node reported dropping of its own requests
	// ("MUTATION_REQ messages were dropped in last 5000 ms: 3 internal and 12 cross node":
	// the 3). The cross-node ones are the internode tables' expired counts, read apart.
	DroppedInternal int64
	// Errors and Warnings logged; OutOfMemory lines among them.
	Errors, Warnings, OutOfMemory int64
	// Worst quotes the most serious line: an out-of-memory, else an error, else the longest
	// GC pause, else a warning; at most maxQuote bytes.
	Worst string
}

const maxQuote = 160

// Seriousness of a quoted line: out of memory, error, GC pause, warning.
const (
	warnRank = iota + 1
	gcRank
	errorRank
	oomRank
)

var (
	gcLine      = regexp.MustCompile(`^(.+?) GC in (\d+)ms`)
	droppedLine = regexp.MustCompile(`messages were dropped in last \d+ ms: (\d+) internal and \d+ cross node`)
)

// LogLine is one row of system_views.system_logs.
type LogLine struct {
	At            time.Time
	Level, Logger string
	Message       string
}

// ParseLogs sums the lines logged in [from, to].
func ParseLogs(lines []LogLine, from, to time.Time) Logs {
	out := Logs{Available: true}
	rank := 0 // of the line quoted in Worst
	// quote keeps msg if it is at least as serious as the line quoted so far.
	quote := func(r int, msg string) {
		if r < rank || r == rank && r != gcRank {
			return
		}
		rank = r
		if len(msg) > maxQuote {
			// Cut at a rune boundary: the quote travels in the summary and in status, where a
			// cut rune would show as garbage (found by FuzzParseLogs).
			cut := maxQuote - 3
			for cut > 0 && !utf8.RuneStart(msg[cut]) {
				cut--
			}
			msg = msg[:cut] + "..."
		}
		out.Worst = msg
	}
	for _, l := range lines {
		if l.At.Before(from) || l.At.After(to) {
			continue
		}
		msg := strings.TrimSpace(l.Message)
		if strings.HasSuffix(l.Logger, "GCInspector") {
			if m := gcLine.FindStringSubmatch(msg); m != nil {
				ms, _ := strconv.ParseInt(m[2], 10, 64)
				out.GCPauses++
				out.GCTotalMillis = addSat(out.GCTotalMillis, ms)
				if ms > out.GCMaxMillis {
					out.GCMaxMillis = ms
					quote(gcRank, msg) // the longest pause so far
				}
			}
		}
		if m := droppedLine.FindStringSubmatch(msg); m != nil {
			internal, _ := strconv.ParseInt(m[1], 10, 64)
			out.DroppedInternal = addSat(out.DroppedInternal, internal)
		}
		switch strings.ToUpper(l.Level) {
		case "ERROR":
			out.Errors++
			quote(errorRank, msg)
		case "WARN":
			out.Warnings++
			quote(warnRank, msg)
		}
		// "java.lang.OutOfMemoryError" is the error itself; the bare class name also appears in
		// JVM options (-XX:+HeapDumpOnOutOfMemoryError) logged at start.
		if strings.Contains(msg, "java.lang.OutOfMemoryError") || strings.Contains(strings.ToLower(msg), "out of memory") {
			out.OutOfMemory++
			quote(oomRank, msg)
		}
	}
	return out
}

// addSat adds counts a node logged (non-negative, as the patterns match only digits) without
// wrapping negative: a line may carry any number of digits that ParseInt accepts.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// maxLogRows bounds how much of the log table is read: it holds 50,000 rows by default.
const maxLogRows = 50000

// ReadLogs reads a node's log lines logged since from. A node whose table is empty or absent
// gives Available false.
func ReadLogs(ctx context.Context, s *gocql.Session, t Target, from, to time.Time) Logs {
	qctx, cancel := context.WithTimeout(ctx, 4*queryTimeout)
	defer cancel()
	iter := s.Query("SELECT timestamp, level, logger, message FROM system_views.system_logs WHERE timestamp >= ? ALLOW FILTERING", from).
		SetHostID(t.HostID).PageSize(5000).IterContext(qctx)
	var lines []LogLine
	var l LogLine
	for len(lines) < maxLogRows && iter.Scan(&l.At, &l.Level, &l.Logger, &l.Message) {
		lines = append(lines, l)
	}
	if iter.Close() != nil || len(lines) == 0 {
		// An empty table cannot be told from one nobody feeds: the usual case, unknown.
		return Logs{}
	}
	return ParseLogs(lines, from, to)
}
