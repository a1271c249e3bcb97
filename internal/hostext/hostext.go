// Package hostext is what the pipeline components and the costapi extension
// share: Lookup finds the extension from a component, and Slot names the
// routes a component serves on the extension's server. Each component
// declares the small interface it needs; Lookup only finds the extension by
// ID and checks that it offers that interface. The package imports no
// llmcost package, so a component reaches the extension without importing
// the API.
package hostext

import (
	"fmt"

	"go.opentelemetry.io/collector/component"
)

// Lookup returns the extension id as T, with an error naming the config
// field "api" when it is absent or does not offer what the component needs.
func Lookup[T any](host component.Host, id component.ID, offers string) (T, error) {
	var zero T
	ext, ok := host.GetExtensions()[id]
	if !ok {
		return zero, fmt.Errorf("api: extension %q is not configured", id)
	}
	t, ok := ext.(T)
	if !ok {
		return zero, fmt.Errorf("api: extension %q does not provide %s", id, offers)
	}
	return t, nil
}
