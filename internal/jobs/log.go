package jobs

import (
	"context"
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// riverLogger passes River's warnings and errors to the service's logger.
// Its info and debug lines (every fetch, every election) stay out, and
// River never logs job arguments at any level we let through.
func riverLogger(log *zap.Logger) *slog.Logger {
	return slog.New(&zapHandler{log: log.Named("river")})
}

// zapHandler is a minimal slog.Handler writing to zap.
type zapHandler struct {
	log    *zap.Logger
	prefix string
}

func (h *zapHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *zapHandler) Handle(_ context.Context, r slog.Record) error {
	fields := make([]zap.Field, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		fields = append(fields, zap.Any(h.prefix+a.Key, a.Value.Resolve().Any()))
		return true
	})
	level := zapcore.WarnLevel
	if r.Level >= slog.LevelError {
		level = zapcore.ErrorLevel
	}
	h.log.Log(level, r.Message, fields...)
	return nil
}

func (h *zapHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	fields := make([]zap.Field, 0, len(attrs))
	for _, a := range attrs {
		fields = append(fields, zap.Any(h.prefix+a.Key, a.Value.Resolve().Any()))
	}
	return &zapHandler{log: h.log.With(fields...), prefix: h.prefix}
}

func (h *zapHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &zapHandler{log: h.log, prefix: h.prefix + name + "."}
}
