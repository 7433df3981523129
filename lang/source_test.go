package lang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// shown are the packages whose messages people read: their Sprintf calls
// on a Printer are the messages every language must have.
var shown = []string{"../bot", "../bot/delivery", "../stages", "../render", "../tools"}

// failing are the packages whose words reach people whole, printed by
// Printer.Message: each ryo.Error's Message, and what ryo.ErrorMessage
// says of an error without one; what a tool says it is doing (its Doing),
// and what stt says while it transcribes; the kinds of tools.
var failing = []string{"../agent", "../ollama", "../openai", "../modelpool", "..", "../tools", "../stt", "../toolbus"}

// source is one package's parsed files (tests left out), and the values of
// its string constants.
type source struct {
	fset   *token.FileSet
	files  map[string]*ast.File
	consts map[string]string
	// constDecl are the spans of const declarations: a literal there is a
	// constant's value, judged where the constant is used.
	constDecl []ast.Node
}

func parse(t *testing.T, dir string) source {
	t.Helper()
	s := source{fset: token.NewFileSet(), files: map[string]*ast.File{}, consts: map[string]string{}}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(s.fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		s.files[name] = f
	}
	// Constants may be made of constants: evaluate until nothing changes.
	for changed := true; changed; {
		changed = false
		s.eachConst(func(name string, value ast.Expr) {
			if _, done := s.consts[name]; done {
				return
			}
			if v, ok := s.constant(value); ok {
				s.consts[name], changed = v, true
			}
		})
	}
	return s
}

func (s *source) eachConst(f func(name string, value ast.Expr)) {
	for _, file := range s.files {
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				for i, n := range v.Names {
					if i < len(v.Values) {
						f(n.Name, v.Values[i])
					}
				}
			}
		}
	}
}

// constant is the value of a constant string expression: literals,
// constants of the package, and their sums.
func (s *source) constant(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(e.Value)
		return v, err == nil
	case *ast.Ident:
		v, ok := s.consts[e.Name]
		return v, ok
	case *ast.ParenExpr:
		return s.constant(e.X)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok1 := s.constant(e.X)
		y, ok2 := s.constant(e.Y)
		return x + y, ok1 && ok2
	}
	return "", false
}

// printerCall reports whether call is Sprintf on a Printer: any Sprintf
// but fmt's (the packages call no other).
func printerCall(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Sprintf" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return !ok || pkg.Name != "fmt"
}

// formats are the messages of the packages' Printer calls, each with
// where it is used; a format that is not constant fails t.
func formats(t *testing.T) map[string]string {
	found := map[string]string{}
	for _, dir := range shown {
		s := parse(t, dir)
		for _, file := range s.files {
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || !printerCall(call) || len(call.Args) == 0 {
					return true
				}
				at := s.fset.Position(call.Pos()).String()
				format, ok := s.constant(call.Args[0])
				if !ok {
					t.Errorf("%s: a Printer's format is not a constant, so no language can have it", at)
					return true
				}
				found[format] = at
				return true
			})
		}
	}
	for _, dir := range failing {
		s := parse(t, dir)
		for _, file := range s.files {
			ast.Inspect(file, func(n ast.Node) bool {
				if v, ok := n.(*ast.ValueSpec); ok {
					if typ, ok := v.Type.(*ast.Ident); ok && typ.Name == "Category" {
						for _, value := range v.Values {
							if kind, ok := s.constant(value); ok {
								found[kind] = s.fset.Position(v.Pos()).String()
							}
						}
					}
				}
				if a, ok := n.(*ast.AssignStmt); ok && len(a.Lhs) == 1 && len(a.Rhs) == 1 {
					if sel, ok := a.Lhs[0].(*ast.SelectorExpr); ok && (sel.Sel.Name == "Doing" || sel.Sel.Name == "DoingAbout") {
						if doing, ok := s.constant(a.Rhs[0]); ok {
							found[doing] = s.fset.Position(a.Pos()).String()
						}
					}
				}
				if fn, ok := n.(*ast.FuncDecl); ok && (fn.Name.Name == "ErrorMessage" || fn.Name.Name == "Doing") {
					ast.Inspect(fn, func(n ast.Node) bool {
						if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
							if msg, ok := s.constant(r.Results[0]); ok {
								found[msg] = s.fset.Position(r.Pos()).String()
							}
						}
						return true
					})
				}
				kv, ok := n.(*ast.KeyValueExpr)
				if !ok {
					return true
				}
				if key, ok := kv.Key.(*ast.Ident); !ok || key.Name != "Message" && key.Name != "Doing" && key.Name != "DoingAbout" {
					return true
				}
				if msg, ok := s.constant(kv.Value); ok {
					found[msg] = s.fset.Position(kv.Pos()).String()
				}
				return true
			})
		}
	}
	return found
}

