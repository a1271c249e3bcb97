package wire

// ExportCall is one line of GET /v1/exports/calls: the call as GET
// /v1/events lists it, and the cursor an interrupted export resumes after.
type ExportCall struct {
	Event
	// Cursor is opaque: passed back as the cursor parameter, the export
	// continues with the call after this one.
	Cursor string `json:"cursor"`
}
