package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Apply returns the template with the point's values set at the axes' paths. The template is
// handled as JSON, so a path names JSON fields (writers.replicas, not Writers.Replicas). A path
// that is not a field of the BenchmarkRun spec, or a value that does not decode as the field's
// type, is an error naming the point and the path. Ranges, enums and cross-field rules are the
// apiserver's to check (the controller creates every point with a dry run first).
func Apply(template *cbv1.BenchmarkRunSpec, axes []cbv1.SweepAxis, p Point) (*cbv1.BenchmarkRunSpec, error) {
	if len(p.Values) != len(axes) {
		return nil, fmt.Errorf("%s has %d values for %d axes", Describe(axes, p), len(p.Values), len(axes))
	}
	data, err := json.Marshal(template)
	if err != nil {
		return nil, fmt.Errorf("encoding the template: %w", err)
	}
	var doc map[string]any
	if err := decodeJSON(data, &doc); err != nil {
		return nil, fmt.Errorf("decoding the template: %w", err)
	}
	for i, axis := range axes {
		if err := setPath(doc, axis.Path, p.Values[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", Describe(axes, p), err)
		}
	}
	data, err = json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the run spec: %w", Describe(axes, p), err)
	}
	out := &cbv1.BenchmarkRunSpec{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return nil, fmt.Errorf("%s: the run spec does not decode: %w", Describe(axes, p), err)
	}
	return out, nil
}

// ValidatePath checks that path names a field of the BenchmarkRun spec. Below a free-form
// section (datacenter.config.cassandra-yaml and its siblings) any key is accepted.
func ValidatePath(path string) error {
	_, err := resolve(path)
	return err
}

func setPath(doc map[string]any, path string, value intstr.IntOrString) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	v, isNull, err := jsonValue(t, value)
	if err != nil {
		return fmt.Errorf("%s: value %s is not %s: %w", path, Display(value), describe(t), err)
	}

	segs := strings.Split(path, ".")
	var cur any = doc
	for i, seg := range segs {
		last := i == len(segs)-1
		switch node := cur.(type) {
		case map[string]any:
			if last {
				if isNull {
					delete(node, seg)
				} else {
					node[seg] = v
				}
				return nil
			}
			next, ok := node[seg]
			if !ok || next == nil {
				if _, err := strconv.Atoi(segs[i+1]); err == nil {
					return fmt.Errorf("%s: %s is empty in the template, so it has no element %s", path, strings.Join(segs[:i+1], "."), segs[i+1])
				}
				next = map[string]any{}
				node[seg] = next
			}
			cur = next
		case []any:
			index, _ := strconv.Atoi(seg) // resolve checked that it is a number
			if index < 0 || index >= len(node) {
				return fmt.Errorf("%s: %s has %d elements in the template, so no element %d", path, strings.Join(segs[:i], "."), len(node), index)
			}
			if last {
				if isNull {
					return fmt.Errorf("%s: a list element cannot be removed with null", path)
				}
				node[index] = v
				return nil
			}
			if node[index] == nil {
				node[index] = map[string]any{}
			}
			cur = node[index]
		default:
			return fmt.Errorf("%s: %s is %s in the template, not an object", path, strings.Join(segs[:i], "."), jsonKind(cur))
		}
	}
	return nil
}

var (
	specType     = reflect.TypeFor[cbv1.BenchmarkRunSpec]()
	rawType      = reflect.TypeFor[runtime.RawExtension]()
	durationType = reflect.TypeFor[metav1.Duration]()
	quantityType = reflect.TypeFor[resource.Quantity]()
	unmarshaler  = reflect.TypeFor[json.Unmarshaler]()
)

