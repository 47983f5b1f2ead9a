package workload

import (
	"bytes"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// CSV is a file of column values with a header line, read whole: the rows of a run index
// into it, so every writer needs all of it.
type CSV struct {
	// Name says where the file came from, for messages.
	Name   string
	Header []string
	Rows   [][]string
}

// maxCSVBytes bounds the file: a ConfigMap holds at most 1 MiB, and a local file larger than
// this is better loaded some other way than held by every load goroutine's writer.
const maxCSVBytes = 64 << 20

// ReadCSVFile reads and parses a CSV file.
func ReadCSVFile(path string) (*CSV, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the CSV file: %w", err)
	}
	defer func() { _ = f.Close() }()
	return ParseCSV(path, io.LimitReader(f, maxCSVBytes+1))
}

// ParseCSV parses a CSV file: a header line naming the columns, then at least one row with as
// many fields. Errors name the file and line.
func ParseCSV(name string, r io.Reader) (*CSV, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(data) > maxCSVBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB", name, maxCSVBytes>>20)
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.ReuseRecord = false
	records, err := cr.ReadAll()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
			return nil, fmt.Errorf("%s line %d: has a different number of fields than the header line", name, pe.Line)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("%s is empty: it needs a header line naming the columns, then the rows", name)
	}
	if len(records) == 1 {
		return nil, fmt.Errorf("%s has a header line and no rows", name)
	}
	header := records[0]
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, fmt.Errorf("%s header line: column %d has no name", name, i+1)
		}
		if seen[h] {
			return nil, fmt.Errorf("%s header line: column %q appears twice", name, h)
		}
		seen[h] = true
		header[i] = h
	}
	return &CSV{Name: name, Header: header, Rows: records[1:]}, nil
}

// column is the index of a header name, or an error listing the names there are.
func (c *CSV) column(name string) (int, error) {
	for i, h := range c.Header {
		if h == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s has no column %q; its header names %s", c.Name, name, strings.Join(c.Header, ", "))
}

// csvValueGen renders a CSV column as the values of a column of type typ: row n of the run
// takes row n of the file, starting over at the end.
func csvValueGen(c *CSV, field string, typ *ddl.CQLType) (*valueGen, error) {
	col, err := c.column(field)
	if err != nil {
		return nil, err
	}
	k, ok := kinds[typ.Unfrozen().Name]
	if !ok || k == kList || k == kMap || k == kDecimal {
		return nil, fmt.Errorf("type %s cannot take CSV values: use text, a number type, boolean, uuid, timeuuid, timestamp, date, time, inet or blob (hex)", typ)
	}
	g := &valueGen{kind: k, typ: typ, goType: ddl.GoType(typ), mode: modeCycle, card: uint64(len(c.Rows))}
	g.boxed = make([]boxedValue, len(c.Rows))
	for i, rec := range c.Rows {
		v, n, err := parseCSVValue(k, strings.TrimSpace(rec[col]))
		if err != nil {
			// +2: lines count from 1 and the header is line 1.
			return nil, fmt.Errorf("%s line %d, column %s: %w", c.Name, i+2, field, err)
		}
		g.boxed[i] = boxedValue{v: v, n: n}
	}
	return g, nil
}

// parseCSVValue parses one field as the Go value the writer binds for kind k, and its size.
func parseCSVValue(k kind, s string) (any, int, error) {
	bad := func(what string) (any, int, error) {
		return nil, 0, fmt.Errorf("%q is not %s", s, what)
	}
	switch k {
	case kText:
		return s, len(s), nil
	case kBlob:
		b, err := parseHexBlob(s)
		if err != nil {
			return bad("a blob in hex (0x0a1b or 0a1b)")
		}
		return b, len(b), nil
	case kBigint, kInt, kSmallint, kTinyint, kBoolean, kFloat, kDouble:
		return parseCSVNumber(k, s)
	case kUUID, kTimeUUID:
		u, err := parseUUID(s)
		if err != nil || (k == kTimeUUID && u[6]>>4 != 1) {
			if k == kTimeUUID {
				return bad("a version 1 (time) UUID")
			}
			return bad("a UUID")
		}
		return u, 16, nil
	case kTimestamp, kDate, kTime:
		return parseCSVTime(k, s)
	case kInet:
		ip := net.ParseIP(s)
		if ip == nil {
			return bad("an IP address")
		}
		if v4 := ip.To4(); v4 != nil {
			ip = v4
		}
		return ip, len(ip), nil
	}
	return nil, 0, fmt.Errorf("no CSV parser for this type")
}

// parseCSVNumber parses the numeric and boolean kinds (parseCSVValue).
func parseCSVNumber(k kind, s string) (any, int, error) {
	bad := func(what string) (any, int, error) {
		return nil, 0, fmt.Errorf("%q is not %s", s, what)
	}
	switch k {
	case kBigint, kInt, kSmallint, kTinyint:
		bitsOf := map[kind]int{kBigint: 64, kInt: 32, kSmallint: 16, kTinyint: 8}[k]
		i, err := strconv.ParseInt(s, 10, bitsOf)
		if err != nil {
			return bad(fmt.Sprintf("an integer of %d bits", bitsOf))
		}
		switch k {
		case kInt:
			return int32(i), 4, nil
		case kSmallint:
			return int16(i), 2, nil
		case kTinyint:
			return int8(i), 1, nil
		}
		return i, 8, nil
	case kBoolean:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad("true or false")
		}
		return b, 1, nil
	case kFloat:
		f, err := strconv.ParseFloat(s, 32)
		if err != nil || math.IsInf(f, 0) {
			return bad("a float")
		}
		return float32(f), 4, nil
	case kDouble:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad("a double")
		}
		return f, 8, nil
	}
	return nil, 0, fmt.Errorf("no CSV parser for this type")
}

// parseCSVTime parses the kinds of time (parseCSVValue).
func parseCSVTime(k kind, s string) (any, int, error) {
	bad := func(what string) (any, int, error) {
		return nil, 0, fmt.Errorf("%q is not %s", s, what)
	}
	switch k {
	case kTimestamp:
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC(), 8, nil
		}
		if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.UnixMilli(ms).UTC(), 8, nil
		}
		return bad("an RFC 3339 time or milliseconds since 1970")
	case kDate:
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return bad("a date (2006-01-02)")
		}
		return t, 4, nil
	case kTime:
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 || d >= 24*time.Hour {
			return bad("a time of day as a duration below 24h (13h4m5s)")
		}
		return d, 8, nil
	}
	return nil, 0, fmt.Errorf("no CSV parser for this type")
}

func parseHexBlob(s string) ([]byte, error) {
	return hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
}

// parseUUID takes the 8-4-4-4-12 hex form.
func parseUUID(s string) ([16]byte, error) {
	var u [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, errors.New("not 8-4-4-4-12 hex digits")
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil {
		return u, err
	}
	copy(u[:], b)
	return u, nil
}
