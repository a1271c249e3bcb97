package apiserver

import (
	"net/http"
	"sync"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/hostext"
)

// slotHolder is the current handler of one slot; nil while empty.
type slotHolder struct {
	mu sync.RWMutex
	h  respond.Func
}

// slot declares a slot in the table and returns the handler that serves
// whatever fills it.
func (s *Server) slot(name hostext.Slot) respond.Func {
	holder := &slotHolder{}
	s.slots[name] = holder
	return func(w http.ResponseWriter, r *http.Request) error {
		holder.mu.RLock()
		h := holder.h
		holder.mu.RUnlock()
		if storing[name] {
			if err := s.admit(callerOf(r).ProjectID); err != nil {
				return err
			}
		}
		if h == nil {
			// 503, never 404: OTLP exporters and clients drop a batch
			// answered 404 for good, and retry a 503.
			return apierr.Unavailablef(nil, "the ingest pipeline is not running").
				WithHint("the server is starting or stopping; retry after the Retry-After delay")
		}
		return h(w, r)
	}
}

// storing are the slots whose requests store calls: they wait while the
// mergers are too far behind (backlog.Limits.Admit). OTLP metrics and
// traces store nothing.
var storing = map[hostext.Slot]bool{hostext.SlotEventsBatch: true, hostext.SlotOTLPLogs: true}

// admit refuses a batch of project with 503 and Retry-After while a merger
// is too far behind and the project holds its share of that backlog:
// OTLP exporters, the collector's exporters and the SDKs retry such an
// answer, so nothing is lost, and nothing is acknowledged that the
// reports could not keep up with.
func (s *Server) admit(project string) error {
	d := s.Backlog.Admit(project)
	if d.OK {
		return nil
	}
	return apierr.Unavailablef(nil, "ingest is ahead of the %s merger: %d wait to be merged (bound %d), %d of them this project's",
		d.Merger, d.Backlog, d.Bound, d.Project).
		WithHint("the batch was not stored; send it again after the Retry-After delay").WithRetryAfter(d.RetryAfter)
}

// Fill puts h in the slot; release empties it again. A slot holds one
// handler at a time.
func (s *Server) Fill(name hostext.Slot, h respond.Func) (release func(), err error) {
	holder, ok := s.slots[name]
	if !ok {
		return nil, apierr.Newf(apierr.Internal, "the route table has no slot %q", name)
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	if holder.h != nil {
		return nil, apierr.Newf(apierr.Conflict, "slot %q is already filled", name)
	}
	holder.h = h
	var once sync.Once
	return func() {
		once.Do(func() {
			holder.mu.Lock()
			holder.h = nil
			holder.mu.Unlock()
		})
	}, nil
}
