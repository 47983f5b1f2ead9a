package ddl

import (
	"fmt"
	"strings"
)

// ColumnKind is where a column stands in the primary key.
type ColumnKind uint8

const (
	// RegularColumn is outside the primary key.
	RegularColumn ColumnKind = iota
	// PartitionKeyColumn is part of the partition key.
	PartitionKeyColumn
	// ClusteringColumn is a clustering column.
	ClusteringColumn
)

// Column is one column of a Table, as declared.
type Column struct {
	Name   string
	Type   *CQLType
	Static bool
	Kind   ColumnKind
}

// Table is a CREATE TABLE as understood here. Names are stored as Cassandra stores them:
// unquoted ones folded to lower case, quoted ones exactly.
type Table struct {
	Keyspace      string // "" when the statement did not qualify the table
	Name          string
	Columns       []Column
	PartitionKey  []int
	ClusteringKey []int
	Options       []Token // the WITH clause, without comments
}

// Column finds a column by the name it is stored under, or failing that by the name folded as
// an unquoted identifier would be.
func (t *Table) Column(name string) int {
	if i := t.Exact(name); i >= 0 {
		return i
	}
	lower := strings.ToLower(name)
	for i, c := range t.Columns {
		if c.Name == lower {
			return i
		}
	}
	return -1
}

