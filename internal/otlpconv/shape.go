package otlpconv

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Export request kinds, by the top-level key of their proto3 JSON.
const (
	LogsKey    = "resourceLogs"
	MetricsKey = "resourceMetrics"
	TracesKey  = "resourceSpans"
)

// snake is the proto field name the Collector accepts beside the camelCase key.
var snake = map[string]string{LogsKey: "resource_logs", MetricsKey: "resource_metrics", TracesKey: "resource_spans"}

// CheckExport refuses a body that is not an OTLP export request of kind
// key: not a JSON object, or an object with members but without key, such
// as {"foo":1}. The OTLP decoders ignore unknown fields, so such a body
// would otherwise be a successful export of nothing. {} (an empty export)
// passes.
func CheckExport(body []byte, key string) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return fmt.Errorf("must be a JSON object {%q: [...]}", key)
	}
	if len(top) == 0 {
		return nil
	}
	if _, ok := top[key]; ok {
		return nil
	}
	if _, ok := top[snake[key]]; ok {
		return nil
	}
	names := make([]string, 0, len(top))
	for k := range top {
		names = append(names, k)
	}
	sort.Strings(names)
	return fmt.Errorf("has no %q member (found %q): not an OTLP export request", key, names[0])
}
