// Command goast reads a Go module with go/parser and prints, as one JSON object, what
// `localagentbench generate` needs from it: per file its package, whether it is a test
// file, its top-level declarations, the mutation sites of four operators (exact byte
// spans), and every call of a module function it makes (caller and callee).
//
// Usage: goast MODULE_ROOT
//
// Only the standard library is used, so it builds with any go >= 1.18 and no network.
package main

import (
	"bufio"
	"encoding/json"
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

type decl struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // function | method | type
	Line int    `json:"line"`
}

type mutation struct {
	Operator    string `json:"operator"`
	Line        int    `json:"line"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Text        string `json:"text"`
	Description string `json:"description"`
}

type call struct {
	Caller string `json:"caller"` // Func or Type.Method
	Owner  string `json:"owner"`  // import path of the callee's package
	Name   string `json:"name"`
}

type file struct {
	Rel       string     `json:"rel"`
	Dir       string     `json:"dir"` // import path of the file's folder
	Package   string     `json:"package"`
	Test      bool       `json:"test"`
	Decls     []decl     `json:"decls"`
	Mutations []mutation `json:"mutations"`
	Calls     []call     `json:"calls"`
}

type output struct {
	Module string `json:"module"`
	Files  []file `json:"files"`
}

type parsed struct {
	rel  string
	dir  string
	src  []byte
	ast  *ast.File
	test bool
}

var flips = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ,
	token.GEQ: token.GTR, token.EQL: token.NEQ, token.NEQ: token.EQL,
}

func modulePath(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	scan := bufio.NewScanner(f)
	for scan.Scan() {
		fields := strings.Fields(scan.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			if p, err := strconv.Unquote(fields[1]); err == nil {
				return p, nil
			}
			return fields[1], nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
}

func skipDir(root, p string, name string) bool {
	if p == root {
		return false
	}
	if name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := os.Stat(filepath.Join(p, "go.mod")) // a nested module is another project
	return err == nil
}

func load(root, module string, fset *token.FileSet) ([]parsed, error) {
	var files []parsed
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if skipDir(root, p, info.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		tree, err := parser.ParseFile(fset, rel, src, parser.ParseComments)
		if err != nil {
			return nil // a file that does not parse is left out, as the compiler would fail on it
		}
		dir := module
		if d := path.Dir(rel); d != "." {
			dir = module + "/" + d
		}
		files = append(files, parsed{rel, dir, src, tree, strings.HasSuffix(rel, "_test.go")})
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	return files, err
}

func receiver(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

// imports: name bound in the file -> import path, for the module's own packages.
func imports(f parsed, module string, names map[string]string) map[string]string {
	bound := map[string]string{}
	for _, spec := range f.ast.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil || (p != module && !strings.HasPrefix(p, module+"/")) {
			continue
		}
		name, ok := names[p]
		if !ok {
			continue
		}
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if name != "_" && name != "." {
			bound[name] = p
		}
	}
	return bound
}

// plusOne writes a bound one more as a person would (i -> i+1, 3 -> 4, n-1 -> n, n+1 ->
// n+2); false when only added brackets would say it, a visible mark of the mutation.
func plusOne(bound ast.Expr, text func(ast.Node) string) (string, bool) {
	switch b := bound.(type) {
	case *ast.BasicLit:
		if v, err := strconv.Atoi(b.Value); err == nil && b.Kind == token.INT {
			return strconv.Itoa(v + 1), true
		}
	case *ast.BinaryExpr:
		lit, ok := b.Y.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT || (b.Op != token.ADD && b.Op != token.SUB) {
			return "", false
		}
		v, err := strconv.Atoi(lit.Value)
		if err != nil {
			return "", false
		}
		if b.Op == token.SUB {
			v = -v
		}
		v++
		full := text(b)
		head := full[:len(full)-len(text(b.Y))] // X and the operator, spacing kept
		switch {
		case v == 0:
			return text(b.X), true
		case b.Op == token.ADD && v > 0:
			return head + strconv.Itoa(v), true
		case b.Op == token.SUB && v < 0:
			return head + strconv.Itoa(-v), true
		}
	case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr, *ast.IndexExpr:
		return text(b) + "+1", true
	}
	return "", false
}

// wholeLines widens [start, end) to the whole lines it spans when nothing else is on them,
// so a dropped statement leaves no blank, indented line behind.
func wholeLines(src []byte, start, end int) (int, int) {
	s := start
	for s > 0 && (src[s-1] == ' ' || src[s-1] == '\t') {
		s--
	}
	e := end
	for e < len(src) && (src[e] == ' ' || src[e] == '\t' || src[e] == '\r') {
		e++
	}
	if (s == 0 || src[s-1] == '\n') && (e == len(src) || src[e] == '\n') {
		if e < len(src) {
			e++
		}
		return s, e
	}
	return start, end
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goast MODULE_ROOT")
		os.Exit(2)
	}
	root, err := filepath.EvalSymlinks(os.Args[1]) // Walk does not follow a linked root
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	module, err := modulePath(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fset := token.NewFileSet()
	files, err := load(root, module, fset)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Package names of the module's folders, and the top-level functions of each package
	// (import path, or import path + "_test" for an external test package).
	names := map[string]string{}
	funcs := map[string]map[string]bool{}
	key := func(f parsed) string {
		if f.test && strings.HasSuffix(f.ast.Name.Name, "_test") {
			return f.dir + "_test"
		}
		return f.dir
	}
	for _, f := range files {
		if !f.test {
			names[f.dir] = f.ast.Name.Name
		}
		k := key(f)
		if funcs[k] == nil {
			funcs[k] = map[string]bool{}
		}
		for _, d := range f.ast.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				funcs[k][fn.Name.Name] = true
			}
		}
	}
	out := output{Module: module, Files: []file{}}
	for _, f := range files {
		out.Files = append(out.Files, scan(f, fset, module, names, funcs, key(f)))
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func scan(f parsed, fset *token.FileSet, module string, names map[string]string,
	funcs map[string]map[string]bool, own string) file {
	res := file{Rel: f.rel, Dir: f.dir, Package: f.ast.Name.Name, Test: f.test,
		Decls: []decl{}, Mutations: []mutation{}, Calls: []call{}}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	line := func(p token.Pos) int { return fset.Position(p).Line }
	text := func(n ast.Node) string { return string(f.src[off(n.Pos()):off(n.End())]) }
	bound := imports(f, module, names)
	// callee resolves a call's function to (package import path, name) when it is a
	// function of the module: a name of the file's own package (not a local variable), or
	// pkg.Name through an import of a module package.
	callee := func(fun ast.Expr) (string, string, bool) {
		switch x := fun.(type) {
		case *ast.Ident:
			if x.Obj != nil && x.Obj.Kind != ast.Fun {
				return "", "", false
			}
			if funcs[own][x.Name] {
				return own, x.Name, true
			}
		case *ast.SelectorExpr:
			pkg, ok := x.X.(*ast.Ident)
			if !ok || pkg.Obj != nil {
				return "", "", false
			}
			if p, ok := bound[pkg.Name]; ok && funcs[p][x.Sel.Name] {
				return p, x.Sel.Name, true
			}
		}
		return "", "", false
	}
	for _, d := range f.ast.Decls {
		switch x := d.(type) {
		case *ast.FuncDecl:
			kind := "function"
			if x.Recv != nil {
				kind = "method"
			}
			res.Decls = append(res.Decls, decl{x.Name.Name, kind, line(x.Pos())})
		case *ast.GenDecl:
			for _, s := range x.Specs {
				if t, ok := s.(*ast.TypeSpec); ok {
					res.Decls = append(res.Decls, decl{t.Name.Name, "type", line(t.Pos())})
				}
			}
		}
	}
	for _, d := range f.ast.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		caller := fn.Name.Name
		if r := receiver(fn); r != "" {
			caller = r + "." + caller
		}
		seen := map[string]bool{}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				p, name, ok := callee(x.Fun)
				if ok {
					k := p + "." + name
					if !seen[k] {
						seen[k] = true
						res.Calls = append(res.Calls, call{caller, p, name})
					}
				}
				if !f.test && ok && len(x.Args) == 2 && x.Ellipsis == token.NoPos {
					a, b := text(x.Args[0]), text(x.Args[1])
					if a != b && line(x.Args[0].Pos()) == line(x.Args[1].End()) {
						gap := string(f.src[off(x.Args[0].End()):off(x.Args[1].Pos())])
						res.Mutations = append(res.Mutations, mutation{"swap-args", line(x.Pos()),
							off(x.Args[0].Pos()), off(x.Args[1].End()), b + gap + a,
							fmt.Sprintf("the two arguments of a `%s` call swapped", name)})
					}
				}
			case *ast.BinaryExpr:
				if to, ok := flips[x.Op]; ok && !f.test {
					res.Mutations = append(res.Mutations, mutation{"compare-flip", line(x.OpPos),
						off(x.OpPos), off(x.OpPos) + len(x.Op.String()), to.String(),
						fmt.Sprintf("`%s` flipped to `%s`", x.Op, to)})
				}
			case *ast.SliceExpr:
				for _, bound := range []ast.Expr{x.Low, x.High} {
					if bound == nil || f.test {
						continue
					}
					if bumped, ok := plusOne(bound, text); ok {
						res.Mutations = append(res.Mutations, mutation{"off-by-one", line(bound.Pos()),
							off(bound.Pos()), off(bound.End()), bumped,
							"a slice bound one past where it was"})
					}
				}
			case *ast.ForStmt:
				if as, ok := x.Init.(*ast.AssignStmt); ok && !f.test && len(as.Rhs) == 1 {
					if lit, ok := as.Rhs[0].(*ast.BasicLit); ok && lit.Kind == token.INT {
						if v, err := strconv.Atoi(lit.Value); err == nil {
							res.Mutations = append(res.Mutations, mutation{"off-by-one",
								line(lit.Pos()), off(lit.Pos()), off(lit.End()), strconv.Itoa(v + 1),
								"a loop starting one later than it did"})
						}
					}
				}
			case *ast.BlockStmt:
				for _, st := range x.List {
					if ifs, ok := st.(*ast.IfStmt); ok && ifs.Else == nil && !f.test {
						start, end := wholeLines(f.src, off(ifs.Pos()), off(ifs.End()))
						res.Mutations = append(res.Mutations, mutation{"drop-branch", line(ifs.Pos()),
							start, end, "", "an `if` branch dropped"})
					}
				}
			}
			return true
		})
	}
	sort.SliceStable(res.Mutations, func(i, j int) bool {
		a, b := res.Mutations[i], res.Mutations[j]
		return a.Start < b.Start || (a.Start == b.Start && a.Operator < b.Operator)
	})
	return res
}
