package bot

import (
	"testing"
	"time"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/stages"
)

// BenchmarkAnswered: the outcome of a delivered answer, told from its
// metadata, as each turn does twice.
func BenchmarkAnswered(b *testing.B) {
	meta := withMessageIDs((&Bot{}).answerMetadata("llama3.2", agent.Output{Tags: []string{"math", "calculation"}, Rounds: 2, Tools: []string{"calculate"}}, time.Second), []int{101, 102})
	meta = withButtons(meta, 102, []stages.Button{{Text: "🔄", Data: "r:1"}})
	b.ReportAllocs()
	for b.Loop() {
		if answered(meta) != TurnAnswered {
			b.Fatal(string(meta))
		}
	}
}
