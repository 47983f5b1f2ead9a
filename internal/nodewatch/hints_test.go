package nodewatch

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// hintsFile is a hints file as HintsDescriptor.serialize and HintsBuffer write one: the
// descriptor, then each record framed by its size, the size's CRC and a CRC after it.
func hintsFile(params string, records ...int) []byte {
	var head []byte
	head = binary.BigEndian.AppendUint32(head, 7)                  // version
	head = binary.BigEndian.AppendUint64(head, 1_790_000_000_000)  // timestamp
	head = binary.BigEndian.AppendUint64(head, 0x0123456789abcdef) // host ID
	head = binary.BigEndian.AppendUint64(head, 0xfedcba9876543210)
	head = binary.BigEndian.AppendUint32(head, uint32(len(params)))
	b := binary.BigEndian.AppendUint32(head, descriptorCRC(head))
	b = append(b, params...)
	b = binary.BigEndian.AppendUint32(b, 0) // the parameters' CRC: not checked
	for _, size := range records {
		b = appendRecord(b, size)
	}
	return b
}

func appendRecord(b []byte, size int) []byte {
	s := binary.BigEndian.AppendUint32(nil, uint32(size))
	b = append(b, s...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(s))
	b = append(b, make([]byte, size)...)
	return binary.BigEndian.AppendUint32(b, 0)
}

// Records are counted as the file grows, a record cut short is left for the next reading,
// and a file that goes counts its records as delivered.
func TestHintTally(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "a-1-7.hints")
	if err := os.WriteFile(old, hintsFile("{}", 10, 20), 0o644); err != nil {
		t.Fatal(err)
	}
	h := NewHintTally(dir)
	if !h.Update() || h.stored != 0 || h.delivered != 0 {
		t.Fatalf("first reading: %+v; the files there are the baseline", h)
	}
	grow := hintsFile("{}", 30, 40, 50)
	cut := appendRecord(nil, 60)[:20] // a record its writer has not finished
	file := filepath.Join(dir, "b-2-7.hints")
	if err := os.WriteFile(file, append(grow, cut...), 0o644); err != nil {
		t.Fatal(err)
	}
	if !h.Update() || h.stored != 3 {
		t.Fatalf("after a new file of 3 whole records and a partial one: stored %d", h.stored)
	}
	whole := append(append(grow, appendRecord(nil, 60)...), appendRecord(nil, 70)...)
	if err := os.WriteFile(file, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if !h.Update() || h.stored != 5 {
		t.Fatalf("after the file grew by 2 records: stored %d", h.stored)
	}
	if err := os.Remove(old); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if !h.Update() || h.stored != 5 || h.delivered != 7 {
		t.Fatalf("after both files went: stored %d, delivered %d; want 5 and 7", h.stored, h.delivered)
	}
	if err := os.WriteFile(filepath.Join(dir, "c-3-7.hints"), hintsFile(`{"compression":{"class_name":"LZ4Compressor"}}`, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	if !h.Update() || h.stored != 5 {
		t.Errorf("a compressed file counted: stored %d", h.stored)
	}
	if NewHintTally(filepath.Join(dir, "none")).Update() || NewHintTally("").Update() {
		t.Error("a missing directory read")
	}
}
