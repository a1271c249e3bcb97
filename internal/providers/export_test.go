package providers

import "errors"

// AsError is errors.As for the external tests.
func AsError(err error, e **Error) bool { return errors.As(err, e) }
