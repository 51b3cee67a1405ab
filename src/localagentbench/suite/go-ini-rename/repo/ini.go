// Package iniconf reads INI configuration files.
package iniconf

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// SyntaxError is a line of the file that is not valid INI.
type SyntaxError struct {
	Line int    // 1-based line number
	Msg  string // what is wrong
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("ini: line %d: %s", e.Line, e.Msg) }

type section struct {
	name   string
	keys   []string
	values map[string]string
}

// File is a parsed INI file.
type File struct {
	sections []*section
	byName   map[string]*section
}

func newFile() *File {
	f := &File{byName: map[string]*section{}}
	f.section("")
	return f
}

func (f *File) section(name string) *section {
	if s, ok := f.byName[name]; ok {
		return s
	}
	s := &section{name: name, values: map[string]string{}}
	f.sections = append(f.sections, s)
	f.byName[name] = s
	return s
}

// Parse reads an INI file.
func Parse(r io.Reader) (*File, error) {
	f := newFile()
	current := f.section("")
	scanner := bufio.NewScanner(r)
	lineNo := 0
	for scanner.Scan() {
		lineNo++
		line := strings.TrimSpace(scanner.Text())
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") {
				return nil, &SyntaxError{Line: lineNo, Msg: "section header without ]"}
			}
			name := strings.ToLower(strings.TrimSpace(line[1 : len(line)-1]))
			if name == "" {
				return nil, &SyntaxError{Line: lineNo, Msg: "empty section name"}
			}
			current = f.section(name)
			continue
		}
		sep := strings.IndexAny(line, "=:")
		if sep < 0 {
			return nil, &SyntaxError{Line: lineNo, Msg: fmt.Sprintf("expected key = value, got %q", line)}
		}
		key := strings.ToLower(strings.TrimSpace(line[:sep]))
		if key == "" {
			return nil, &SyntaxError{Line: lineNo, Msg: "empty key"}
		}
		value, err := parseValue(line[sep+1:])
		if err != nil {
			return nil, &SyntaxError{Line: lineNo, Msg: err.Error()}
		}
		if _, seen := current.values[key]; !seen {
			current.keys = append(current.keys, key)
		}
		current.values[key] = value
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

// parseValue turns the text after the separator into the value: a quoted
// string with escapes, or bare text; either may be followed by an inline
// comment (';' or '#' after whitespace).
func parseValue(raw string) (string, error) {
	text := strings.TrimSpace(raw)
	if strings.HasPrefix(text, `"`) {
		return parseQuoted(text)
	}
	return strings.TrimSpace(stripComment(raw)), nil
}

// stripComment removes an inline comment: ';' or '#' preceded by whitespace.
func stripComment(text string) string {
	for i := 1; i < len(text); i++ {
		if (text[i] == ';' || text[i] == '#') && (text[i-1] == ' ' || text[i-1] == '\t') {
			return text[:i]
		}
	}
	return text
}

func parseQuoted(text string) (string, error) {
	var b strings.Builder
	for i := 1; i < len(text); i++ {
		c := text[i]
		switch c {
		case '"':
			rest := strings.TrimSpace(text[i+1:])
			if rest != "" && rest[0] != ';' && rest[0] != '#' {
				return "", fmt.Errorf("unexpected %q after the closing quote", rest)
			}
			return b.String(), nil
		case '\\':
			if i+1 == len(text) {
				return "", fmt.Errorf("unterminated quoted value")
			}
			i++
			switch text[i] {
			case '"':
				b.WriteByte('"')
			case '\\':
				b.WriteByte('\\')
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return "", fmt.Errorf("unknown escape \\%c in quoted value", text[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("unterminated quoted value")
}

// Sections lists the section names in file order ("" first).
func (f *File) Sections() []string {
	out := make([]string, 0, len(f.sections))
	for _, s := range f.sections {
		out = append(out, s.name)
	}
	return out
}

// Keys lists the keys of a section in file order (nil for an unknown section).
func (f *File) Keys(sectionName string) []string {
	s, ok := f.byName[strings.ToLower(sectionName)]
	if !ok {
		return nil
	}
	return append([]string(nil), s.keys...)
}

// Get returns the raw value of a key and whether it exists.
func (f *File) Get(sectionName, key string) (string, bool) {
	s, ok := f.byName[strings.ToLower(sectionName)]
	if !ok {
		return "", false
	}
	v, ok := s.values[strings.ToLower(key)]
	return v, ok
}
