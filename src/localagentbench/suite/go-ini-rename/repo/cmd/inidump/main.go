// Command inidump prints every value of an INI file as section.key=value.
package main

import (
	"fmt"
	"io"
	"os"

	"example.com/iniconf"
)

func main() {
	os.Exit(dump(os.Stdin, os.Stdout, os.Stderr))
}

func dump(in io.Reader, out, errOut io.Writer) int {
	f, err := iniconf.Parse(in)
	if err != nil {
		fmt.Fprintln(errOut, err)
		return 1
	}
	for _, s := range f.Sections() {
		for _, k := range f.Keys(s) {
			name := k
			if s != "" {
				name = s + "." + k
			}
			fmt.Fprintf(out, "%s=%s\n", name, f.GetString(s, k, ""))
		}
	}
	return 0
}