// Exact finds a column by the name it is stored under, as names parsed from CQL are.
func (t *Table) Exact(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

type parser struct {
	toks []Token
	i    int
}

func (p *parser) peek() Token { return p.toks[p.i] }

func (p *parser) next() Token {
	t := p.toks[p.i]
	if t.Kind != TokEOF {
		p.i++
	}
	return t
}

// accept consumes the next token if it is the keyword or punctuation s.
func (p *parser) accept(s string) bool {
	if p.peek().Is(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(s string) error {
	if t := p.next(); !t.Is(s) {
		return fmt.Errorf("expected %s at offset %d, found %s", s, t.Pos, t.Describe())
	}
	return nil
}

func (p *parser) name() (string, error) {
	t := p.next()
	switch t.Kind {
	case TokIdent:
		return strings.ToLower(t.Text), nil
	case TokQuoted:
		if t.Text == "" {
			return "", fmt.Errorf("empty quoted name at offset %d", t.Pos)
		}
		return t.Text, nil
	}
	return "", fmt.Errorf("expected a name at offset %d, found %s", t.Pos, t.Describe())
}

// ParseCreateTable reads one CREATE TABLE statement. It checks what the generators depend on
// (names, types, the primary key) and leaves table options to Cassandra.
func ParseCreateTable(src string) (*Table, error) {
	toks, err := Lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	t := &Table{}
	if t.Keyspace, t.Name, err = p.createTable(); err != nil {
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
			if t.Exact(c.Name) >= 0 {
				return nil, fmt.Errorf("column %q is declared twice", c.Name)
			}
			if isKey {
				columnKey = append(columnKey, len(t.Columns))
			}
			t.Columns = append(t.Columns, c)
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
		for k := p.peek(); k.Kind != TokEOF && !k.Is(";"); k = p.peek() {
			p.next()
		}
		if p.i == start {
			return nil, fmt.Errorf("WITH at offset %d is followed by no options", p.toks[start].Pos)
		}
		t.Options = p.toks[start:p.i]
	}
	p.accept(";")
	if k := p.peek(); k.Kind != TokEOF {
		return nil, fmt.Errorf("unexpected %s at offset %d after the statement: give a single CREATE TABLE", k.Describe(), k.Pos)
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

func (p *parser) columnDef() (Column, bool, error) {
	name, err := p.name()
	if err != nil {
		return Column{}, false, err
	}
	typ, err := p.typ()
	if err != nil {
		return Column{}, false, fmt.Errorf("column %q: %w", name, err)
	}
	c := Column{Name: name, Type: typ}
	isKey := false
	for {
		switch {
		case p.accept("STATIC"):
			c.Static = true
		case p.accept("PRIMARY"):
			if err := p.expect("KEY"); err != nil {
				return Column{}, false, err
			}
			isKey = true
		default:
			return c, isKey, nil
		}
	}
}

func (p *parser) typ() (*CQLType, error) {
	t := p.next()
	switch t.Kind {
	case TokIdent:
	case TokQuoted:
		return nil, fmt.Errorf("type %q is a user-defined type, which is not supported", t.Text)
	case TokString:
		return nil, fmt.Errorf("custom type %q is not supported", t.Text)
	default:
		return nil, fmt.Errorf("expected a type at offset %d, found %s", t.Pos, t.Describe())
	}
	name := strings.ToLower(t.Text)
	if why, ok := refused[name]; ok {
		return nil, fmt.Errorf("type %s is not supported: %s", name, why)
	}
	arity := map[string]int{"list": 1, "set": 1, "frozen": 1, "map": 2}[name]
	if arity == 0 {
		if goTypes[name] == nil || p.peek().Is(".") {
			return nil, fmt.Errorf("type %s is a user-defined type, which is not supported", t.Text)
		}
		return &CQLType{Name: name}, nil
	}
	if err := p.expect("<"); err != nil {
		return nil, err
	}
	typ := &CQLType{Name: name}
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
		typ.Args = append(typ.Args, a)
	}
	return typ, p.expect(">")
}

func (t *Table) setKey(columnKey []int, clause *[2][]string) error {
	switch {
	case len(columnKey) > 1:
		return fmt.Errorf("columns %q and %q are both declared PRIMARY KEY: use a PRIMARY KEY (...) clause for a compound key", t.Columns[columnKey[0]].Name, t.Columns[columnKey[1]].Name)
	case len(columnKey) == 1 && clause != nil:
		return fmt.Errorf("column %q is declared PRIMARY KEY and there is a PRIMARY KEY clause too", t.Columns[columnKey[0]].Name)
	case len(columnKey) == 1:
		t.PartitionKey = columnKey
	case clause == nil:
		return fmt.Errorf("table %s has no primary key: declare a column PRIMARY KEY or add PRIMARY KEY (...)", t.Name)
	default:
		seen := map[int]bool{}
		for part, names := range clause {
			for _, n := range names {
				i := t.Exact(n)
				if i < 0 {
					return fmt.Errorf("primary key names column %q, which the table does not have", n)
				}
				if seen[i] {
					return fmt.Errorf("primary key names column %q twice", n)
				}
				seen[i] = true
				if part == 0 {
					t.PartitionKey = append(t.PartitionKey, i)
				} else {
					t.ClusteringKey = append(t.ClusteringKey, i)
				}
			}
		}
	}
	for _, i := range t.PartitionKey {
		t.Columns[i].Kind = PartitionKeyColumn
	}
	for _, i := range t.ClusteringKey {
		t.Columns[i].Kind = ClusteringColumn
	}
	return nil
}

func (t *Table) check() error {
	for _, c := range t.Columns {
		if err := checkType(c.Type); err != nil {
			return fmt.Errorf("column %q: %w", c.Name, err)
		}
		switch {
		case c.Kind != RegularColumn && c.Static:
			return fmt.Errorf("column %q is in the primary key and cannot be STATIC", c.Name)
		case c.Static && len(t.ClusteringKey) == 0:
			return fmt.Errorf("column %q is STATIC but the table has no clustering columns", c.Name)
		case c.Kind != RegularColumn && c.Type.Name != "frozen" && c.Type.IsCollection():
			return fmt.Errorf("column %q is in the primary key, so its type %s must be frozen", c.Name, c.Type)
		}
	}
	return t.checkCounters()
}

// OptionNames lists the top-level options of a WITH clause, lower case, so that options the
// spec sets elsewhere can be refused when the statement sets them too.
func OptionNames(toks []Token) map[string]bool {
	names := map[string]bool{}
	depth, start := 0, true
	for i, t := range toks {
		switch {
		case t.Is("(") || t.Is("{") || t.Is("["):
			depth++
		case t.Is(")") || t.Is("}") || t.Is("]"):
			depth--
		case depth == 0 && t.Is("AND"):
			start = true
			continue
		case start && t.Kind == TokIdent && i+1 < len(toks) && toks[i+1].Is("="):
			names[strings.ToLower(t.Text)] = true
		case start && t.Is("CLUSTERING"):
			names["clustering order"] = true
		}
		start = false
	}
	return names
}
