// Command logstat prints hourly traffic statistics of an access log.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"example.com/logstat"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command; it returns the exit status (2 for usage errors).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("logstat", flag.ContinueOnError)
	flags.SetOutput(stderr)
	top := flags.Int("top", 0, "also print the `N` most requested paths")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *top < 0 {
		fmt.Fprintln(stderr, "logstat: -top must not be negative")
		return 2
	}
	if flags.NArg() > 1 {
		fmt.Fprintln(stderr, "logstat: at most one FILE")
		return 2
	}
	input := stdin
	if flags.NArg() == 1 {
		f, err := os.Open(flags.Arg(0))
		if err != nil {
			fmt.Fprintf(stderr, "logstat: %v\n", err)
			return 1
		}
		defer f.Close()
		input = f
	}
	entries, bad, err := logstat.ReadAll(input)
	if err != nil {
		fmt.Fprintf(stderr, "logstat: %v\n", err)
		return 1
	}
	for _, b := range bad {
		fmt.Fprintf(stderr, "logstat: skipped %v\n", b)
	}
	if err := logstat.WriteText(stdout, logstat.Hourly(entries)); err != nil {
		fmt.Fprintf(stderr, "logstat: %v\n", err)
		return 1
	}
	if *top > 0 {
		if err := logstat.WriteTop(stdout, logstat.TopPaths(entries, *top)); err != nil {
			fmt.Fprintf(stderr, "logstat: %v\n", err)
			return 1
		}
	}
	return 0
}
