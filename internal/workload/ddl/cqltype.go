package ddl

import (
	"fmt"
	"net"
	"reflect"
	"strings"
	"time"

	"gopkg.in/inf.v0"
)

// CQLType is a parsed column type: a native type, or list, set, map or frozen with arguments.
type CQLType struct {
	Name string
	Args []*CQLType
}

func (t *CQLType) String() string {
	if len(t.Args) == 0 {
		return t.Name
	}
	parts := make([]string, len(t.Args))
	for i, a := range t.Args {
		parts[i] = a.String()
	}
	return t.Name + "<" + strings.Join(parts, ", ") + ">"
}

// Unfrozen is the type that decides the Go value: frozen changes storage, not the value.
func (t *CQLType) Unfrozen() *CQLType {
	for t.Name == "frozen" {
		t = t.Args[0]
	}
	return t
}

func (t *CQLType) IsCollection() bool {
	switch t.Unfrozen().Name {
	case "list", "set", "map":
		return true
	}
	return false
}

// goTypes are the Go types gocql marshals for each native type; the writer binds values of
// exactly these types.
var goTypes = map[string]reflect.Type{
	"ascii":     reflect.TypeFor[string](),
	"text":      reflect.TypeFor[string](),
	"varchar":   reflect.TypeFor[string](),
	"blob":      reflect.TypeFor[[]byte](),
	"bigint":    reflect.TypeFor[int64](),
	"varint":    reflect.TypeFor[int64](),
	"int":       reflect.TypeFor[int32](),
	"smallint":  reflect.TypeFor[int16](),
	"tinyint":   reflect.TypeFor[int8](),
	"boolean":   reflect.TypeFor[bool](),
	"float":     reflect.TypeFor[float32](),
	"double":    reflect.TypeFor[float64](),
	"decimal":   reflect.TypeFor[inf.Dec](),
	"uuid":      reflect.TypeFor[[16]byte](),
	"timeuuid":  reflect.TypeFor[[16]byte](),
	"timestamp": reflect.TypeFor[time.Time](),
	"date":      reflect.TypeFor[time.Time](),
	"time":      reflect.TypeFor[time.Duration](),
	"inet":      reflect.TypeFor[net.IP](),
	// Counters are never generated (see colGen.counter); the type only says what they hold.
	"counter": reflect.TypeFor[int64](),
}

// refused names the types that parse but cannot be generated, and says why.
var refused = map[string]string{
	"duration": "duration values are not generated",
	"vector":   "vector values are not generated",
	"tuple":    "tuple values are not generated",
}

func GoType(t *CQLType) reflect.Type {
	u := t.Unfrozen()
	switch u.Name {
	case "list", "set":
		return reflect.SliceOf(GoType(u.Args[0]))
	case "map":
		return reflect.MapOf(GoKeyType(u.Args[0]), GoType(u.Args[1]))
	}
	return goTypes[u.Name]
}

// GoKeyType is the Go map key for a CQL map key: []byte and net.IP cannot be map keys, and
// gocql takes strings for both.
func GoKeyType(t *CQLType) reflect.Type {
	switch t.Unfrozen().Name {
	case "blob", "inet":
		return reflect.TypeFor[string]()
	}
	return GoType(t)
}

// checkType refuses what the generators cannot produce or Cassandra would refuse anyway, so a
// bad table fails at admission of the run rather than halfway through setup.
func checkType(t *CQLType) error {
	switch t.Name {
	case "frozen":
		inner := t.Args[0]
		switch inner.Name {
		case "list", "set", "map":
		default:
			return fmt.Errorf("%s: only collections can be frozen", t)
		}
		return checkType(inner)
	case "list", "set", "map":
		for _, a := range t.Args {
			switch a.Name {
			case "list", "set", "map":
				return fmt.Errorf("%s: a collection inside a collection must be frozen", t)
			}
			if err := checkType(a); err != nil {
				return err
			}
		}
		if t.Name == "map" {
			key := t.Args[0].Unfrozen()
			if key.Name == "decimal" || key.IsCollection() {
				return fmt.Errorf("%s: map keys of type %s are not supported", t, t.Args[0])
			}
		}
	}
	return nil
}
