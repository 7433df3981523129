package toolbus

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/schema"
)

// Registry holds the tools, built explicitly in main. It is safe for
// concurrent use once built.
type Registry struct {
	set    sync.RWMutex // guards tools and order, which Replace changes at run time
	tools  map[string]*entry
	order  []string
	policy Policy
	clock  ryo.Clock

	observer Observer     // told of each call; nil for nobody
	tracer   trace.Tracer // each call is a span; nil for none (span.go)

	mu   sync.Mutex
	done map[string]Result // finished calls by idempotency key
	keys []string          // in the order they finished, to forget the oldest
}

type entry struct {
	spec   Spec
	schema *schema.Schema
}

// SetPolicy sets which calls wait for the person's yes; the default is
// ConfirmDestructive. Call it while building the registry.
func (r *Registry) SetPolicy(p Policy) { r.policy = p }

// SetClock sets the clock tools' latencies are measured on; the system's
// by default.
func (r *Registry) SetClock(c ryo.Clock) { r.clock = c }

// rememberedCalls bounds how many finished calls the registry keeps in
// memory for idempotency; older ones are found in the store.
const rememberedCalls = 4096

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*entry{}, done: map[string]Result{}, clock: ryo.SystemClock{}}
}

var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// notVerbs are first words that show a description does not start with a
// verb ("Returns …" and "Calculate …" do; "This tool …" does not).
var notVerbs = map[string]bool{
	"a": true, "an": true, "the": true, "this": true, "that": true, "it": true, "tool": true,
	"function": true, "used": true, "for": true, "to": true, "when": true, "if": true, "my": true, "our": true,
}

// Register adds a tool. It refuses a bad name, a description that is empty,
// longer than 200 characters or does not start with a verb, a missing
// category, other than one or two examples or an example whose arguments
// the schema refuses, and a schema that does not compile or leaves an
// object open to extra properties.
func (r *Registry) Register(s Spec) error {
	e, err := compile(s)
	if err != nil {
		return err
	}
	r.set.Lock()
	defer r.set.Unlock()
	r.tools[s.Name] = e
	r.order = append(r.order, s.Name)
	return nil
}

// compile checks s and compiles its schema, with the defaults filled in.
func compile(s Spec) (*entry, error) {
	if err := check(s); err != nil {
		return nil, fmt.Errorf("register tool %q: %w", s.Name, err)
	}
	compiled, err := schema.Compile(s.Schema)
	if err != nil {
		return nil, fmt.Errorf("register tool %q: %w", s.Name, err)
	}
	for i, e := range s.Examples {
		if err := compiled.Validate(e.Arguments); err != nil {
			return nil, fmt.Errorf("register tool %q: example %d (%q): the arguments do not fit the schema: %w", s.Name, i+1, e.Question, err)
		}
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.MaxResult == 0 {
		s.MaxResult = DefaultMaxResult
	}
	return &entry{spec: s, schema: compiled}, nil
}

func check(s Spec) error {
	switch {
	case !toolName.MatchString(s.Name):
		return errors.New("the name must be lower_snake_case")
	case s.Tool == nil:
		return errors.New("no Tool")
	case s.Description == "" || len([]rune(s.Description)) > 200:
		return errors.New("the description must be 1 to 200 characters")
	case !startsWithVerb(s.Description):
		return errors.New(`the description must start with a verb ("Convert …", "Returns …")`)
	case s.Category == "" || len([]rune(string(s.Category))) > 32:
		return errors.New("the category must be 1 to 32 characters")
	case len(s.Examples) < 1 || len(s.Examples) > 2:
		return errors.New("a tool has one or two examples")
	}
	for i, e := range s.Examples {
		if q := len([]rune(e.Question)); q == 0 || q > 200 {
			return fmt.Errorf("example %d: the question must be 1 to 200 characters", i+1)
		}
	}
	var root map[string]any
	if err := json.Unmarshal(s.Schema, &root); err != nil || root["type"] != "object" {
		return errors.New(`the schema must be a JSON object schema ("type": "object")`)
	}
	open, err := schema.Closed(s.Schema)
	if err != nil || open != "" {
		return fmt.Errorf(`the schema object at %s must set "additionalProperties": false`, open)
	}
	return nil
}

func startsWithVerb(d string) bool {
	first, _, _ := strings.Cut(d, " ")
	if first == "" || strings.ToUpper(first[:1]) != first[:1] {
		return false
	}
	return !notVerbs[strings.ToLower(first)]
}

// Specs returns the tools in the order they were registered.
func (r *Registry) Specs() []Spec {
	r.set.RLock()
	defer r.set.RUnlock()
	specs := make([]Spec, len(r.order))
	for i, name := range r.order {
		specs[i] = r.tools[name].spec
	}
	return specs
}

// Lookup returns the tool named name.
func (r *Registry) Lookup(name string) (Spec, bool) {
	e, ok := r.entry(name)
	if !ok {
		return Spec{}, false
	}
	return e.spec, true
}

// entry is the tool named name as it is now.
func (r *Registry) entry(name string) (*entry, bool) {
	r.set.RLock()
	defer r.set.RUnlock()
	e, ok := r.tools[name]
	return e, ok
}

// names lists the registered tools among allowed (all when nil), or says
// there are none.
func (r *Registry) names(allowed []string) string {
	r.set.RLock()
	defer r.set.RUnlock()
	var names []string
	for _, name := range r.order {
		if allowed == nil || slices.Contains(allowed, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func (r *Registry) remembered(key string) (Result, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.done[key]
	return res, ok
}

func (r *Registry) remember(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.done[res.Key]; ok {
		return
	}
	r.done[res.Key] = res
	r.keys = append(r.keys, res.Key)
	if len(r.keys) > rememberedCalls {
		delete(r.done, r.keys[0])
		r.keys = r.keys[1:]
	}
}
