// Package promtext reads the Prometheus text exposition format as a management API's
// metrics endpoint serves it: one sample a line, `name{labels} value [timestamp]`, with
// comment lines (# HELP, # TYPE) between. It reads what cassbench needs, not the whole
// format: label values are taken up to their first quote, without unescaping.
package promtext

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Scan calls sample for every well-formed sample line read from r, skipping comments, blank
// lines and lines Sample refuses.
func Scan(r io.Reader, sample func(name, labels string, value float64)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if name, labels, value, ok := Sample(line); ok {
			sample(name, labels, value)
		}
	}
	return sc.Err()
}

// Sample splits `name{labels} value [timestamp]`; ok is false for a line that is not a
// sample, or whose value is negative or beyond 1e15 (no counter or gauge read here is).
func Sample(line string) (name, labels string, value float64, ok bool) {
	var rest string
	if i := strings.IndexByte(line, '{'); i >= 0 {
		j := strings.LastIndexByte(line, '}')
		if j < i {
			return "", "", 0, false
		}
		name, labels, rest = line[:i], line[i+1:j], line[j+1:]
	} else {
		sp := strings.IndexByte(line, ' ')
		if sp < 0 {
			return "", "", 0, false
		}
		name, rest = line[:sp], line[sp:]
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return "", "", 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 || v > 1e15 {
		return "", "", 0, false
	}
	return strings.TrimSpace(name), labels, v, true
}

// Label finds key="value" among a sample's labels; "" when absent. A label whose name ends
// with key (xgc="..." for gc) is passed over.
func Label(labels, key string) string {
	for from := 0; from < len(labels); {
		i := strings.Index(labels[from:], key+`="`)
		if i < 0 {
			return ""
		}
		i += from
		if i > 0 && labels[i-1] != ',' && labels[i-1] != ' ' {
			from = i + len(key)
			continue
		}
		v := labels[i+len(key)+2:]
		if j := strings.IndexByte(v, '"'); j >= 0 {
			return v[:j]
		}
		return ""
	}
	return ""
}
