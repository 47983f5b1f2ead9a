package sketch

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// encodingVersion 2 adds a flags byte (bit 0: the lowest bucket is a floor); version 1 is
// still read.
const encodingVersion = 2

// MarshalBinary encodes the sketch compactly: header, then bucket counts as uvarints with
// runs of empty buckets folded.
func (s *Sketch) MarshalBinary() ([]byte, error) {
	lo, hi := 0, len(s.counts)
	for lo < hi && s.counts[lo] == 0 && !s.floored {
		lo++
	}
	for hi > lo && s.counts[hi-1] == 0 && (hi > 1 || !s.floored) {
		hi--
	}
	buf := make([]byte, 0, 48+2*(hi-lo))
	var flags byte
	if s.floored {
		flags |= 1
	}
	buf = append(buf, encodingVersion, s.level, flags)
	buf = binary.AppendUvarint(buf, s.count)
	buf = binary.AppendUvarint(buf, s.zeros)
	buf = binary.AppendUvarint(buf, math.Float64bits(s.sum))
	buf = binary.AppendUvarint(buf, math.Float64bits(s.min))
	buf = binary.AppendUvarint(buf, math.Float64bits(s.max))
	buf = binary.AppendVarint(buf, int64(s.offset+lo))
	buf = binary.AppendUvarint(buf, uint64(hi-lo))
	for j := lo; j < hi; j++ {
		c := s.counts[j]
		if c != 0 {
			buf = binary.AppendUvarint(buf, c)
			continue
		}
		// A zero count is followed by the length of the run of zeros it starts.
		run := 1
		for j+run < hi && s.counts[j+run] == 0 {
			run++
		}
		buf = binary.AppendUvarint(buf, 0)
		buf = binary.AppendUvarint(buf, uint64(run))
		j += run - 1
	}
	return buf, nil
}

var errCorrupt = errors.New("sketch: corrupt encoding")

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *Sketch) UnmarshalBinary(b []byte) error {
	if len(b) < 2 {
		return errCorrupt
	}
	header := 2
	switch b[0] {
	case 1:
	case encodingVersion:
		header = 3
	default:
		return fmt.Errorf("sketch: unknown encoding version %d", b[0])
	}
	if b[1] > 30 || len(b) < header || (header == 3 && b[2]&^1 != 0) {
		return errCorrupt
	}
	r := reader{b: b[header:]}
	out := Sketch{level: b[1], floored: header == 3 && b[2]&1 != 0}
	out.count = r.uvarint()
	out.zeros = r.uvarint()
	out.sum = math.Float64frombits(r.uvarint())
	out.min = math.Float64frombits(r.uvarint())
	out.max = math.Float64frombits(r.uvarint())
	out.offset = int(r.varint())
	n := r.uvarint()
	// The bucket range comes from the pod: it must lie within the indexes a value can have,
	// so that a few bytes cannot make the decoder allocate more than maxBuckets counts, nor
	// later index arithmetic (Merge, addBucket) overflow.
	if r.err != nil || n > maxBuckets || out.offset < minIndex || out.offset > maxIndex-int(n)+1 {
		return errCorrupt
	}
	out.counts = make([]uint64, 0, n)
	var total uint64
	for uint64(len(out.counts)) < n {
		c := r.uvarint()
		if c == 0 {
			run := r.uvarint()
			// Compared as what is left, not as a sum: a run near 2^64 wrapped the sum below n
			// and made the append allocate it (found by FuzzUnmarshalBinary, input kept).
			if run == 0 || run > n-uint64(len(out.counts)) {
				return errCorrupt
			}
			out.counts = append(out.counts, make([]uint64, run)...)
			continue
		}
		total += c
		out.counts = append(out.counts, c)
	}
	if r.err != nil || len(r.b) != 0 || total+out.zeros != out.count || (out.floored && n == 0) {
		return errCorrupt
	}
	*s = out
	return nil
}

// MarshalJSON writes the binary encoding as a base64 string.
func (s *Sketch) MarshalJSON() ([]byte, error) {
	b, err := s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return json.Marshal(base64.RawStdEncoding.EncodeToString(b))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Sketch) UnmarshalJSON(data []byte) error {
	var str string
	if err := json.Unmarshal(data, &str); err != nil {
		return fmt.Errorf("sketch: %w", err)
	}
	b, err := base64.RawStdEncoding.DecodeString(str)
	if err != nil {
		return fmt.Errorf("sketch: %w", err)
	}
	return s.UnmarshalBinary(b)
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}
