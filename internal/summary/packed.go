package summary

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
)

// errPacked says a packed point list ended mid-point or held a value above its bound.
var errPacked = errors.New("corrupt encoding")

// eachPacked reads a base64 list of points of fields uvarints each, as the timelines pack
// them, and calls point with each point's values; a value above limit, or a list that ends
// mid-point, is errPacked. point's error stops the reading and is returned.
func eachPacked(packed string, fields int, limit uint64, point func(v []uint64) error) error {
	b, err := base64.RawStdEncoding.DecodeString(packed)
	if err != nil {
		return err
	}
	v := make([]uint64, fields)
	for len(b) > 0 {
		for i := range v {
			x, n := binary.Uvarint(b)
			if n <= 0 || x > limit {
				return errPacked
			}
			v[i], b = x, b[n:]
		}
		if err := point(v); err != nil {
			return err
		}
	}
	return nil
}
