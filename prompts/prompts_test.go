package prompts_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ryo-bot/ryo/prompts"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestGolden(t *testing.T) {
	set, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		render func() (string, error)
	}{
		{"system_private", func() (string, error) {
			return set.System(prompts.System{BotName: "Ryo", BotUsername: "ryo_bot", ChatType: "private"})
		}},
		{"system_group_topic", func() (string, error) {
			return set.System(prompts.System{BotName: "Ryo", BotUsername: "ryo_bot", ChatType: "supergroup", ChatTitle: "Team", InTopic: true})
		}},
		{"now", func() (string, error) {
			return set.Now(prompts.Now{Time: "Sunday, 22 November 2026, 14:05", Timezone: "Europe/Berlin", Speaker: "Ann (@ann)"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.render()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s (run go test ./prompts -update to accept):\n%s", tt.name, golden, got)
			}
		})
	}
}
