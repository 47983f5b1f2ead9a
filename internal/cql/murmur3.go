package cql

import "encoding/binary"

// This is Cassandra's Murmur3Partitioner hash, the same as the driver's internal/murmur
// (Apache License 2.0): the first 64 bits of MurmurHash3 x64/128, with the sign extension of
// tail bytes that Cassandra's Java implementation has. The driver does not export it, and the
// routing fast path needs the token without the driver boxing it.

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

func murmur3Token(data []byte) int64 {
	length := len(data)
	var h1, h2 uint64
	nBlocks := length / 16
	for i := 0; i < nBlocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
		h1 ^= mixK1(k1)
		h1 = rotl(h1, 27) + h2
		h1 = h1*5 + 0x52dce729
		h2 ^= mixK2(k2)
		h2 = rotl(h2, 31) + h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[nBlocks*16:]
	// Java's bytes are signed: a tail byte is sign-extended before it is shifted in.
	b := func(i int) uint64 { return uint64(int64(int8(tail[i]))) }
	var k1, k2 uint64
	switch length & 15 {
	case 15:
		k2 ^= b(14) << 48
		fallthrough
	case 14:
		k2 ^= b(13) << 40
		fallthrough
	case 13:
		k2 ^= b(12) << 32
		fallthrough
	case 12:
		k2 ^= b(11) << 24
		fallthrough
	case 11:
		k2 ^= b(10) << 16
		fallthrough
	case 10:
		k2 ^= b(9) << 8
		fallthrough
	case 9:
		k2 ^= b(8)
		h2 ^= mixK2(k2)
		fallthrough
	case 8:
		k1 ^= b(7) << 56
		fallthrough
	case 7:
		k1 ^= b(6) << 48
		fallthrough
	case 6:
		k1 ^= b(5) << 40
		fallthrough
	case 5:
		k1 ^= b(4) << 32
		fallthrough
	case 4:
		k1 ^= b(3) << 24
		fallthrough
	case 3:
		k1 ^= b(2) << 16
		fallthrough
	case 2:
		k1 ^= b(1) << 8
		fallthrough
	case 1:
		k1 ^= b(0)
		h1 ^= mixK1(k1)
	}
	h1 ^= uint64(length)
	h2 ^= uint64(length)
	h1 += h2
	h2 += h1
	h1 = fmix(h1)
	h2 = fmix(h2)
	return int64(h1 + h2)
}

func mixK1(k uint64) uint64 { return rotl(k*murmurC1, 31) * murmurC2 }
func mixK2(k uint64) uint64 { return rotl(k*murmurC2, 33) * murmurC1 }

func rotl(x uint64, r uint) uint64 { return x<<r | x>>(64-r) }

func fmix(n uint64) uint64 {
	n ^= n >> 33
	n *= 0xff51afd7ed558ccd
	n ^= n >> 33
	n *= 0xc4ceb9fe1a85ec53
	n ^= n >> 33
	return n
}
