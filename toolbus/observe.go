package toolbus

// Observer is told of every call the registry runs, for metrics: once per
// run, after it ends; a call whose key already ran, which returns the
// earlier result, is not told again. It must be safe for concurrent use
// and must not block.
type Observer interface {
	// ToolCalled reports a call's result. tool is the registered tool's
	// name, or UnknownTool for a name the registry does not hold, so that
	// whatever the model invents never becomes a label of its own.
	ToolCalled(tool string, res Result)
}

// UnknownTool stands for every tool name the registry does not hold. It
// cannot be a registered tool's name.
const UnknownTool = "(unknown)"

// SetObserver sets who is told of each call; nobody by default. Call it
// while building the registry.
func (r *Registry) SetObserver(o Observer) { r.observer = o }

// observe tells the observer of res, whose tool the registry held when
// the call began if known.
func (r *Registry) observe(res Result, known bool) {
	if r.observer == nil {
		return
	}
	tool := res.Tool
	if !known {
		tool = UnknownTool
	}
	r.observer.ToolCalled(tool, res)
}
