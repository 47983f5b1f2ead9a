package workload

import (
	"sync"
)

// Text and blob values are windows into shared read-only pools: slicing costs nothing, so a
// row allocates only for what it boxes. The pools are far larger than the longest default
// value, so windows at hashed offsets rarely repeat within a compression chunk.
const (
	poolSize  = 1 << 20
	poolSlack = 64 << 10 // the longest value the shared pools serve
	vocabSize = 1024
)

var (
	vocabOnce sync.Once
	vocab     []string

	textOnce   sync.Once
	sharedText string

	blobOnce   sync.Once
	sharedBlob []byte

	// bigPools holds pools for values longer than poolSlack, one per size, so the generators of
	// every load goroutine share them.
	bigPools sync.Map
)

// words is a vocabulary of pronounceable, distinct words: text built from it compresses the
// way prose does, which the revisions experiment measures.
func words() []string {
	vocabOnce.Do(func() {
		const consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
		seen := map[string]bool{}
		for i := uint64(0); len(vocab) < vocabSize; i++ {
			h := mix(i ^ 0x766f636162)
			n := 1 + int(h%4)
			b := make([]byte, 0, 2*n)
			for s := range n {
				g := h >> (8 + 8*s)
				b = append(b, consonants[g%uint64(len(consonants))], vowels[(g>>5)%uint64(len(vowels))])
			}
			if w := string(b); !seen[w] {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
	})
	return vocab
}

func textPool(maxLen int) string {
	textOnce.Do(func() { sharedText = buildText(poolSize + poolSlack) })
	if maxLen <= poolSlack {
		return sharedText
	}
	v, _ := bigPools.LoadOrStore(poolKey{text: true, size: maxLen}, sync.OnceValue(func() any {
		return buildText(poolSize + maxLen)
	}))
	return v.(func() any)().(string)
}

func blobPool(maxLen int) []byte {
	blobOnce.Do(func() { sharedBlob = buildBlob(poolSize + poolSlack) })
	if maxLen <= poolSlack {
		return sharedBlob
	}
	v, _ := bigPools.LoadOrStore(poolKey{size: maxLen}, sync.OnceValue(func() any {
		return buildBlob(poolSize + maxLen)
	}))
	return v.(func() any)().([]byte)
}

type poolKey struct {
	text bool
	size int
}

// buildText strings vocabulary words drawn with a Zipf law, as word frequencies in prose are.
func buildText(size int) string {
	w := words()
	z, _ := newZipf(1)
	b := make([]byte, 0, size+16)
	for i := uint64(0); len(b) < size; i++ {
		h := mix(i ^ 0x74657874)
		b = append(b, w[z.rank(h, vocabSize)]...)
		if h>>58 == 0 {
			b = append(b, ".\n"...)
		} else {
			b = append(b, ' ')
		}
	}
	return string(b[:size])
}

// buildBlob is incompressible, as hashed or encrypted payloads are.
func buildBlob(size int) []byte {
	b := make([]byte, size+8)
	for i := 0; i < size; i += 8 {
		h := mix(uint64(i) ^ 0x626c6f62)
		for j := range 8 {
			b[i+j] = byte(h >> (8 * j))
		}
	}
	return b[:size]
}

// textWindow is n bytes of pool at an offset chosen by h.
func textWindow(pool string, h uint64, n int) string {
	off := below(h, uint64(len(pool)-n+1))
	return pool[off : off+uint64(n)]
}

// blobWindow is capped so that appending to it can never write into the pool.
func blobWindow(pool []byte, h uint64, n int) []byte {
	off := below(h, uint64(len(pool)-n+1))
	return pool[off : off+uint64(n) : off+uint64(n)]
}
