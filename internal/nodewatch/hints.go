package nodewatch

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Hints stored and delivered. Cassandra 5.0 counts them in two metrics, which only JMX and
// the management API's metrics endpoint serve (no virtual table does; system_views.
// pending_hints lists a hint file only once its writer closed it):
//   - StorageMetrics.TotalHints, every hint this node wrote as coordinator for a replica it
//     could not reach (org.apache.cassandra.metrics:type=Storage,name=TotalHints), which the
//     agent exports as org_apache_cassandra_metrics_storage_total_hints;
//   - HintsServiceMetrics.HintsSucceeded, every hint this node delivered
//     (type=HintsService,name=HintsSucceeded, a Meter: ..._hints_service_hints_succeeded_total).
//
// The names are the agent's (management-api-agent-common, CassandraMetricNameParser.clean:
// the Dropwizard name in snake case; CassandraMetricRegistryListener: a Counter as it is, a
// Meter with _total). For a node on the writer's machine, where no such endpoint answers,
// the hints are counted in the node's hints directory (system_views.settings
// hints_directory): a hints file holds its descriptor and then one record a hint, each framed
// by its size, the size's CRC32 and the record's CRC32 (org.apache.cassandra.hints
// HintsDescriptor.serialize and HintsReader), and it is deleted once its hints were delivered
// (HintsDispatchExecutor). So a record that appears is a hint stored, and the records of a
// file that goes are hints delivered. Hints reach the file when the node flushes its hint
// buffers (hints_flush_period, 10 s by default), so they show up to that much later than the
// metric counts them; a file written and delivered between two readings is not seen at all.

const (
	totalHintsMetric     = "org_apache_cassandra_metrics_storage_total_hints"
	hintsSucceededMetric = "org_apache_cassandra_metrics_hints_service_hints_succeeded_total"
)

// hintsDir is a node's hints directory, "" when it cannot be read.
func hintsDir(ctx context.Context, s *gocql.Session, t Target) string {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	var value string
	if err := s.Query("SELECT value FROM system_views.settings WHERE name = 'hints_directory'").
		SetHostID(t.HostID).ScanContext(qctx, &value); err != nil {
		return ""
	}
	return strings.TrimSpace(value)
}

// HintTally counts a hints directory's records as they come and go. Files only grow while
// written, so each is read on from where the last reading stopped.
type HintTally struct {
	dir   string
	files map[string]hintFile
	// stored and delivered since the tally began; the records of the files there at its
	// first reading are not counted as stored.
	stored, delivered int64
	read              bool // the directory was read at least once
}

type hintFile struct {
	offset, records int64
}

// NewHintTally counts the hints of dir from its first reading on.
func NewHintTally(dir string) *HintTally {
	return &HintTally{dir: dir, files: map[string]hintFile{}}
}

// Counts are the hints stored and delivered since the first reading.
func (h *HintTally) Counts() (stored, delivered int64) { return h.stored, h.delivered }

// Update reads the directory again and returns whether it could.
func (h *HintTally) Update() bool {
	if h == nil {
		return false
	}
	names, err := filepath.Glob(filepath.Join(h.dir, "*.hints"))
	if err != nil || h.dir == "" {
		return false
	}
	if _, err := os.Stat(h.dir); err != nil {
		return false
	}
	seen := map[string]bool{}
	for _, name := range names {
		seen[name] = true
		f := h.files[name]
		n, off, err := countHintRecords(name, f.offset)
		if err != nil {
			continue // compressed or encrypted, or gone meanwhile: counted by neither side
		}
		if h.read {
			h.stored += n
		}
		h.files[name] = hintFile{offset: off, records: f.records + n}
	}
	for name, f := range h.files {
		if !seen[name] {
			h.delivered += f.records
			delete(h.files, name)
		}
	}
	h.read = true
	return true
}

var errHintsFile = errors.New("hints file: compressed, encrypted or not a hints file")

// countHintRecords counts the whole hint records of a hints file from offset (0: the file's
// start, whose descriptor it skips) and returns the offset after the last whole record. A
// record not yet wholly written, or a size whose CRC does not match (the zeros of a file cut
// short), ends the count.
func countHintRecords(path string, offset int64) (records, end int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, offset, err
	}
	defer func() { _ = f.Close() }()
	if offset == 0 {
		if offset, err = skipDescriptor(f); err != nil {
			return 0, 0, err
		}
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return 0, offset, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var head [8]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return records, offset, nil
		}
		size := binary.BigEndian.Uint32(head[:4])
		if size == 0 || crc32.ChecksumIEEE(head[:4]) != binary.BigEndian.Uint32(head[4:]) {
			return records, offset, nil
		}
		if n, err := r.Discard(int(size) + 4); err != nil || n != int(size)+4 {
			return records, offset, nil
		}
		records++
		offset += 8 + int64(size) + 4
	}
}

// skipDescriptor reads a hints file's descriptor (version, timestamp, host ID, the JSON
// parameters' length and CRC, the parameters, their CRC) and returns where the records
// start. A file with compression or encryption parameters is refused: its records are in
// blocks this count does not read.
func skipDescriptor(f *os.File) (int64, error) {
	var head [36]byte // version 4, timestamp 8, host ID 16, length 4, CRC 4
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return 0, errHintsFile
	}
	n := binary.BigEndian.Uint32(head[28:32])
	if descriptorCRC(head[:32]) != binary.BigEndian.Uint32(head[32:36]) || n > 1<<20 {
		return 0, errHintsFile
	}
	params := make([]byte, n)
	if _, err := io.ReadFull(f, params); err != nil {
		return 0, errHintsFile
	}
	if p := string(params); strings.Contains(p, "compression") || strings.Contains(p, "encryption") {
		return 0, errHintsFile
	}
	return int64(len(head)) + int64(n) + 4, nil
}

// descriptorCRC is the CRC HintsDescriptor.serialize writes after the parameters' length: of
// each int as written, but of each long (timestamp, the host ID's halves) low half first.
func descriptorCRC(head []byte) uint32 {
	b := make([]byte, 0, 32)
	b = append(b, head[0:4]...)
	for at := 4; at < 28; at += 8 {
		b = append(append(b, head[at+4:at+8]...), head[at:at+4]...)
	}
	return crc32.ChecksumIEEE(append(b, head[28:32]...))
}
