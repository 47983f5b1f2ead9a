package workload

import (
	"reflect"
	"sync"

	"github.com/cassbench/cassbench/internal/workload/ddl"
)

// boxedValue is a value rendered ahead of time with its size.
type boxedValue struct {
	v any
	n int
}

// valueGen renders the value of one column (or collection element) for a number: the
// identity number, the bounded index, or a payload hash, by mode.
type valueGen struct {
	kind             kind
	typ              *ddl.CQLType
	goType           reflect.Type
	mode             mode
	card             uint64
	pick             picker
	minSize, maxSize int
	format           format
	span             uint64
	width            int
	prefix, suffix   string
	salt             uint64
	text             string
	blob             []byte
	// elem and key generate collection elements and map keys; elemID and keyID spell the
	// number of an identity or bounded collection in its first element, keeping it distinct.
	elem, elemID, key, keyID *valueGen
	keySpace                 uint64
	boxed                    []boxedValue
	// palette says boxed holds sample payload values, picked by hash, not one per index.
	palette bool
	// capacity is how many distinct identity values the type holds; 0 is more than any run.
	capacity uint64
}

// defaultSizes are the sizes of values whose column sets none. Only prose and blobs have a
// length of their own; formatted text is as long as its format.
func defaultSizes(k kind, m mode, f format) (int, int) {
	switch {
	case k == kList || k == kMap:
		return 1, 4
	case m == modePayload && (k == kBlob || k == kText && f == fmtWords):
		return 16, 64
	}
	return 0, 0
}

func newValueGen(typ *ddl.CQLType, p preset, salt uint64) (*valueGen, error) {
	u := typ.Unfrozen()
	g := &valueGen{
		kind: kinds[u.Name], typ: typ, goType: ddl.GoType(typ), mode: p.mode, card: p.card,
		minSize: p.minSize, maxSize: p.maxSize, format: p.format, span: p.span, width: p.width,
		prefix: p.prefix, suffix: p.suffix, salt: salt,
	}
	if !p.sized {
		g.minSize, g.maxSize = defaultSizes(g.kind, g.mode, g.format)
	}
	if g.mode == modeBounded {
		var err error
		if g.pick, err = newPicker(p.dist, p.card, p.zipf); err != nil {
			return nil, err
		}
	}
	if g.span == 0 {
		g.span = degreeSpan
	}
	if err := g.children(u); err != nil {
		return nil, err
	}
	switch g.kind {
	case kText:
		g.text = textPool(g.maxSize)
	case kBlob:
		g.blob = blobPool(g.maxSize)
	}
	g.capacity = g.identityCapacity()
	scalar := g.kind != kList && g.kind != kMap
	switch {
	case g.mode == modeBounded && scalar && g.card <= boxLimit && g.card*uint64(g.maxSize+48) <= boxBudget:
		g.box(p, g.card, func(i uint64) uint64 { return i })
	case g.mode == modePayload && g.kind == kText && g.format != fmtWords && g.format != fmtHex:
		g.box(p, paletteSize, func(i uint64) uint64 { return mix(i ^ g.salt) })
		g.palette = true
	}
	return g, nil
}

// children builds the generators of collection elements and map keys.
func (g *valueGen) children(u *ddl.CQLType) error {
	var err error
	// Elements are short words; nested collections keep the collection default of 1..4.
	elemPreset := func(t *ddl.CQLType) preset {
		if t.IsCollection() {
			return preset{}
		}
		return preset{sized: true, minSize: 4, maxSize: 12}
	}
	switch g.kind {
	case kList:
		if g.elem, err = newValueGen(u.Args[0], elemPreset(u.Args[0]), mix(g.salt^1)); err != nil {
			return err
		}
		if g.mode != modePayload {
			g.elemID, err = newValueGen(u.Args[0], preset{mode: modeIdentity}, mix(g.salt^2))
		}
	case kMap:
		if g.elem, err = newValueGen(u.Args[1], elemPreset(u.Args[1]), mix(g.salt^1)); err != nil {
			return err
		}
		g.keySpace = 1 << 16
		switch kinds[u.Args[0].Unfrozen().Name] {
		case kText:
			g.keySpace = vocabSize
		case kBoolean:
			g.keySpace = 2
		case kTinyint:
			g.keySpace = 256
		}
		keyPreset := preset{mode: modeBounded, card: g.keySpace}
		if g.key, err = newValueGen(u.Args[0], keyPreset, mix(g.salt^3)); err != nil {
			return err
		}
		if g.mode != modePayload {
			g.keyID, err = newValueGen(u.Args[0], preset{mode: modeIdentity}, mix(g.salt^4))
		}
	}
	return err
}

func (g *valueGen) identityCapacity() uint64 {
	switch g.kind {
	case kText:
		switch g.format {
		case fmtDegrees:
			return g.span
		case fmtZone:
			return zoneCount
		case fmtDatetime:
			return datetimeSpan
		}
	case kInt:
		return 1 << 32
	case kSmallint:
		return 1 << 16
	case kTinyint:
		return 1 << 8
	case kBoolean:
		return 2
	case kFloat:
		return 1 << 24
	case kDouble:
		return 1 << 53
	case kDate:
		return dateSpan
	case kTime:
		return timeOfDay
	case kList:
		if g.elemID != nil {
			return g.elemID.capacity
		}
	case kMap:
		if g.keyID != nil {
			return g.keyID.capacity
		}
	}
	return 0
}

type boxKey struct {
	typ  string
	p    preset
	salt uint64
}

// boxCache shares boxed tables between the generators of all load goroutines of a writer.
var boxCache sync.Map

// box renders n values once, the i-th for number at(i), so rows hand out the same boxed
// values without allocating.
func (g *valueGen) box(p preset, n uint64, at func(uint64) uint64) {
	build := sync.OnceValue(func() []boxedValue {
		out := make([]boxedValue, n)
		for i := range out {
			out[i].v, out[i].n = g.render(at(uint64(i)))
		}
		return out
	})
	v, _ := boxCache.LoadOrStore(boxKey{typ: g.typ.String(), p: p, salt: g.salt}, build)
	g.boxed = v.(func() []boxedValue)()
}

// choose is the number a non-key column renders for row (or partition) n.
func (g *valueGen) choose(n uint64) uint64 {
	switch g.mode {
	case modeIdentity:
		return n
	case modeBounded:
		return g.pick.pick(n, mix(n^g.salt))
	case modeCycle:
		return n % g.card
	}
	return mix(n ^ g.salt)
}

// value is the Go value for x and the bytes it carries.
func (g *valueGen) value(x uint64) (any, int) {
	if g.palette {
		b := &g.boxed[below(x, paletteSize)]
		return b.v, b.n
	}
	if x < uint64(len(g.boxed)) {
		b := &g.boxed[x]
		return b.v, b.n
	}
	return g.render(x)
}
