package nodeproc

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"time"
)

// GCTail reads a gc log's pauses sample by sample from where the previous reading stopped,
// so a sample costs the lines logged since the last one rather than the whole file (a busy
// node's log grows to its rotation size, 10 MiB in Cassandra's jvm options).
type GCTail struct {
	path string
	from time.Time // pauses before the window are not counted
	off  int64
}

// NewGCTail reads the gc log at path from its start, counting the pauses logged from from.
func NewGCTail(path string, from time.Time) *GCTail { return &GCTail{path: path, from: from} }

// Next sums the pauses logged since the previous reading, up to to. A line not yet ended, or
// a pause logged after to, is left for the next reading; a file smaller than the offset was
// rotated, and is read from its start.
func (g *GCTail) Next(to time.Time) (GCPauses, error) {
	f, err := os.Open(g.path)
	if err != nil {
		return GCPauses{}, err
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err == nil && st.Size() < g.off {
		g.off = 0
	}
	if _, err := f.Seek(g.off, io.SeekStart); err != nil {
		return GCPauses{}, err
	}
	var out GCPauses
	r := bufio.NewReaderSize(f, 64*1024)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return out, nil // EOF, or a line the JVM is still writing
		}
		if at, us, ok := parsePause(string(bytes.TrimRight(line, "\r\n"))); ok {
			if at.After(to) {
				return out, nil
			}
			if !at.Before(g.from) {
				out.add(us)
			}
		}
		g.off += int64(len(line))
	}
}