// verbs is the signature of a format: which argument each verb prints,
// and as what ("1:d 2:s"), as fmt reads it.
func verbs(format string) string {
	used := map[string]bool{}
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
		index := func() {
			if i < len(format) && format[i] == '[' {
				end := strings.IndexByte(format[i:], ']')
				if n, err := strconv.Atoi(format[i+1 : i+end]); end > 0 && err == nil {
					arg = n - 1
				}
				i += end + 1
			}
		}
		number := func() {
			index()
			if i < len(format) && format[i] == '*' {
				used[strconv.Itoa(arg+1)+":*"] = true
				arg++
				i++
				return
			}
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
		}
		number()
		if i < len(format) && format[i] == '.' {
			i++
			number()
		}
		index()
		if i >= len(format) {
			break
		}
		if format[i] == '%' {
			continue
		}
		used[strconv.Itoa(arg+1)+":"+string(format[i])] = true
		arg++
	}
	list := make([]string, 0, len(used))
	for v := range used {
		list = append(list, v)
	}
	sort.Strings(list)
	return strings.Join(list, " ")
}

// TestEveryMessageIsTranslated reads the source of the packages that show
// text: every message a Printer prints (and every error message people
// see) must be in every language, with the same verbs for the same
// arguments — so a message added without its translations fails here.
func TestEveryMessageIsTranslated(t *testing.T) {
	found := formats(t)
	if len(found) < 100 {
		t.Fatalf("found only %d messages: is the source where the test looks?", len(found))
	}
	for _, l := range Languages() {
		if l.Tag == English {
			continue
		}
		m := l.messages()
		for format, at := range found {
			text, isText := m.Texts[format]
			forms, isPlural := m.Plurals[format]
			switch {
			case !isText && !isPlural:
				t.Errorf("%s: %s lacks %q", at, l.Name, format)
			case isText && isPlural:
				t.Errorf("%s has %q both as a text and as a plural", l.Name, format)
			case isText && verbs(text) != verbs(format):
				t.Errorf("%s: %s's %q prints %q, not %q as the English does", at, l.Name, text, verbs(text), verbs(format))
			}
			for _, form := range []string{forms.One, forms.Few, forms.Many, forms.Other} {
				if form != "" && verbs(form) != verbs(format) {
					t.Errorf("%s: %s's form %q of %q prints %q, not %q", at, l.Name, form, format, verbs(form), verbs(format))
				}
			}
		}
		for format := range m.Texts {
			if _, ok := found[format]; !ok {
				t.Errorf("%s translates %q, which ryo no longer says", l.Name, format)
			}
		}
		for format := range m.Plurals {
			if _, ok := found[format]; !ok {
				t.Errorf("%s translates %q, which ryo no longer says", l.Name, format)
			}
		}
	}
	for format, forms := range english().Plurals {
		if _, ok := found[format]; !ok {
			t.Errorf("English has a singular of %q, which ryo no longer says", format)
		}
		for _, form := range []string{forms.One, forms.Few, forms.Many, forms.Other} {
			if form != "" && verbs(form) != verbs(format) {
				t.Errorf("English form %q of %q prints %q, not %q", form, format, verbs(form), verbs(format))
			}
		}
	}
}
