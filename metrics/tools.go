package metrics

import (
	"strings"

	"github.com/ryo-bot/ryo/toolbus"
)

// ToolCalled implements toolbus.Observer: tool is the registry's name for
// it, bounded by the tools it holds.
func (m *Metrics) ToolCalled(tool string, res toolbus.Result) {
	status := oneOf(res.Status, toolbus.StatusOK, toolbus.StatusError, toolbus.StatusCancelled, toolbus.StatusDenied)
	m.toolCalls.WithLabelValues(tool, status).Inc()
	if res.Attempts > 0 { // the tool ran: not refused before it could
		m.toolDuration.WithLabelValues(tool).Observe(res.Latency.Seconds())
	}
	if status == toolbus.StatusOK {
		return
	}
	code := ""
	if res.Error != nil {
		code = res.Error.Code
	}
	m.toolErrors.WithLabelValues(tool, m.code(code)).Inc()
}

// code is an error code as a label, bounded.
func (m *Metrics) code(code string) string {
	code = normalCode(code)
	if strings.HasPrefix(code, "http_") {
		return m.httpCodes.admit(code)
	}
	return m.codes.admit(code)
}
