package costeventsreceiver

import (
	"testing"

	"github.com/llmcost/llmcost/internal/ingest"
)

// A call the processor refused (its price past the per-call bound) is
// reported at its index in the request: the pipeline numbers the calls it
// was handed, which skip the events validation already rejected.
func TestBatchAnswerPlacesThePipelinesRejections(t *testing.T) {
	b := &ingest.Batch{Received: 4, Index: []int{0, 2, 3},
		Rejections: []ingest.Rejection{{Index: 1, Field: "input_tokens", Reason: "must be at most 1000000000"}}}
	res := &ingest.Result{}
	res.Fill(2, 0, 0)
	res.RejectCall(1, ingest.Rejection{EventID: "e2", Field: "cost", Reason: "beyond llmcost's bound"})
	out := batchAnswer(b, res)
	if out.Status != "partial" || out.EventsRejected != 2 || len(out.Rejected) != 2 {
		t.Fatalf("answer %+v", out)
	}
	if r := out.Rejected[1]; r.Index != 2 || r.EventID != "e2" || r.Field != "cost" {
		t.Errorf("the pipeline's rejection %+v, want index 2", r)
	}
}
