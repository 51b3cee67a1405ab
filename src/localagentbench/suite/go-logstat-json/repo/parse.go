// Package logstat parses access logs and computes hourly traffic statistics.
package logstat

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Entry is one parsed request.
type Entry struct {
	Time    time.Time     // when the request happened, in the zone written in the log
	Method  string        // GET, POST, ...
	Path    string        // request target, query string included
	Status  int           // HTTP status code
	Bytes   int64         // response size
	Latency time.Duration // time to serve the request
}

// ParseError is a line that could not be parsed.
type ParseError struct {
	Line int    // 1-based line number
	Msg  string // what is wrong
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

const timeLayout = "02/Jan/2006:15:04:05 -0700"

// ParseLine parses one log line. lineNo is used in errors only.
func ParseLine(line string, lineNo int) (Entry, error) {
	fail := func(format string, args ...any) (Entry, error) {
		return Entry{}, &ParseError{Line: lineNo, Msg: fmt.Sprintf(format, args...)}
	}
	open := strings.IndexByte(line, '[')
	closing := strings.IndexByte(line, ']')
	if open < 0 || closing < open {
		return fail("no [timestamp]")
	}
	ts, err := time.Parse(timeLayout, line[open+1:closing])
	if err != nil {
		return fail("bad timestamp %q", line[open+1:closing])
	}
	rest := strings.TrimSpace(line[closing+1:])
	if !strings.HasPrefix(rest, `"`) {
		return fail("no quoted request")
	}
	end := strings.IndexByte(rest[1:], '"')
	if end < 0 {
		return fail("unterminated request")
	}
	request := strings.Fields(rest[1 : end+1])
	if len(request) != 3 {
		return fail("request should be METHOD TARGET PROTOCOL, got %q", rest[1:end+1])
	}
	fields := strings.Fields(rest[end+2:])
	if len(fields) != 3 {
		return fail("want status, bytes and latency after the request, got %d fields", len(fields))
	}
	status, err := strconv.Atoi(fields[0])
	if err != nil || status < 100 || status > 599 {
		return fail("bad status %q", fields[0])
	}
	var size int64
	if fields[1] != "-" {
		size, err = strconv.ParseInt(fields[1], 10, 64)
		if err != nil || size < 0 {
			return fail("bad size %q", fields[1])
		}
	}
	seconds, err := strconv.ParseFloat(fields[2], 64)
	if err != nil || seconds < 0 {
		return fail("bad latency %q", fields[2])
	}
	return Entry{
		Time:    ts,
		Method:  request[0],
		Path:    request[1],
		Status:  status,
		Bytes:   size,
		Latency: time.Duration(seconds * float64(time.Second)),
	}, nil
}
