package ddl

import (
	"fmt"
	"strings"
)

// TokenKind is what a Token is.
type TokenKind uint8

const (
	TokEOF TokenKind = iota
	TokIdent
	TokQuoted // "Quoted" identifier, text unescaped
	TokString // 'string' or $$string$$ literal, text unescaped
	TokNumber
	TokPunct
)

// Token is one word, literal or punctuation of a statement; Pos is its byte offset.
type Token struct {
	Kind TokenKind
	Text string
	Pos  int
}

// Is reports whether t is the keyword or punctuation s; keywords are case-insensitive.
func (t Token) Is(s string) bool {
	switch t.Kind {
	case TokIdent:
		return strings.EqualFold(t.Text, s)
	case TokPunct:
		return t.Text == s
	}
	return false
}

func (t Token) Describe() string {
	if t.Kind == TokEOF {
		return "end of statement"
	}
	return fmt.Sprintf("%q", t.Text)
}

const punctuation = "()<>,.;={}[]:?*+-"

// Lex splits CQL into tokens and drops comments. It knows strings, quoted names and comments,
// so a ';' or a quote inside them cannot end the statement early.
func Lex(src string) ([]Token, error) {
	var toks []Token
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
			kind := TokString
			if c == '"' {
				kind = TokQuoted
			}
			toks = append(toks, Token{Kind: kind, Text: text, Pos: i})
			i += n
		case strings.HasPrefix(src[i:], "$$"):
			end := strings.Index(src[i+2:], "$$")
			if end < 0 {
				return nil, fmt.Errorf("string at offset %d is not closed", i)
			}
			toks = append(toks, Token{Kind: TokString, Text: src[i+2 : i+2+end], Pos: i})
			i += end + 4
		case isLetter(c):
			j := i + 1
			for j < len(src) && (isLetter(src[j]) || isDigit(src[j]) || src[j] == '_') {
				j++
			}
			toks = append(toks, Token{Kind: TokIdent, Text: src[i:j], Pos: i})
			i = j
		case isDigit(c) || (c == '-' && i+1 < len(src) && (isDigit(src[i+1]) || src[i+1] == '.')):
			j := i + 1
			for j < len(src) && (isDigit(src[j]) || isLetter(src[j]) || strings.IndexByte(".+-_", src[j]) >= 0) {
				j++
			}
			toks = append(toks, Token{Kind: TokNumber, Text: src[i:j], Pos: i})
			i = j
		case strings.IndexByte(punctuation, c) >= 0:
			toks = append(toks, Token{Kind: TokPunct, Text: src[i : i+1], Pos: i})
			i++
		default:
			return nil, fmt.Errorf("unexpected character %q at offset %d", c, i)
		}
	}
	return append(toks, Token{Kind: TokEOF, Pos: len(src)}), nil
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

// RenderTokens writes tokens back as CQL with canonical spacing. Literals and names are
// re-quoted from their unescaped text, so what was one token stays one token.
func RenderTokens(toks []Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && !noSpaceBetween(toks[i-1], t) {
			b.WriteByte(' ')
		}
		switch t.Kind {
		case TokQuoted:
			b.WriteString(`"` + strings.ReplaceAll(t.Text, `"`, `""`) + `"`)
		case TokString:
			b.WriteString(QuoteString(t.Text))
		default:
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func noSpaceBetween(prev, next Token) bool {
	if next.Kind == TokPunct && strings.Contains(",:)}].", next.Text) {
		return true
	}
	return prev.Kind == TokPunct && strings.Contains("({[.", prev.Text)
}
