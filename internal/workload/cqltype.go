package workload

import (
	"fmt"
	"net"
	"reflect"
	"strings"
	"time"

	"gopkg.in/inf.v0"
)

// cqlType is a parsed column type: a native type, or list, set, map or frozen with arguments.
type cqlType struct {
	name string
	args []*cqlType
}

func (t *cqlType) String() string {
	if len(t.args) == 0 {
		return t.name
	}
	parts := make([]string, len(t.args))
	for i, a := range t.args {
		parts[i] = a.String()
	}
	return t.name + "<" + strings.Join(parts, ", ") + ">"
}

// unfrozen is the type that decides the Go value: frozen changes storage, not the value.
func (t *cqlType) unfrozen() *cqlType {
	for t.name == "frozen" {
		t = t.args[0]
	}
	return t
}

func (t *cqlType) isCollection() bool {
	switch t.unfrozen().name {
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

func goType(t *cqlType) reflect.Type {
	u := t.unfrozen()
	switch u.name {
	case "list", "set":
		return reflect.SliceOf(goType(u.args[0]))
	case "map":
		return reflect.MapOf(goKeyType(u.args[0]), goType(u.args[1]))
	}
	return goTypes[u.name]
}

// goKeyType is the Go map key for a CQL map key: []byte and net.IP cannot be map keys, and
// gocql takes strings for both.
func goKeyType(t *cqlType) reflect.Type {
	switch t.unfrozen().name {
	case "blob", "inet":
		return reflect.TypeFor[string]()
	}
	return goType(t)
}

// checkType refuses what the generators cannot produce or Cassandra would refuse anyway, so a
// bad table fails at admission of the run rather than halfway through setup.
func checkType(t *cqlType) error {
	switch t.name {
	case "frozen":
		inner := t.args[0]
		switch inner.name {
		case "list", "set", "map":
		default:
			return fmt.Errorf("%s: only collections can be frozen", t)
		}
		return checkType(inner)
	case "list", "set", "map":
		for _, a := range t.args {
			switch a.name {
			case "list", "set", "map":
				return fmt.Errorf("%s: a collection inside a collection must be frozen", t)
			}
			if err := checkType(a); err != nil {
				return err
			}
		}
		if t.name == "map" {
			key := t.args[0].unfrozen()
			if key.name == "decimal" || key.isCollection() {
				return fmt.Errorf("%s: map keys of type %s are not supported", t, t.args[0])
			}
		}
	}
	return nil
}
