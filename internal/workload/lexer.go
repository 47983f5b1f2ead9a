package workload

import (
	"fmt"
	"strings"
)

type tokKind uint8

const (
	tkEOF tokKind = iota
	tkIdent
	tkQuoted // "Quoted" identifier, text unescaped
	tkString // 'string' or $$string$$ literal, text unescaped
	tkNumber
	tkPunct
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// is reports whether t is the keyword or punctuation s; keywords are case-insensitive.
func (t token) is(s string) bool {
	switch t.kind {
	case tkIdent:
		return strings.EqualFold(t.text, s)
	case tkPunct:
		return t.text == s
	}
	return false
}

func (t token) describe() string {
	if t.kind == tkEOF {
		return "end of statement"
	}
	return fmt.Sprintf("%q", t.text)
}

const punctuation = "()<>,.;={}[]:?*+-"

// lex splits CQL into tokens and drops comments. It knows strings, quoted names and comments,
// so a ';' or a quote inside them cannot end the statement early.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "--") || strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("comment at offset %d is not closed", i)
			}
			i += end + 4
		case c == '\'' || c == '"':
			text, n, err := lexQuoted(src[i:], c)
			if err != nil {
				return nil, fmt.Errorf("at offset %d: %w", i, err)
			}
			kind := tkString
			if c == '"' {
				kind = tkQuoted
			}
			toks = append(toks, token{kind: kind, text: text, pos: i})
			i += n
		case strings.HasPrefix(src[i:], "$$"):
			end := strings.Index(src[i+2:], "$$")
			if end < 0 {
				return nil, fmt.Errorf("string at offset %d is not closed", i)
			}
			toks = append(toks, token{kind: tkString, text: src[i+2 : i+2+end], pos: i})
			i += end + 4
		case isLetter(c):
			j := i + 1
			for j < len(src) && (isLetter(src[j]) || isDigit(src[j]) || src[j] == '_') {
				j++
			}
			toks = append(toks, token{kind: tkIdent, text: src[i:j], pos: i})
			i = j
		case isDigit(c) || (c == '-' && i+1 < len(src) && (isDigit(src[i+1]) || src[i+1] == '.')):
			j := i + 1
			for j < len(src) && (isDigit(src[j]) || isLetter(src[j]) || strings.IndexByte(".+-_", src[j]) >= 0) {
				j++
			}
			toks = append(toks, token{kind: tkNumber, text: src[i:j], pos: i})
			i = j
		case strings.IndexByte(punctuation, c) >= 0:
			toks = append(toks, token{kind: tkPunct, text: src[i : i+1], pos: i})
			i++
		default:
			return nil, fmt.Errorf("unexpected character %q at offset %d", c, i)
		}
	}
	return append(toks, token{kind: tkEOF, pos: len(src)}), nil
}

// lexQuoted reads a literal opened by q, where a doubled q stands for itself.
func lexQuoted(s string, q byte) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), i + 1, nil
	}
	if q == '"' {
		return "", 0, fmt.Errorf("quoted name is not closed")
	}
	return "", 0, fmt.Errorf("string is not closed")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// renderTokens writes tokens back as CQL with canonical spacing. Literals and names are
// re-quoted from their unescaped text, so what was one token stays one token.
func renderTokens(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && !noSpaceBetween(toks[i-1], t) {
			b.WriteByte(' ')
		}
		switch t.kind {
		case tkQuoted:
			b.WriteString(`"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`)
		case tkString:
			b.WriteString(quoteString(t.text))
		default:
			b.WriteString(t.text)
		}
	}
	return b.String()
}

func noSpaceBetween(prev, next token) bool {
	if next.kind == tkPunct && strings.Contains(",:)}].", next.text) {
		return true
	}
	return prev.kind == tkPunct && strings.Contains("({[.", prev.text)
}
