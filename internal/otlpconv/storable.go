package otlpconv

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Bounds a converted event must respect: the batch endpoint's limits, which
// also keep every value storable and indexable by PostgreSQL.
const (
	maxTextLen  = 256
	maxErrorLen = 4096
	maxHashLen  = 128
	maxFuture   = 24 * time.Hour
)

// storable rejects an event that the batch endpoint would refuse or the
// database could not store (a NUL byte, invalid UTF-8, an over-long name),
// so that one bad record is rejected on its own instead of failing the
// whole export.
func storable(ev *event.Event, now time.Time) error {
	for _, f := range []struct {
		name, v string
		max     int
	}{
		{"model", ev.Model, maxTextLen},
		{"agent_name", ev.AgentName, maxTextLen},
		{"source", strings.TrimPrefix(ev.Source, "otlp:"), maxTextLen},
		{"session_id", ev.SessionID, maxTextLen},
		{"user_id", ev.UserID, maxTextLen},
		{"error", ev.Error, maxErrorLen},
		{"request_hash", ev.RequestHash, maxHashLen},
	} {
		if len(f.v) > f.max || !storableText(f.v) {
			return fmt.Errorf("invalid %s (must be valid UTF-8 without NUL characters, at most %d bytes)", f.name, f.max)
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"input_tokens", ev.InputTokens}, {"output_tokens", ev.OutputTokens}, {"cached_tokens", ev.CachedTokens},
		{"cache_write_tokens", ev.CacheWriteTokens}, {"reasoning_tokens", ev.ReasoningTokens},
	} {
		// Claude's prompt is the sum of three counts, each within the bound.
		if pricing.CheckTokens(f.v) != nil {
			return fmt.Errorf("token count above llmcost's bound of %d per call (%s=%d)", pricing.MaxCallTokens, f.name, f.v)
		}
	}
	if ev.Timestamp.After(now.Add(maxFuture)) {
		return fmt.Errorf("timestamp too far in the future (%s is more than 24 hours after receipt)",
			ev.Timestamp.Format(time.RFC3339Nano))
	}
	return nil
}

// storableText reports whether PostgreSQL text (and jsonb) can hold s.
func storableText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
