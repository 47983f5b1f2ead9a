// Package numfmt renders the counts and durations that the verdict, the anomalies and the
// report put into sentences and tables, so they read the same everywhere.
package numfmt

import (
	"fmt"
	"strconv"
	"strings"
)

// Count renders n with thousands separators: 1,204.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Millis renders a duration in milliseconds as "650 ms" or "4.2 s".
func Millis(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
}

// Cores renders millicores as cores to one decimal: "1.9 cores".
func Cores(millicores int64) string {
	return strconv.FormatFloat(float64(millicores)/1000, 'f', 1, 64) + " cores"
}
