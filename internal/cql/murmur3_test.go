package cql

import (
	"encoding/hex"
	"strconv"
	"testing"
)

func TestMurmur3Token(t *testing.T) {
	// Every tail length, then vectors of other drivers, as the driver's own tests have them.
	want := map[string]uint64{
		"hello":                     0xcbd8a7b341bd9b02,
		"hello, world":              0x342fac623a5ebc8e,
		"19 Jan 2038 at 3:14:07 AM": 0xb89e5988b737affc,
		"The quick brown fox jumps over the lazy dog.": 0xcd99481f9ee902c9,
	}
	series := []uint64{
		0x0000000000000000, 0x2ac9debed546a380, 0x649e4eaa7fc1708e, 0xce68f60d7c353bdb,
		0x0f95757ce7f38254, 0x0f04e459497f3fc1, 0x88c0a92586be0a27, 0x13eb9fb82606f7a6,
		0x8236039b7387354d, 0x4c1e87519fe738ba, 0x3f9652ac3effeb24, 0x3f33760ded9006c6,
		0xaed70a6631854cb1, 0x8a299a8f8e0e2da7, 0x624b675c779249a6, 0xa4b203bb1d90b9a3,
		0xa3293ad698ecb99a, 0xbc740023dbd50048, 0x3fe5ab9837d25cdd, 0x2d0338c1ca87d132,
	}
	s := ""
	for i, h := range series {
		want[s] = h
		s += strconv.Itoa(i % 10)
	}
	for in, h := range want {
		if got := murmur3Token([]byte(in)); got != int64(h) {
			t.Errorf("murmur3Token(%q) = %d, want %d", in, got, int64(h))
		}
	}
}

func TestMurmur3TokenSignedTail(t *testing.T) {
	key, err := hex.DecodeString("00104327529fb645dd00b883ec39ae448bb800000400066a6b00")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := murmur3Token(key), int64(-9223371632693506265); got != want {
		t.Errorf("murmur3Token = %d, want %d", got, want)
	}
}
