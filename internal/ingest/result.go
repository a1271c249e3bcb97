// Package ingest decodes and validates event batches and carries the
// per-request result through the synchronous pipeline, so that a batch's
// answer carries counts only storage knows: the receiver puts a Result in
// the context, the processor adds rejections, the exporter adds stored and
// duplicate counts.
package ingest

import (
	"context"
	"sync"
	"sync/atomic"
)

// Rejection is one refused event or outcome of a batch.
type Rejection struct {
	Index   int    `json:"index"`
	EventID string `json:"event_id,omitempty"`
	Field   string `json:"field"`
	Reason  string `json:"reason"`
}

// Result collects what the pipeline did with one request.
type Result struct {
	Stored    atomic.Int64
	Duplicate atomic.Int64
	Outcomes  atomic.Int64
	filled    atomic.Int32

	mu         sync.Mutex
	rejections []Rejection
	calls      []Rejection
	// writing, when set, is called once the CPU-bound part of the
	// request is over (CPUGate's leave).
	writing func()
}

type ctxKey struct{}

// NewContext returns ctx carrying r.
func NewContext(ctx context.Context, r *Result) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// FromContext returns the request's Result, or nil outside a synchronous
// ingest request (e.g. behind the stock OTLP receiver).
func FromContext(ctx context.Context) *Result {
	r, _ := ctx.Value(ctxKey{}).(*Result)
	return r
}

// OnWriting sets what Writing calls: the receiver's CPUGate slot.
func (r *Result) OnWriting(f func()) { r.writing = f }

// Writing tells the receiver that the exporter is about to wait for the
// database: the request's CPU-bound part is over.
func (r *Result) Writing() {
	if r.writing != nil {
		r.writing()
	}
}

// Fill records what storage did; exactly one exporter calls it per request.
func (r *Result) Fill(stored, duplicate, outcomes int64) {
	r.Stored.Add(stored)
	r.Duplicate.Add(duplicate)
	r.Outcomes.Add(outcomes)
	r.filled.Add(1)
}

// Fills is how many exporters filled the result: anything but 1 means the
// pipeline is not the synchronous one the answer depends on.
func (r *Result) Fills() int { return int(r.filled.Load()) }

// Reject adds a rejection.
func (r *Result) Reject(rej Rejection) { r.add(&r.rejections, rej) }

// Rejections returns the rejections so far.
func (r *Result) Rejections() []Rejection { return r.copyOf(&r.rejections) }

// add appends rej to one of the lists, under the lock.
func (r *Result) add(to *[]Rejection, rej Rejection) {
	r.mu.Lock()
	*to = append(*to, rej)
	r.mu.Unlock()
}

// copyOf returns a copy of one of the lists, under the lock.
func (r *Result) copyOf(from *[]Rejection) []Rejection {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Rejection(nil), (*from)...)
}

// RejectCall adds the rejection of the call record at position call among
// the request's call records (the processor refuses a call it cannot
// price within the bounds); the receiver turns the position into the
// request's index (CallRejections).
func (r *Result) RejectCall(call int, rej Rejection) {
	rej.Index = call
	r.add(&r.calls, rej)
}

// CallRejections returns the RejectCall rejections, their Index the
// call's position among the request's call records.
func (r *Result) CallRejections() []Rejection { return r.copyOf(&r.calls) }
