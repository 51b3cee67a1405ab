package logstat

import (
	"bufio"
	"io"
	"strings"
)

// ReadAll parses every line of r. Blank lines and lines starting with '#'
// are skipped. Lines that cannot be parsed are returned as errors (in line
// order) and left out of the entries.
func ReadAll(r io.Reader) ([]Entry, []error, error) {
	var entries []Entry
	var bad []error
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 1024*1024)
	lineNo := 0
	for scanner.Scan() {
		lineNo++
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := ParseLine(line, lineNo)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		entries = append(entries, e)
	}
	return entries, bad, scanner.Err()
}
