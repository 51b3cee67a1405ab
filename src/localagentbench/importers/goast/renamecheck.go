//go:build ignore

// Command renamecheck lists where a Go module still refers to one of its top-level
// functions or types by a given name, read with go/parser: the declaration itself, the
// package's own uses of it (a local variable, parameter or field of that name is another
// object), and pkg.Name through an import of its package, aliases included. Words in
// comments and strings, methods and fields of the same name, and selectors on values are
// not references.
//
// Usage: go run renamecheck.go MODULE_ROOT IMPORT_PATH NAME
//
// Each reference is one line: file (relative to the root), line, start and end byte
// offsets, tab-separated. The exit status is 1 while any remains, 0 when none does.
// `localagentbench generate` renames with it and ships it with a Go rename task, whose
// `command` check runs it on the graded copy. Standard library only.
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

type place struct {
	rel        string
	line       int
	start, end int
}

func modulePath(root string) string {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	defer f.Close()
	scan := bufio.NewScanner(f)
	for scan.Scan() {
		fields := strings.Fields(scan.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			if p, err := strconv.Unquote(fields[1]); err == nil {
				return p
			}
			return fields[1]
		}
	}
	return ""
}

func topLevel(obj *ast.Object) bool {
	if obj == nil {
		return true // declared in another file of the package (or the universe)
	}
	switch d := obj.Decl.(type) {
	case *ast.FuncDecl:
		return d.Recv == nil
	case *ast.TypeSpec:
		return true
	}
	return false
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go run renamecheck.go MODULE_ROOT IMPORT_PATH NAME")
		os.Exit(2)
	}
	root, owner, name := os.Args[1], os.Args[2], os.Args[3]
	module := modulePath(root)
	if module == "" {
		fmt.Fprintln(os.Stderr, root+": no module line in go.mod")
		os.Exit(2)
	}
	fset := token.NewFileSet()
	var found []place
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		base := info.Name()
		if info.IsDir() {
			if p != root && (base == "vendor" || base == "testdata" ||
				strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(base, ".go") || base == "lab_rename_check.go" {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		file, err := parser.ParseFile(fset, rel, src, 0)
		if err != nil {
			return nil
		}
		dir := module
		if d := path.Dir(rel); d != "." {
			dir = module + "/" + d
		}
		own := dir == owner && !strings.HasSuffix(file.Name.Name, "_test")
		bound := map[string]bool{}
		for _, spec := range file.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil && p == owner {
				alias := path.Base(p)
				if spec.Name != nil {
					alias = spec.Name.Name
				}
				bound[alias] = true
			}
		}
		at := func(id *ast.Ident) {
			pos := fset.Position(id.Pos())
			found = append(found, place{rel, pos.Line, pos.Offset, pos.Offset + len(id.Name)})
		}
		skip := map[*ast.Ident]bool{}
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				skip[x.Sel] = true
				if pkg, ok := x.X.(*ast.Ident); ok && pkg.Obj == nil && bound[pkg.Name] && x.Sel.Name == name {
					at(x.Sel)
				}
			case *ast.FuncDecl:
				if x.Recv != nil {
					skip[x.Name] = true
				}
			case *ast.CompositeLit:
				for _, e := range x.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok {
							skip[k] = true // a field name, or a key left alone
						}
					}
				}
			case *ast.Field:
				for _, id := range x.Names {
					skip[id] = true
				}
			case *ast.Ident:
				if own && x.Name == name && !skip[x] && topLevel(x.Obj) {
					at(x)
				}
			}
			return true
		})
		return nil
	})
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i], found[j]
		return a.rel < b.rel || (a.rel == b.rel && a.start < b.start)
	})
	for _, p := range found {
		fmt.Printf("%s\t%d\t%d\t%d\n", p.rel, p.line, p.start, p.end)
	}
	if len(found) > 0 {
		fmt.Fprintf(os.Stderr, "%d place(s) still refer to %s.%s by that name\n", len(found), owner, name)
		os.Exit(1)
	}
}
