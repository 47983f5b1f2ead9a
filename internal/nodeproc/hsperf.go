package nodeproc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A HotSpot JVM keeps its performance counters in a memory-mapped file,
// /tmp/hsperfdata_<user>/<pid>, which jstat and jcmd read: the garbage collectors'
// invocations and accumulated pause time among them, with no log needed. The layout is
// documented by the JVM's own headers and the readers in the JDK:
//   - OpenJDK src/hotspot/share/runtime/perfMemory.hpp: the prologue (magic 0xcafec0c0 in
//     big-endian, then byte order, major and minor version, accessible, used, overflow,
//     modification time stamp, the first entry's offset and the number of entries) and the
//     fixed part of each entry (its length, the offsets of its name and data from the entry's
//     start, vector length, type code, flags, units, variability);
//   - src/jdk.jcmd/share/classes/sun/tools/jstat/resources/jstat_options: what jstat -gcutil
//     prints, YGC/FGC/CGC = sun.gc.collector.{0,1,2}.invocations and
//     GCT = (sun.gc.collector.{0,1,2}.time summed) / sun.os.hrt.frequency.
//
// Cassandra's own jvm-server.options sets -XX:+PerfDisableSharedMem (no file) and logs GC
// to a file instead; a JVM started with default flags keeps the file and logs nothing.

// perfMagic opens every hsperfdata file, in big-endian whatever the byte order of the rest.
const perfMagic = 0xcafec0c0

// perfPrologueSize is the prologue's size: magic, four bytes, used, overflow, a time stamp,
// the entry offset and the entry count.
const perfPrologueSize = 4 + 4 + 4 + 4 + 8 + 4 + 4

// perfEntryHeaderSize is an entry's fixed part: length, name offset, vector length, four
// one-byte fields and the data offset.
const perfEntryHeaderSize = 4 + 4 + 4 + 4 + 4

// maxPerfFile bounds what is read: the JVM's default PerfDataMemorySize is 64 KiB.
const maxPerfFile = 16 << 20

// ReadPerfCounters reads the scalar long counters ('J') of an hsperfdata file by name.
func ReadPerfCounters(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, maxPerfFile))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	counters, err := parsePerfData(data)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return counters, nil
}

// parsePerfData walks an hsperfdata buffer's entries and keeps the scalar longs.
func parsePerfData(data []byte) (map[string]int64, error) {
	if len(data) < perfPrologueSize {
		return nil, fmt.Errorf("%d bytes, shorter than the prologue", len(data))
	}
	if m := binary.BigEndian.Uint32(data[0:4]); m != perfMagic {
		return nil, fmt.Errorf("magic %#x, not an hsperfdata file", m)
	}
	var order binary.ByteOrder = binary.BigEndian
	if data[4] == 1 {
		order = binary.LittleEndian
	}
	if major := data[5]; major != 2 {
		return nil, fmt.Errorf("hsperfdata version %d.%d, only 2.x is known", major, data[6])
	}
	if data[7] == 0 {
		return nil, fmt.Errorf("the JVM has not made its counters accessible yet")
	}
	used := int(order.Uint32(data[8:12]))
	off := int(order.Uint32(data[24:28]))
	entries := int(order.Uint32(data[28:32]))
	end := min(len(data), max(used, 0))
	out := map[string]int64{}
	for i := 0; i < entries; i++ {
		if off < perfPrologueSize || off+perfEntryHeaderSize > end {
			return nil, fmt.Errorf("entry %d at offset %d lies outside the %d bytes used", i, off, end)
		}
		e := data[off:]
		length := int(order.Uint32(e[0:4]))
		nameOff := int(order.Uint32(e[4:8]))
		vector := int(order.Uint32(e[8:12]))
		kind := e[12]
		dataOff := int(order.Uint32(e[16:20]))
		if length < perfEntryHeaderSize || off+length > end || nameOff >= length || dataOff > length {
			return nil, fmt.Errorf("entry %d at offset %d has a bad length or offsets", i, off)
		}
		entry := e[:length]
		name := entry[nameOff:]
		if z := bytes.IndexByte(name, 0); z >= 0 {
			name = name[:z]
		}
		if kind == 'J' && vector == 0 && dataOff+8 <= length {
			out[string(name)] = int64(order.Uint64(entry[dataOff : dataOff+8]))
		}
		off += length
	}
	return out, nil
}

// PerfGC is what a JVM's counters say of its stop-the-world collections so far: the
// invocations and accumulated time of every collector, as jstat -gcutil sums them in GCT.
type PerfGC struct {
	Count int64
	Total time.Duration
}

// perfGC sums the collectors' counters; ok is false when the file has none.
func perfGC(c map[string]int64) (PerfGC, bool) {
	freq := c["sun.os.hrt.frequency"]
	if freq <= 0 {
		return PerfGC{}, false
	}
	var out PerfGC
	var ticks int64
	found := false
	for i := 0; ; i++ {
		prefix := "sun.gc.collector." + strconv.Itoa(i) + "."
		inv, ok1 := c[prefix+"invocations"]
		t, ok2 := c[prefix+"time"]
		if !ok1 || !ok2 {
			break
		}
		found = true
		out.Count += inv
		ticks += t
	}
	// ticks/freq seconds, computed without overflowing: whole seconds, then the rest.
	out.Total = time.Duration(ticks/freq)*time.Second + time.Duration(ticks%freq)*time.Second/time.Duration(freq)
	return out, found
}

// ErrPerfDataOff is PerfData's error for a JVM whose flags turn the file off.
var ErrPerfDataOff = errors.New("it keeps no hsperfdata file")

// PerfData finds the JVM's hsperfdata file. The JVM names it by its pid in its own pid
// namespace, under /tmp of its own mount namespace, which /proc/PID/root shows whatever
// namespaces it runs in.
func (p *Process) PerfData() (string, error) {
	pid := strconv.Itoa(p.PID)
	nspid := pid
	if status, err := os.ReadFile(filepath.Join(procRoot, pid, "status")); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
				if f := strings.Fields(v); len(f) > 0 {
					nspid = f[len(f)-1]
				}
			}
		}
	}
	matches, _ := filepath.Glob(filepath.Join(procRoot, pid, "root", "tmp", "hsperfdata_*", nspid))
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
			return m, nil
		}
	}
	for _, a := range p.args {
		switch a {
		case "-XX:+PerfDisableSharedMem", "-XX:-UsePerfData":
			return "", fmt.Errorf("the JVM runs with %s: %w", a, ErrPerfDataOff)
		}
	}
	return "", fmt.Errorf("no hsperfdata file for pid %s under %s (another user's, or not readable)",
		pid, filepath.Join(procRoot, pid, "root", "tmp"))
}

// GCCounters reads the JVM's stop-the-world collections so far from its hsperfdata file at
// path (PerfData).
func GCCounters(path string) (PerfGC, error) {
	c, err := ReadPerfCounters(path)
	if err != nil {
		return PerfGC{}, err
	}
	gc, ok := perfGC(c)
	if !ok {
		return PerfGC{}, fmt.Errorf("%s holds no garbage collector counters", path)
	}
	return gc, nil
}