// resolve walks path through the Go types of the BenchmarkRun spec and returns the type of
// the field it names, or nil for a field inside a free-form section.
func resolve(path string) (reflect.Type, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	segs := strings.Split(path, ".")
	t := specType
	for i, seg := range segs {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		at := strings.Join(segs[:i], ".")
		if at == "" {
			at = "the BenchmarkRun spec"
		}
		if seg == "" {
			return nil, fmt.Errorf("%s: empty path segment", path)
		}
		if t == rawType {
			return nil, nil
		}
		if isLeaf(t) {
			return nil, fmt.Errorf("%s: %s is %s and has no field %q", path, at, describe(t), seg)
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := jsonField(t, seg)
			if !ok {
				return nil, fmt.Errorf("%s: %s has no field %q; its fields are %s", path, at, seg, strings.Join(jsonFields(t), ", "))
			}
			t = f
		case reflect.Map:
			if t.Key().Kind() != reflect.String {
				return nil, fmt.Errorf("%s: %s is not keyed by strings", path, at)
			}
			t = t.Elem()
		case reflect.Slice, reflect.Array:
			if _, err := strconv.Atoi(seg); err != nil {
				return nil, fmt.Errorf("%s: %s is a list; index it with a number, not %q", path, at, seg)
			}
			t = t.Elem()
		default:
			return nil, fmt.Errorf("%s: %s is %s and has no field %q", path, at, describe(t), seg)
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawType {
		return nil, nil
	}
	return t, nil
}

// isLeaf tells whether a type decodes itself from JSON (a duration, a quantity), so a path
// cannot go below it.
func isLeaf(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(unmarshaler)
}

// jsonField finds the struct field encoding/json reads for name, looking into embedded
// structs the way encoding/json does.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		fieldName, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && fieldName == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if inner, ok := jsonField(ft, name); ok {
					return inner, true
				}
				continue
			}
		}
		if fieldName == "" {
			fieldName = f.Name
		}
		if fieldName == name {
			return f.Type, true
		}
	}
	return nil, false
}

// jsonFields lists the JSON field names of a struct, sorted, for error messages.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// jsonValue reads an axis value as the type of the field it goes into (nil for a field in a
// free-form section) and checks that it decodes as that type. isNull is true for an object or
// list field given "null": the field is removed.
func jsonValue(t reflect.Type, value intstr.IntOrString) (v any, isNull bool, err error) {
	isInt := value.Type == intstr.Int
	intJSON := json.Number(strconv.FormatInt(int64(value.IntVal), 10))
	if t == nil {
		if isInt {
			return intJSON, false, nil
		}
		if s := strings.TrimSpace(value.StrVal); strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
			if err := decodeJSON([]byte(s), &v); err == nil {
				return v, false, nil
			}
		}
		return value.StrVal, false, nil
	}
	switch t {
	case quantityType:
		v = value.StrVal
		if isInt {
			v = intJSON
		}
	case durationType:
		if isInt {
			return nil, false, errors.New("got a number")
		}
		v = value.StrVal
	default:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			if isInt {
				v = intJSON
				break
			}
			s := strings.TrimSpace(value.StrVal)
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				return nil, false, errors.New("got a string")
			}
			v = json.Number(s)
		case reflect.String:
			v = value.StrVal
			if isInt {
				v = string(intJSON)
			}
		case reflect.Bool:
			b, err := strconv.ParseBool(strings.TrimSpace(value.StrVal))
			if isInt || err != nil {
				return nil, false, errors.New(`write "true" or "false"`)
			}
			v = b
		default:
			if isInt {
				return nil, false, errors.New("got a number")
			}
			if err := decodeJSON([]byte(value.StrVal), &v); err != nil {
				return nil, false, fmt.Errorf("write it as JSON: %w", err)
			}
			if v == nil {
				return nil, true, nil
			}
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false, err
	}
	if err := decodeAs(t, data); err != nil {
		return nil, false, err
	}
	return v, false, nil
}

// decodeAs checks that raw decodes as a value of type t, refusing unknown object fields.
func decodeAs(t reflect.Type, raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(reflect.New(t).Interface()); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field == "" {
			return fmt.Errorf("got %s", typeErr.Value)
		}
		return err
	}
	return nil
}

func describe(t reflect.Type) string {
	switch t {
	case durationType:
		return `a duration such as "10m"`
	case quantityType:
		return `a quantity such as "500m" or 2`
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// decodeJSON decodes keeping numbers exact: an int64 must not pass through float64.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
