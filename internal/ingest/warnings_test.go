package ingest

import (
	"strings"
	"testing"

	"github.com/llmcost/llmcost/internal/pricing"
)

// An unknown model is stored (no rejection) and warned about with the
// catalogue's close names; a known one, in any spelling, is not.
func TestUnknownModelsWarnWithCloseNames(t *testing.T) {
	body := `{"events":[` + strings.Replace(evJSON(`"event_id":"typo"`), `"gpt-5"`, `"claude-sonet-4-5"`, 1) + `,` +
		strings.Replace(evJSON(`"event_id":"known"`), `"gpt-5"`, `"anthropic/claude-sonnet-4-5"`, 1) + `,` +
		`{"bad":1},` +
		strings.Replace(evJSON(`"event_id":"own","cost":0.5`), `"gpt-5"`, `"my-finetune-zzz"`, 1) + `]}`
	b, err := decode(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Events) != 3 {
		t.Fatalf("unknown models must not be rejected: %+v", b.Rejections)
	}
	w := b.UnknownModels(pricing.Builtin())
	if len(w) != 2 {
		t.Fatalf("warnings %+v", w)
	}
	if w[0].Index != 0 || w[0].EventID != "typo" || w[0].Field != "model" || len(w[0].Suggestions) == 0 ||
		w[0].Suggestions[0] != "claude-sonnet-4-5" {
		t.Fatalf("first warning %+v", w[0])
	}
	if w[1].Index != 3 || len(w[1].Suggestions) != 0 || !strings.Contains(w[1].Message, "stored as sent") {
		t.Fatalf("second warning %+v", w[1])
	}
}
