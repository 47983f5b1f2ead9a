package workload

import (
	"net"
	"reflect"
)

// count is how many elements the collection for x holds. Identity and bounded collections
// hold at least one: their first element is what keeps them distinct.
func (g *valueGen) count(x uint64) int {
	n := between(mix(x^g.salt^countSalt), g.minSize, g.maxSize)
	if g.mode != modePayload && n == 0 {
		n = 1
	}
	return n
}

// elemAt is the generator and number of element j of the collection for x.
func (g *valueGen) elemAt(x uint64, j int) (*valueGen, uint64) {
	if j == 0 && g.mode != modePayload {
		return g.elemID, x
	}
	return g.elem, g.elemHash(x, j)
}

func (g *valueGen) elemHash(x uint64, j int) uint64 {
	return mix((x ^ g.salt) + uint64(j+1)*golden)
}

// first is the element an index on the collection finds the row of x by: the first list or
// set element, the first map value.
func (g *valueGen) first(x uint64) any {
	if g.kind == kMap {
		v, _ := g.elem.value(g.elemHash(x, 0))
		return v
	}
	eg, ex := g.elemAt(x, 0)
	v, _ := eg.value(ex)
	return v
}

func (g *valueGen) list(x uint64) (any, int) {
	n := g.count(x)
	// The common element types skip reflection, which costs more than the values.
	switch g.elem.kind {
	case kText:
		return g.texts(x, n)
	case kInt:
		return ints[int32](g, x, n, 4)
	case kBigint:
		return ints[int64](g, x, n, 8)
	}
	total := 0
	out := reflect.MakeSlice(g.goType, n, n)
	for j := range n {
		eg, ex := g.elemAt(x, j)
		v, b := eg.value(ex)
		out.Index(j).Set(reflect.ValueOf(v))
		total += b
	}
	return out.Interface(), total
}

func (g *valueGen) texts(x uint64, n int) ([]string, int) {
	out := make([]string, n)
	total := 0
	for j := range out {
		eg, ex := g.elemAt(x, j)
		out[j] = eg.textOf(ex)
		total += len(out[j])
	}
	return out, total
}

// ints converts element numbers the way render does for integer types: by truncation.
func ints[T int32 | int64](g *valueGen, x uint64, n, size int) ([]T, int) {
	out := make([]T, n)
	for j := range out {
		_, ex := g.elemAt(x, j)
		out[j] = T(ex)
	}
	return out, n * size
}

// mapOf builds a map whose keys are distinct by construction: consecutive bounded keys from a
// hashed offset, and for identity maps the identity key first.
func (g *valueGen) mapOf(x uint64) (any, int) {
	n := min(uint64(g.count(x)), g.keySpace)
	off := below(mix(x^g.salt^keySalt), g.keySpace)
	keyAt := func(j uint64) (any, int) {
		if j == 0 && g.mode != modePayload {
			return mapKey(g.keyID, x)
		}
		return mapKey(g.key, (off+j)%g.keySpace)
	}
	total := 0
	if g.key.kind == kText && g.elem.kind == kText {
		out := make(map[string]string, n)
		for j := range n {
			k, kb := keyAt(j)
			v := g.elem.textOf(g.elemHash(x, int(j)))
			out[k.(string)] = v
			total += kb + len(v)
		}
		return out, total
	}
	if g.key.kind == kText && g.elem.kind == kList && g.elem.elem.kind == kText {
		out := make(map[string][]string, n)
		for j := range n {
			k, kb := keyAt(j)
			vx := g.elemHash(x, int(j))
			v, vb := g.elem.texts(vx, g.elem.count(vx))
			out[k.(string)] = v
			total += kb + vb
		}
		return out, total
	}
	out := reflect.MakeMapWithSize(g.goType, int(n))
	for j := range n {
		k, kb := keyAt(j)
		v, vb := g.elem.value(g.elemHash(x, int(j)))
		out.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(v))
		total += kb + vb
	}
	return out.Interface(), total
}

// mapKey converts the key types Go cannot use as map keys to the strings gocql takes for them.
func mapKey(g *valueGen, x uint64) (any, int) {
	v, n := g.value(x)
	switch k := v.(type) {
	case []byte:
		return string(k), n
	case net.IP:
		return k.String(), n
	}
	return v, n
}
