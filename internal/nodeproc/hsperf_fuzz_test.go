package nodeproc

import (
	"encoding/binary"
	"testing"
)

// perfFile lays out an hsperfdata buffer as the JVM does (little-endian): the prologue, then
// one entry per counter, each a scalar long named name.
func perfFile(counters map[string]int64) []byte {
	var entries []byte
	for name, v := range counters {
		nameOff := perfEntryHeaderSize
		dataOff := (nameOff + len(name) + 1 + 7) / 8 * 8
		e := make([]byte, dataOff+8)
		binary.LittleEndian.PutUint32(e[0:], uint32(len(e)))
		binary.LittleEndian.PutUint32(e[4:], uint32(nameOff))
		e[12] = 'J'
		binary.LittleEndian.PutUint32(e[16:], uint32(dataOff))
		copy(e[nameOff:], name)
		binary.LittleEndian.PutUint64(e[dataOff:], uint64(v))
		entries = append(entries, e...)
	}
	p := make([]byte, perfPrologueSize)
	binary.BigEndian.PutUint32(p[0:], perfMagic)
	p[4], p[5], p[7] = 1, 2, 1 // little-endian, version 2.0, accessible
	binary.LittleEndian.PutUint32(p[8:], uint32(perfPrologueSize+len(entries)))
	binary.LittleEndian.PutUint32(p[24:], perfPrologueSize)
	binary.LittleEndian.PutUint32(p[28:], uint32(len(counters)))
	return append(p, entries...)
}

// FuzzParsePerfData: an hsperfdata file is whatever is at that path. Parsing never panics or
// reads past the buffer (TestPerfGCSumsTheCollectors checks what a valid file gives).
func FuzzParsePerfData(f *testing.F) {
	f.Add(perfFile(map[string]int64{"sun.os.hrt.frequency": 1_000_000_000, "sun.gc.collector.0.invocations": 7, "sun.gc.collector.0.time": 12_345_678}))
	f.Add(perfFile(nil))
	f.Add([]byte{0xca, 0xfe, 0xc0, 0xc0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := parsePerfData(data); err == nil {
			_, _ = perfGC(c)
		}
	})
}

// The collectors' counters sum as jstat sums them: 12,345,678 ticks at 1 GHz are 12.345678 ms.
func TestPerfGCSumsTheCollectors(t *testing.T) {
	c, err := parsePerfData(perfFile(map[string]int64{"sun.os.hrt.frequency": 1_000_000_000,
		"sun.gc.collector.0.invocations": 7, "sun.gc.collector.0.time": 12_345_678,
		"sun.gc.collector.1.invocations": 1, "sun.gc.collector.1.time": 2_000_000_000,
		"sun.gc.collector.3.invocations": 100, "sun.gc.collector.3.time": 1}))
	if err != nil {
		t.Fatal(err)
	}
	gc, ok := perfGC(c)
	if want := (PerfGC{Count: 8, Total: 2_012_345_678}); !ok || gc != want {
		t.Errorf("perfGC = %+v, %v; want %+v (collector 3 follows a gap: not one of the JVM's)", gc, ok, want)
	}
}
