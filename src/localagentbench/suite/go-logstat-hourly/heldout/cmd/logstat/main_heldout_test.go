package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHeldoutReportForOffsetLog(t *testing.T) {
	var b strings.Builder
	b.WriteString("# berlin proxy\n")
	for i := 1; i <= 20; i++ {
		status := "200"
		if i%10 == 0 {
			status = "502"
		}
		b.WriteString(`198.51.100.4 - - [10/Mar/2024:13:` + pad(i) + `:00 +0200] "GET /x HTTP/1.1" ` + status + " 100 0.0" + pad(i) + "\n")
	}
	var out, errOut bytes.Buffer
	if code := run(nil, strings.NewReader(b.String()), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := "hour (UTC)         requests  5xx  p50 ms  p95 ms     bytes\n" +
		"2024-03-10 11:00         20    2      10      19      2000\n"
	if out.String() != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
}

func pad(i int) string {
	if i < 10 {
		return "0" + string(rune('0'+i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}
