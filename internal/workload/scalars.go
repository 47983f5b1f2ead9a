package workload

import (
	"encoding/binary"
	"net"
	"strings"
	"time"

	"gopkg.in/inf.v0"
)

// render is the value for x and its size in bytes. Integers truncate x: an identity number
// arrives already reduced to the type's capacity, a payload hash becomes a random value.
func (g *valueGen) render(x uint64) (any, int) {
	ident := g.mode != modePayload
	switch g.kind {
	case kText:
		s := g.textOf(x)
		return s, len(s)
	case kBlob:
		b := g.blobOf(x)
		return b, len(b)
	case kBigint:
		return int64(x), 8
	case kInt:
		return int32(x), 4
	case kSmallint:
		return int16(x), 2
	case kTinyint:
		return int8(x), 1
	case kBoolean:
		return x&1 == 1, 1
	case kFloat:
		if ident {
			return float32(x & (1<<24 - 1)), 4
		}
		return float32(unit(x) * 1000), 4
	case kDouble:
		if ident {
			return float64(x & (1<<53 - 1)), 8
		}
		return unit(x) * 1e6, 8
	case kDecimal:
		if !ident {
			x %= 1e9
		}
		return *inf.NewDec(int64(x), 2), 8
	case kUUID:
		return randomUUID(mix(x^g.salt), mix(x^g.salt^1)), 16
	case kTimeUUID:
		if ident {
			return timeUUID(x*10_000, g.salt), 16
		}
		return timeUUID(x%(tenYearsS*10_000_000), mix(x)), 16
	case kTimestamp:
		if !ident {
			x %= tenYearsS * 1000
		}
		return baseTime.Add(time.Duration(x) * time.Millisecond), 8
	case kDate:
		return baseDate.AddDate(0, 0, int(x%dateSpan)), 4
	case kTime:
		return time.Duration(x % timeOfDay), 8
	case kInet:
		return inetOf(x, ident), 16
	case kList:
		return g.list(x)
	case kMap:
		return g.mapOf(x)
	}
	panic("workload: no generator for " + g.typ.String())
}

func (g *valueGen) textOf(x uint64) string {
	if g.mode == modePayload && g.format == fmtWords {
		return textWindow(g.text, x, between(mix(x^sizeSalt), g.minSize, g.maxSize))
	}
	var tmp [64]byte
	tag := g.appendTag(tmp[:0], x)
	n := len(g.prefix) + len(tag) + len(g.suffix)
	size := n
	if g.maxSize > 0 {
		size = max(n, between(mix(x^g.salt^sizeSalt), g.minSize, g.maxSize))
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(g.prefix)
	b.Write(tag)
	b.WriteString(g.suffix)
	if size > n {
		b.WriteByte(' ')
		b.WriteString(textWindow(g.text, mix(x^g.salt), size-n-1))
	}
	return b.String()
}

func (g *valueGen) blobOf(x uint64) []byte {
	n := between(mix(x^g.salt^sizeSalt), g.minSize, g.maxSize)
	if g.mode == modePayload {
		return blobWindow(g.blob, x, n)
	}
	b := make([]byte, max(n, 8))
	binary.BigEndian.PutUint64(b, mix(x^g.salt))
	copy(b[8:], blobWindow(g.blob, mix(x^g.salt^1), len(b)-8))
	return b
}

// randomUUID is a version 4 UUID whose 64 bits of v all survive, so distinct v stay distinct.
func randomUUID(v, fill uint64) [16]byte {
	var u [16]byte
	binary.BigEndian.PutUint64(u[8:], fill)
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16)
	u[6] = 0x40 | byte(fill>>60)
	u[7] = byte(v >> 8)
	u[8] = 0x80 | u[8]&0x3f
	u[9] = byte(v)
	return u
}

// uuidEpoch is 2020-01-01 in 100 ns ticks since 1582-10-15, the version 1 UUID epoch.
const uuidEpoch = 0x01B21DD213814000 + 1577836800*10_000_000

// timeUUID is a version 1 UUID, which Cassandra requires of timeuuid values. Distinct ticks
// give distinct UUIDs whatever the clock sequence and node.
func timeUUID(ticks, clockNode uint64) [16]byte {
	t := uuidEpoch + ticks
	var u [16]byte
	binary.BigEndian.PutUint32(u[0:], uint32(t))
	binary.BigEndian.PutUint16(u[4:], uint16(t>>32))
	binary.BigEndian.PutUint16(u[6:], 0x1000|uint16(t>>48)&0x0fff)
	binary.BigEndian.PutUint64(u[8:], clockNode)
	u[8] = 0x80 | u[8]&0x3f
	return u
}

func inetOf(x uint64, ident bool) net.IP {
	if !ident || x < 1<<32 {
		return net.IP{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}
	}
	ip := make(net.IP, 16)
	ip[0], ip[1], ip[2], ip[3] = 0x20, 0x01, 0x0d, 0xb8
	binary.BigEndian.PutUint64(ip[8:], x)
	return ip
}
