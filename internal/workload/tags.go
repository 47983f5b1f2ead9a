package workload

import (
	"strconv"
	"time"
)

// appendTag writes the text of x in the column's format. Identity and bounded values must be
// one-to-one in x (up to the format's capacity); payload values only need to look right, so
// their random x is first reduced to the format's natural range.
func (g *valueGen) appendTag(b []byte, x uint64) []byte {
	payload := g.mode == modePayload
	switch g.format {
	case fmtHex:
		return appendHex(b, mix(x^g.salt))
	case fmtCode:
		if payload {
			x %= 26 * 26
		}
		return appendCode(b, x)
	case fmtIP:
		if payload {
			x &= 1<<32 - 1
		}
		return appendIP(b, x)
	case fmtDegrees:
		return appendDegrees(b, x%g.span, g.span)
	case fmtDigits:
		if payload {
			x %= pow10(g.width)
		}
		return appendDigits(b, x, g.width)
	case fmtDatetime:
		if payload {
			x %= tenYearsS
		}
		t := baseTime.Add(time.Duration(x%datetimeSpan) * time.Second)
		return t.AppendFormat(b, "2006-01-02T15:04:05Z")
	case fmtZone:
		return appendZone(b, x%zoneCount)
	}
	return appendWords(b, x, g.salt)
}

// appendWords spells x as one vocabulary word, then two, then hex: the three forms cannot
// meet (no word has a space or 16 letters), so the spelling is one-to-one.
func appendWords(b []byte, x, salt uint64) []byte {
	w := words()
	const v = vocabSize
	rot := salt % v
	if x < v {
		return append(b, w[(x+rot)%v]...)
	}
	if y := x - v; y < v*v {
		b = append(b, w[(y%v+rot)%v]...)
		b = append(b, ' ')
		return append(b, w[(y/v+rot)%v]...)
	}
	return appendHex(b, mix(x^salt))
}

func appendHex(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for s := 60; s >= 0; s -= 4 {
		b = append(b, digits[(v>>s)&0xf])
	}
	return b
}

func appendCode(b []byte, x uint64) []byte {
	c := x % (26 * 26)
	b = append(b, byte('A'+c/26), byte('A'+c%26))
	if x >= 26*26 {
		b = strconv.AppendUint(b, x/(26*26), 10)
	}
	return b
}

func appendIP(b []byte, x uint64) []byte {
	if x < 1<<32 {
		for s := 24; s >= 0; s -= 8 {
			b = strconv.AppendUint(b, (x>>s)&0xff, 10)
			if s > 0 {
				b = append(b, '.')
			}
		}
		return b
	}
	b = append(b, "2001:db8:"...)
	for s := 48; s >= 0; s -= 16 {
		b = append(b, ':')
		b = strconv.AppendUint(b, (x>>s)&0xffff, 16)
	}
	return b
}

// appendDegrees centres v in [0, span) on zero with four decimal places: 1800001 values span
// latitudes, 3600001 longitudes.
func appendDegrees(b []byte, v, span uint64) []byte {
	d := int64(v) - int64(span/2)
	if d < 0 {
		b = append(b, '-')
		d = -d
	}
	b = strconv.AppendInt(b, d/10000, 10)
	b = append(b, '.')
	return appendDigits(b, uint64(d%10000), 4)
}

func appendDigits(b []byte, x uint64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendUint(tmp[:0], x, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func appendZone(b []byte, z uint64) []byte {
	minutes := (int64(z) - 48) * 15
	b = append(b, "UTC"...)
	if minutes < 0 {
		b = append(b, '-')
		minutes = -minutes
	} else {
		b = append(b, '+')
	}
	b = appendDigits(b, uint64(minutes/60), 2)
	b = append(b, ':')
	return appendDigits(b, uint64(minutes%60), 2)
}

func pow10(n int) uint64 {
	p := uint64(1)
	for range min(n, 19) {
		p *= 10
	}
	return p
}
