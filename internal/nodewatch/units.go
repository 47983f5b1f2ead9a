package nodewatch

import (
	"math"
	"strconv"
	"strings"
)

// LatencyUnit is what one unit of a *_latency virtual table's *_ms columns is worth in
// microseconds on a node of the given release_version, and the resolution of the values in
// microseconds (the table rounds to three decimals).
//
// The tables scale their timer's snapshot by 1e-6 (TableMetricTables' NS_TO_MS), written for
// timers in nanoseconds. Cassandra 4.1 made the latency timers' reservoirs count microseconds
// (LatencyMetrics takes CassandraMetricsRegistry.createReservoir(MICROSECONDS) in
// cassandra-all 4.1.10 and 5.0.9; 4.0.19 keeps a nanosecond reservoir) but kept that scale, so
// on 4.1.x and 5.0.x the "_ms" columns hold seconds rounded to the millisecond (upstream's
// later fix is tested by testLatencyIsReportedInMilliseconds). 4.0 and later versions hold
// milliseconds, as the columns say. ok is false when the version cannot be read: a figure of
// unknown unit is not reported.
func LatencyUnit(version string) (micros float64, resolutionMicros int64, ok bool) {
	major, minor, found := majorMinor(version)
	switch {
	case !found:
		return 0, 0, false
	case major == 5 && minor == 0, major == 4 && minor == 1:
		return 1e6, 1000, true
	default:
		return 1e3, 1, true
	}
}

// majorMinor reads "5.0.9" (or "5.0-beta1", "4.1.3-SNAPSHOT") as 5, 0.
func majorMinor(version string) (int, int, bool) {
	parts := strings.SplitN(strings.TrimSpace(version), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	digits := func(s string) (int, bool) {
		end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
		if end == 0 {
			return 0, false
		}
		if end > 0 {
			s = s[:end]
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	major, ok1 := digits(parts[0])
	minor, ok2 := digits(parts[1])
	return major, minor, ok1 && ok2
}

// toMicros converts a latency table value to whole microseconds at unit (LatencyUnit).
func toMicros(v, unit float64) int64 {
	if math.IsNaN(v) || v <= 0 || unit <= 0 {
		return 0
	}
	return int64(math.Round(v * unit))
}
