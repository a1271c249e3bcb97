package otlpconv

import (
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// A record whose values the database cannot store is rejected on its own,
// with the field named, and the rest of the export still converts.
func TestUnstorableRecordsAreRejectedAlone(t *testing.T) {
	cases := []struct {
		name, reason string
		// rejected is 2 when the edit is to the resource, which both
		// records share.
		rejected int
		edit     func(res pcommon.Map, lr plog.LogRecord)
	}{
		{"NUL in model", "invalid model", 1, func(_ pcommon.Map, lr plog.LogRecord) {
			lr.Attributes().PutStr("gen_ai.response.model", "gpt\x00-4o")
		}},
		{"invalid UTF-8 session", "invalid session_id", 1, func(_ pcommon.Map, lr plog.LogRecord) {
			lr.Attributes().PutStr("gen_ai.conversation.id", "c\xff")
		}},
		{"over-long agent override", "invalid agent_name", 2, func(res pcommon.Map, _ plog.LogRecord) {
			res.PutStr("llmcost.agent_name", strings.Repeat("a", 300))
		}},
		{"over-long service name", "invalid agent_name", 2, func(res pcommon.Map, _ plog.LogRecord) {
			res.PutStr("service.name", strings.Repeat("s", 3000))
		}},
		{"over-long user", "invalid user_id", 1, func(_ pcommon.Map, lr plog.LogRecord) {
			lr.Attributes().PutStr("user.id", strings.Repeat("u", 257))
		}},
		{"over-long request hash", "invalid request_hash", 1, func(_ pcommon.Map, lr plog.LogRecord) {
			lr.Attributes().PutStr("llmcost.request_hash", strings.Repeat("h", 129))
		}},
		{"two days ahead", "timestamp too far in the future", 1, func(_ pcommon.Map, lr plog.LogRecord) {
			lr.SetTimestamp(pcommon.NewTimestampFromTime(testNow.Add(48 * time.Hour)))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ld, add := batch("acme-agent", "acme")
			for i := 0; i < 2; i++ {
				lr := add()
				lr.SetEventName(semconvEvent)
				a := lr.Attributes()
				a.PutStr("gen_ai.response.model", "gpt-4o")
				a.PutInt("gen_ai.usage.input_tokens", 100)
				a.PutStr("gen_ai.response.id", "resp_"+string(rune('a'+i)))
			}
			c.edit(ld.ResourceLogs().At(0).Resource().Attributes(), ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1))
			got := Convert(ld, testNow)
			if len(got.Rejected) != c.rejected || len(got.Events) != 2-c.rejected {
				t.Fatalf("want %d rejected and the rest converted, got %+v", c.rejected, got)
			}
			if r := got.Rejected[len(got.Rejected)-1].Reason; !strings.HasPrefix(r, c.reason+" (") {
				t.Errorf("reason %q, want %q (…)", r, c.reason)
			}
		})
	}
}

// A tag the database cannot store is dropped; the event is kept.
func TestUnstorableTagIsDropped(t *testing.T) {
	ld, add := batch("acme-agent", "acme")
	ld.ResourceLogs().At(0).Resource().Attributes().PutStr("team.id", "a\x00b")
	ld.ResourceLogs().At(0).Resource().Attributes().PutStr("cost_center", "eng-1")
	lr := add()
	lr.SetEventName(semconvEvent)
	lr.Attributes().PutStr("gen_ai.response.model", "gpt-4o")
	lr.Attributes().PutInt("gen_ai.usage.input_tokens", 1)
	ev := only(t, Convert(ld, testNow)).Event
	if string(ev.Metadata) != `{"cost_center":"eng-1"}` {
		t.Fatalf("metadata %s", ev.Metadata)
	}
}

// An agent's record may carry the hash of its request (llmcost.request_hash),
// which tells repeated identical calls of a run apart.
func TestRequestHashIsRead(t *testing.T) {
	ld, add := batch("acme-agent", "acme")
	lr := add()
	lr.SetEventName(semconvEvent)
	a := lr.Attributes()
	a.PutStr("gen_ai.response.model", "gpt-4o")
	a.PutInt("gen_ai.usage.input_tokens", 100)
	a.PutStr("llmcost.request_hash", "sha256:abc")
	got := Convert(ld, testNow)
	if len(got.Events) != 1 || got.Events[0].Event.RequestHash != "sha256:abc" {
		t.Fatalf("request hash not read: %+v", got)
	}
}

// Chargeback tags come as llmcost.tag.<key> attributes of the resource or
// the record, the record's value winning, and land in the metadata under
// <key>; a key outside the tag key rule is left out.
func TestChargebackTagAttributes(t *testing.T) {
	ld, add := batch("acme-agent", "acme")
	res := ld.ResourceLogs().At(0).Resource().Attributes()
	res.PutStr("llmcost.tag.team", "platform")
	res.PutStr("llmcost.tag.environment", "prod")
	res.PutStr("llmcost.tag.Bad-Key", "x")
	lr := add()
	lr.SetEventName(semconvEvent)
	lr.Attributes().PutStr("gen_ai.response.model", "gpt-4o")
	lr.Attributes().PutInt("gen_ai.usage.input_tokens", 1)
	lr.Attributes().PutStr("llmcost.tag.team", "payments")
	lr.Attributes().PutInt("llmcost.tag.cost_center", 4711)
	ev := only(t, Convert(ld, testNow)).Event
	if string(ev.Metadata) != `{"cost_center":"4711","environment":"prod","team":"payments"}` {
		t.Fatalf("metadata %s", ev.Metadata)
	}
}
