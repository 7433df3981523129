package lang

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// speaking are the packages that talk to people.
var speaking = []string{"../bot", "../bot/delivery", "../stages"}

// namesDays matches a time layout that writes the name of a month or a
// day.
var namesDays = regexp.MustCompile(`\b(Jan|January|Mon|Monday)\b`)

// calledBy reports whether the node above the top of stack is an
// argument of a call of the method name.
func calledBy(stack []ast.Node, name string) bool {
	c, ok := stack[len(stack)-1].(*ast.CallExpr)
	return ok && calleeName(c) == name
}

// words are English words in a string.
var words = regexp.MustCompile(`[A-Za-z]{2,}`)

// sentence reports whether s reads as English meant for a person: two
// words or more, with a space between — not a name, a key or a path.
func sentence(s string) bool {
	return strings.Contains(strings.TrimSpace(s), " ") && len(words.FindAllString(s, 3)) >= 2
}

// notForPeople are calls whose string arguments people never read: the
// log, errors (whose cause is logged; people see a ryo.Error's Message),
// names of database steps, matching what Telegram or a server said, and
// what a trace's spans are named and carry (read by operators).
var notForPeople = map[string]bool{
	"Info": true, "Warn": true, "Error": true, "Debug": true, "With": true, "Log": true,
	"InfoContext": true, "WarnContext": true, "ErrorContext": true, "DebugContext": true, "LogAttrs": true,
	"AddEvent": true, "SetName": true, "SetStatus": true, "RecordError": true,
	"Errorf": true, "New": true, "record": true, "retry": true, "fail": true, "BuryUnreadable": true,
	"isBadRequest": true, "Contains": true, "HasPrefix": true, "HasSuffix": true, "EqualFold": true,
	"ignored": true, "asContext": true, "Date": true, "Fields": true, "MustCompile": true,
}

// passOn are calls whose result carries their string arguments on:
// where that result goes decides.
var passOn = map[string]bool{"Sprintf": true, "Join": true, "Or": true, "clip": true}

// notForPeopleKeys are fields whose strings people never read, or read as
// the model's: a tool's description and examples (written for the model,
// shown as the tool describes itself), a route's reason (logged).
var notForPeopleKeys = map[string]bool{"Description": true, "Question": true, "why": true}

// notShown are functions whose English people never read, with why.
var notShown = map[string]string{
	"withTranscript": "the transcript's marker, read by the model in the history",
	"fileBlock":      "the model is told of a file's text",
	"showFiles":      "the model is told of a file's text",
	"files":          "the model is told of a file it did not read",
	"draftsRefused":  "Telegram's error descriptions, matched",
	"Error":          "an error's text, logged",
	"String":         "a value as configured (a quota), in the configuration's words",
}

// TestNoSentenceIsLeftInEnglish reads the source of the packages that
// talk to people: an English sentence — a literal, or a constant — that
// reaches anything but a Printer's format (or the log, an error, or the
// model) is one a Russian speaker would read in English.
func TestNoSentenceIsLeftInEnglish(t *testing.T) {
	for _, dir := range speaking {
		s := parse(t, dir)
		sentences := map[string]bool{} // the package's constants that are sentences
		for name, v := range s.consts {
			sentences[name] = sentence(v)
		}
		for name, file := range s.files {
			var stack []ast.Node
			ast.Inspect(file, func(n ast.Node) bool {
				if n == nil {
					stack = stack[:len(stack)-1]
					return true
				}
				defer func() { stack = append(stack, n) }()
				if inConst(stack) {
					return true
				}
				switch n := n.(type) {
				case *ast.BasicLit:
					v, ok := s.constant(n)
					if ok && namesDays.MatchString(v) && calledBy(stack, "Format") {
						t.Errorf("%s: the date layout %s writes English names of months or days: print it with Printer.Date",
							s.fset.Position(n.Pos()), n.Value)
					}
					if !ok || !sentence(v) {
						return true
					}
				case *ast.Ident:
					if !sentences[n.Name] || isDecl(stack, n) {
						return true
					}
				default:
					return true
				}
				if why := plain(stack, n); why != "" {
					t.Errorf("%s: %s reaches people in English (%s): print it through a lang.Printer",
						s.fset.Position(n.Pos()), shownAs(n), why)
				}
				return true
			})
			_ = name
		}
	}
}

func shownAs(n ast.Node) string {
	switch n := n.(type) {
	case *ast.BasicLit:
		return n.Value
	case *ast.Ident:
		return "the constant " + n.Name
	}
	return "?"
}

func inConst(stack []ast.Node) bool {
	for _, n := range stack {
		if g, ok := n.(*ast.GenDecl); ok && (g.Tok == token.CONST || g.Tok == token.IMPORT) {
			return true
		}
	}
	return false
}

// isDecl reports whether id is a name being declared or a field picked,
// not a use of a constant.
func isDecl(stack []ast.Node, id *ast.Ident) bool {
	switch p := stack[len(stack)-1].(type) {
	case *ast.SelectorExpr:
		return p.Sel == id
	case *ast.KeyValueExpr:
		return p.Key == id
	case *ast.Field, *ast.FuncDecl, *ast.TypeSpec, *ast.ValueSpec:
		return true
	}
	return false
}

// plain says how the string at n (its ancestors in stack) reaches
// people, or "" when it does not.
func plain(stack []ast.Node, n ast.Node) string {
	for i := len(stack) - 1; i >= 0; i-- {
		if fn, ok := stack[i].(*ast.FuncDecl); ok {
			if _, ok := notShown[fn.Name.Name]; ok {
				return ""
			}
			break
		}
	}
	cur := n
	for i := len(stack) - 1; i >= 0; i-- {
		switch a := stack[i].(type) {
		case *ast.BinaryExpr:
			if a.Op == token.EQL || a.Op == token.NEQ {
				return "" // compared, not shown
			}
		case *ast.ParenExpr:
		case *ast.Field, *ast.CaseClause:
			return "" // a struct tag; a case compared
		case *ast.CallExpr:
			if cur == a.Fun {
				return ""
			}
			if printerCall(a) && len(a.Args) > 0 && a.Args[0] == cur {
				return ""
			}
			if notForPeople[calleeName(a)] {
				return ""
			}
			if !passOn[calleeName(a)] {
				return "passed to " + calleeName(a)
			}
		case *ast.KeyValueExpr:
			if key, ok := a.Key.(*ast.Ident); ok && notForPeopleKeys[key.Name] {
				return ""
			}
			if _, ok := a.Key.(*ast.BasicLit); ok {
				return "" // a map of JSON for a program, or for the model
			}
			if key, ok := a.Key.(*ast.Ident); ok {
				return "as " + key.Name
			}
		case *ast.FuncDecl:
			return "in " + a.Name.Name
		case *ast.FuncLit, *ast.BlockStmt, *ast.ReturnStmt, *ast.AssignStmt, *ast.CompositeLit, *ast.IfStmt,
			*ast.SwitchStmt, *ast.ExprStmt, *ast.DeclStmt, *ast.GenDecl, *ast.ValueSpec, *ast.RangeStmt, *ast.ForStmt:
		default:
			continue
		}
		cur = stack[i]
	}
	return "somewhere"
}

func calleeName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return filepath.Base("call")
}
