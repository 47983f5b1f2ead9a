package workload

import (
	"fmt"
	"strings"
)

type colKind uint8

const (
	regularColumn colKind = iota
	partitionColumn
	clusteringColumn
)

type column struct {
	name   string
	typ    *cqlType
	static bool
	kind   colKind
}

// tableDef is a CREATE TABLE as understood here. Names are stored as Cassandra stores them:
// unquoted ones folded to lower case, quoted ones exactly.
type tableDef struct {
	keyspace   string // "" when the statement did not qualify the table
	name       string
	columns    []column
	partition  []int
	clustering []int
	options    []token // the WITH clause, without comments
}

// column finds a column by the name it is stored under, or failing that by the name folded as
// an unquoted identifier would be.
func (t *tableDef) column(name string) int {
	if i := t.exact(name); i >= 0 {
		return i
	}
	lower := strings.ToLower(name)
	for i, c := range t.columns {
		if c.name == lower {
			return i
		}
	}
	return -1
}

// exact finds a column by the name it is stored under, as names parsed from CQL are.
func (t *tableDef) exact(name string) int {
	for i, c := range t.columns {
		if c.name == name {
			return i
		}
	}
	return -1
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tkEOF {
		p.i++
	}
	return t
}

// accept consumes the next token if it is the keyword or punctuation s.
func (p *parser) accept(s string) bool {
	if p.peek().is(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(s string) error {
	if t := p.next(); !t.is(s) {
		return fmt.Errorf("expected %s at offset %d, found %s", s, t.pos, t.describe())
	}
	return nil
}

func (p *parser) name() (string, error) {
	t := p.next()
	switch t.kind {
	case tkIdent:
		return strings.ToLower(t.text), nil
	case tkQuoted:
		if t.text == "" {
			return "", fmt.Errorf("empty quoted name at offset %d", t.pos)
		}
		return t.text, nil
	}
	return "", fmt.Errorf("expected a name at offset %d, found %s", t.pos, t.describe())
}

// parseCreateTable reads one CREATE TABLE statement. It checks what the generators depend on
// (names, types, the primary key) and leaves table options to Cassandra.
func parseCreateTable(src string) (*tableDef, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	t := &tableDef{}
	if t.keyspace, t.name, err = p.createTable(); err != nil {
		return nil, err
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var columnKey []int // columns declared PRIMARY KEY on their own line
	var keyClause *[2][]string
	for {
		if p.accept("PRIMARY") {
			if err := p.expect("KEY"); err != nil {
				return nil, err
			}
			if keyClause != nil {
				return nil, fmt.Errorf("PRIMARY KEY is given twice")
			}
			part, clust, err := p.keyClause()
			if err != nil {
				return nil, err
			}
			keyClause = &[2][]string{part, clust}
		} else {
			c, isKey, err := p.columnDef()
			if err != nil {
				return nil, err
			}
			if t.exact(c.name) >= 0 {
				return nil, fmt.Errorf("column %q is declared twice", c.name)
			}
			if isKey {
				columnKey = append(columnKey, len(t.columns))
			}
			t.columns = append(t.columns, c)
		}
		if p.accept(",") {
			continue
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		break
	}
	if p.accept("WITH") {
		start := p.i
		for k := p.peek(); k.kind != tkEOF && !k.is(";"); k = p.peek() {
			p.next()
		}
		if p.i == start {
			return nil, fmt.Errorf("WITH at offset %d is followed by no options", p.toks[start].pos)
		}
		t.options = p.toks[start:p.i]
	}
	p.accept(";")
	if k := p.peek(); k.kind != tkEOF {
		return nil, fmt.Errorf("unexpected %s at offset %d after the statement: give a single CREATE TABLE", k.describe(), k.pos)
	}
	if err := t.setKey(columnKey, keyClause); err != nil {
		return nil, err
	}
	return t, t.check()
}

// createTable reads CREATE TABLE [IF NOT EXISTS] [keyspace.]name.
func (p *parser) createTable() (keyspace, name string, err error) {
	if err := p.expect("CREATE"); err != nil {
		return "", "", err
	}
	if err := p.expect("TABLE"); err != nil {
		return "", "", err
	}
	if p.accept("IF") {
		if err := p.expect("NOT"); err != nil {
			return "", "", err
		}
		if err := p.expect("EXISTS"); err != nil {
			return "", "", err
		}
	}
	if name, err = p.name(); err != nil {
		return "", "", err
	}
	if p.accept(".") {
		keyspace = name
		if name, err = p.name(); err != nil {
			return "", "", err
		}
	}
	return keyspace, name, nil
}

// keyClause reads "(a, b)", "((a, b), c, d)" or "((a), c)" after PRIMARY KEY.
func (p *parser) keyClause() (partition, clustering []string, err error) {
	if err := p.expect("("); err != nil {
		return nil, nil, err
	}
	if p.accept("(") {
		for {
			n, err := p.name()
			if err != nil {
				return nil, nil, err
			}
			partition = append(partition, n)
			if !p.accept(",") {
				break
			}
		}
		if err := p.expect(")"); err != nil {
			return nil, nil, err
		}
	} else {
		n, err := p.name()
		if err != nil {
			return nil, nil, err
		}
		partition = []string{n}
	}
	for p.accept(",") {
		n, err := p.name()
		if err != nil {
			return nil, nil, err
		}
		clustering = append(clustering, n)
	}
	return partition, clustering, p.expect(")")
}

func (p *parser) columnDef() (column, bool, error) {
	name, err := p.name()
	if err != nil {
		return column{}, false, err
	}
	typ, err := p.typ()
	if err != nil {
		return column{}, false, fmt.Errorf("column %q: %w", name, err)
	}
	c := column{name: name, typ: typ}
	isKey := false
	for {
		switch {
		case p.accept("STATIC"):
			c.static = true
		case p.accept("PRIMARY"):
			if err := p.expect("KEY"); err != nil {
				return column{}, false, err
			}
			isKey = true
		default:
			return c, isKey, nil
		}
	}
}

func (p *parser) typ() (*cqlType, error) {
	t := p.next()
	switch t.kind {
	case tkIdent:
	case tkQuoted:
		return nil, fmt.Errorf("type %q is a user-defined type, which is not supported", t.text)
	case tkString:
		return nil, fmt.Errorf("custom type %q is not supported", t.text)
	default:
		return nil, fmt.Errorf("expected a type at offset %d, found %s", t.pos, t.describe())
	}
	name := strings.ToLower(t.text)
	if why, ok := refused[name]; ok {
		return nil, fmt.Errorf("type %s is not supported: %s", name, why)
	}
	arity := map[string]int{"list": 1, "set": 1, "frozen": 1, "map": 2}[name]
	if arity == 0 {
		if goTypes[name] == nil || p.peek().is(".") {
			return nil, fmt.Errorf("type %s is a user-defined type, which is not supported", t.text)
		}
		return &cqlType{name: name}, nil
	}
	if err := p.expect("<"); err != nil {
		return nil, err
	}
	typ := &cqlType{name: name}
	for i := range arity {
		if i > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		a, err := p.typ()
		if err != nil {
			return nil, err
		}
		typ.args = append(typ.args, a)
	}
	return typ, p.expect(">")
}

func (t *tableDef) setKey(columnKey []int, clause *[2][]string) error {
	switch {
	case len(columnKey) > 1:
		return fmt.Errorf("columns %q and %q are both declared PRIMARY KEY: use a PRIMARY KEY (...) clause for a compound key", t.columns[columnKey[0]].name, t.columns[columnKey[1]].name)
	case len(columnKey) == 1 && clause != nil:
		return fmt.Errorf("column %q is declared PRIMARY KEY and there is a PRIMARY KEY clause too", t.columns[columnKey[0]].name)
	case len(columnKey) == 1:
		t.partition = columnKey
	case clause == nil:
		return fmt.Errorf("table %s has no primary key: declare a column PRIMARY KEY or add PRIMARY KEY (...)", t.name)
	default:
		seen := map[int]bool{}
		for part, names := range clause {
			for _, n := range names {
				i := t.exact(n)
				if i < 0 {
					return fmt.Errorf("primary key names column %q, which the table does not have", n)
				}
				if seen[i] {
					return fmt.Errorf("primary key names column %q twice", n)
				}
				seen[i] = true
				if part == 0 {
					t.partition = append(t.partition, i)
				} else {
					t.clustering = append(t.clustering, i)
				}
			}
		}
	}
	for _, i := range t.partition {
		t.columns[i].kind = partitionColumn
	}
	for _, i := range t.clustering {
		t.columns[i].kind = clusteringColumn
	}
	return nil
}

func (t *tableDef) check() error {
	for _, c := range t.columns {
		if err := checkType(c.typ); err != nil {
			return fmt.Errorf("column %q: %w", c.name, err)
		}
		switch {
		case c.kind != regularColumn && c.static:
			return fmt.Errorf("column %q is in the primary key and cannot be STATIC", c.name)
		case c.static && len(t.clustering) == 0:
			return fmt.Errorf("column %q is STATIC but the table has no clustering columns", c.name)
		case c.kind != regularColumn && c.typ.name != "frozen" && c.typ.isCollection():
			return fmt.Errorf("column %q is in the primary key, so its type %s must be frozen", c.name, c.typ)
		}
	}
	return t.checkCounters()
}

// optionNames lists the top-level options of a WITH clause, lower case, so that options the
// spec sets elsewhere can be refused when the statement sets them too.
func optionNames(toks []token) map[string]bool {
	names := map[string]bool{}
	depth, start := 0, true
	for i, t := range toks {
		switch {
		case t.is("(") || t.is("{") || t.is("["):
			depth++
		case t.is(")") || t.is("}") || t.is("]"):
			depth--
		case depth == 0 && t.is("AND"):
			start = true
			continue
		case start && t.kind == tkIdent && i+1 < len(toks) && toks[i+1].is("="):
			names[strings.ToLower(t.text)] = true
		case start && t.is("CLUSTERING"):
			names["clustering order"] = true
		}
		start = false
	}
	return names
}
