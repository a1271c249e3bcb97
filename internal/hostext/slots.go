package hostext

// Slot names a route of the API's table whose handler a pipeline component
// provides while it runs. The names live here, beside Lookup, so that the
// server that declares a slot and the receiver that fills it share them
// without the receiver importing the API package.
type Slot string

// The slots the costevents receiver fills.
const (
	SlotEventsBatch Slot = "events.batch"
	SlotOTLPLogs    Slot = "otlp.logs"
	SlotOTLPMetrics Slot = "otlp.metrics"
	SlotOTLPTraces  Slot = "otlp.traces"
)
